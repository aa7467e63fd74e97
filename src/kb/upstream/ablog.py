"""ablog's private state. :mod:`kb.core.ablog` is kb's adapter to ablog; what it needs of
ablog's private names is here."""

from __future__ import annotations

import os
from glob import glob
from pathlib import PurePath


def reset_blog_state() -> None:
    """Forget what ablog's ``Blog`` found in an earlier build in this process.

    ``Blog`` shares one dict among all its instances, at class level (``Blog._dict``), filled
    on first use: a second build in one process (the tests, ``kb serve``'s warm worker) would
    see the first build's posts. ablog has no public reset.
    """
    from ablog.blog import Blog

    Blog._dict.clear()


def pattern_matches(srcdir, patterns) -> list[str]:
    """What ablog's ``config_inited`` handler finds for ``blog_post_pattern`` (one pattern or a
    list), in its order: each path a pattern globs (recursively) under the source folder,
    relative to it, with ``/``. Written as ablog 0.11 writes it; it has no function of its own
    for it. kb's steps that look for posts before ablog has (the drafts) or without its
    filtering (the checks' list of post files) glob the same way through this."""
    patterns = [patterns] if isinstance(patterns, str) else list(patterns or ())
    prefix = os.path.join(srcdir, "")
    return [
        _relative(match, prefix, srcdir)
        for pattern in patterns
        for match in glob(os.path.join(srcdir, pattern), recursive=True)
    ]


def _relative(match: str, prefix: str, srcdir) -> str:
    """``PurePath(match).relative_to(srcdir).as_posix()``: where ``match`` is ``prefix`` and a
    path with nothing for PurePath to tidy (no empty, ``.`` or ``..`` part), the rest of it,
    without a path object (a fifth of the standby's check of 1000 posts went to them)."""
    rest = match[len(prefix) :] if match.startswith(prefix) else ""
    tidy = rest and os.sep == "/" and "//" not in rest and not rest.endswith("/")
    if tidy and "/." not in "/" + rest:
        return rest
    return PurePath(match).relative_to(srcdir).as_posix()


def matched_blog_posts(srcdir, patterns) -> list[str]:
    """The docnames ablog keeps in ``config.matched_blog_posts``: :func:`pattern_matches`
    without their suffixes. ablog matches once, when the configuration is read; ``kb serve``'s
    standby, made before a post was added, matches again (:mod:`kb.incremental.standby`)."""
    return [PurePath(path).with_suffix("").as_posix() for path in pattern_matches(srcdir, patterns)]
