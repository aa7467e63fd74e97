"""The post checks: pure functions over a post's text, shared by ``kb check`` and the build.

No Sphinx, no ablog: :mod:`.frontmatter` checks one post's front matter (reading its body
with :mod:`.postbody`), :mod:`.sitechecks` checks what only the whole site shows (slug
clashes, duplicate titles, broken links), :mod:`.messages` words every problem, and
:mod:`.slugs` names pages exactly as the build does.
"""
