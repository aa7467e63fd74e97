"""What posts are written in: math as MathML at build time (:mod:`.math`), code highlighting
with a PTX lexer (:mod:`.highlighting`), ids unique on every page (:mod:`.uniqueids`),
blocks that scroll sideways reachable by keyboard (:mod:`.scrolling`), audio and video
files in the browser's player (:mod:`.players`), and
the checks that keep a post inside the site: every file it names (:mod:`.files`, with the
rule in :mod:`kb.core.paths`) and its raw HTML (:mod:`.rawhtml`), and one warning, kb's, for
headings that start at ``##`` (:mod:`.headings`) and for a comment in a MyST ``post``
directive's options (:mod:`.optioncomments`).
"""

from .files import setup_files
from .headings import setup_headings
from .highlighting import setup_highlighting
from .math import setup_math
from .optioncomments import setup_option_comments
from .players import setup_players
from .rawhtml import setup_rawhtml
from .scrolling import setup_scrolling
from .uniqueids import setup_uniqueids

__all__ = [
    "setup_files",
    "setup_headings",
    "setup_highlighting",
    "setup_math",
    "setup_option_comments",
    "setup_players",
    "setup_rawhtml",
    "setup_scrolling",
    "setup_uniqueids",
]
