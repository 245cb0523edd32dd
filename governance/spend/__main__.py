"""`python -m governance.spend`: the spend report alone (as `python -m governance spend`)."""

from governance.spend.cli import main

raise SystemExit(main())
