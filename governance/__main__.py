"""`python -m governance`: the offline CLI (see cli.py)."""

import sys

from governance.cli import main

sys.exit(main())
