"""What posts are written in: math as MathML at build time (:mod:`.math`), code highlighting
with a PTX lexer (:mod:`.highlighting`), and ids unique on every page (:mod:`.uniqueids`).
"""

from .highlighting import setup_highlighting
from .math import setup_math
from .uniqueids import setup_uniqueids

__all__ = ["setup_highlighting", "setup_math", "setup_uniqueids"]
