"""RSS 2.0, Atom 1.0 and JSON Feed 1.1 for the site, each category and series (tags, authors:
settings), written from the catalog: :mod:`.scopes` (which feeds), :mod:`.items` (what an
item says), :mod:`.formats` (the three serialisations), :mod:`.build` (writing, discovery
links). Replaces ablog's Atom feed.
"""

from .build import setup_feeds

__all__ = ["setup_feeds"]
