"""``python -m mdvec COMMAND``: the command line lives in ``mdvec.tools.cli``."""

import sys

from .tools.cli import main

sys.exit(main())
