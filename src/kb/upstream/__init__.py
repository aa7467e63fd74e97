"""Everything kb needs of other packages that they do not offer as public API.

One module per package: :mod:`.sphinx`, :mod:`.docutils`, :mod:`.ablog`, :mod:`.myst_parser`,
:mod:`.myst_nb`, :mod:`.sphinx_autobuild`, :mod:`.pagefind`, :mod:`.furo`, :mod:`.pygments`.
Each private name (an attribute or module whose name starts with ``_``) or undocumented
attribute kb relies on is read or set in one small function here, whose docstring says why kb
needs it. No other module of kb touches one: ``tests/test_upstream.py`` finds any outside this
package, and fails loudly when a name a function here relies on is gone from the installed
version.

The ground floor: nothing here imports anything of kb, and each function imports its package
when called, so that importing this package costs nothing.
"""
