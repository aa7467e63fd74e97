"""ablog's private state. :mod:`kb.core.ablog` is kb's adapter to ablog; what it needs of
ablog's private names is here."""

from __future__ import annotations


def reset_blog_state() -> None:
    """Forget what ablog's ``Blog`` found in an earlier build in this process.

    ``Blog`` shares one dict among all its instances, at class level (``Blog._dict``), filled
    on first use: a second build in one process (the tests, ``kb serve``'s warm worker) would
    see the first build's posts. ablog has no public reset.
    """
    from ablog.blog import Blog

    Blog._dict.clear()
