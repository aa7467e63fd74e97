"""``kb import``: bring a WordPress site (its export, or an RSS or Atom feed) into the site.

This package owns everything the import does, without Sphinx and without a build:

- :mod:`.detect` reads the file safely (no entities, no network) and tells its format;
- :mod:`.wxr` and :mod:`.feeds` turn WXR 1.0-1.2, RSS 2.0 and Atom into :class:`.model.Item`;
- :mod:`.shortcodes` deals with WordPress's markup (shortcodes, math, ``wpautop``) and
  :mod:`.convert` turns the HTML into MyST Markdown (markdownify; why, in its docstring);
- :mod:`.posts` decides what becomes a post and with which front matter, :mod:`.write`
  copies images, checks each text as ``kb check`` would and writes without overwriting;
- :mod:`.arguments` is the command line (``add_parser``) and :mod:`.command` the run
  (``run``) and its report.
"""

from .arguments import add_parser
from .command import run

__all__ = ["add_parser", "run"]
