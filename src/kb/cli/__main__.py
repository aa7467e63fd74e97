"""``python -m kb.cli``: the ``kb`` command without its console script."""

import sys

from .main import main

sys.exit(main())
