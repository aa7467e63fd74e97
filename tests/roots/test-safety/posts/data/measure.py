"""A measurement script a post may show."""

print("measured")
