"""The pages a reader browses: archives, the home page's latest posts, the sidebar, series
pages, redirects of renamed posts and the parts of a post's own page (header, series box,
cite block, related posts, backlinks), the glossary's lists of posts, and the benchmarks page
with ``data/benchmarks.json``; the navigation tree and the stylesheet and script tags, made
once per folder.

Each reads the catalog; :mod:`.entries` is the one layout of a listed post they share.
"""

from .ablogrefs import setup_ablogrefs
from .assettags import setup_assettags
from .backlinks import setup_backlinks
from .benchmarks import setup_benchmarks
from .citation import setup_citation
from .datasets import setup_datasets
from .evergreen import setup_evergreen
from .glossary import setup_glossary
from .listings import setup_listings
from .navigation import setup_navigation
from .postlist import setup_postlist
from .postpage import setup_postpage
from .redirects import setup_redirects
from .related import setup_related
from .series import setup_series
from .sidebars import setup_sidebars

__all__ = [
    "setup_ablogrefs",
    "setup_assettags",
    "setup_backlinks",
    "setup_evergreen",
    "setup_glossary",
    "setup_benchmarks",
    "setup_datasets",
    "setup_citation",
    "setup_listings",
    "setup_navigation",
    "setup_postlist",
    "setup_postpage",
    "setup_redirects",
    "setup_related",
    "setup_series",
    "setup_sidebars",
]
