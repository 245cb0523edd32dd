"""`python -m governance.spend`: the spend report alone (as `python -m governance spend`)."""

from governance.cli.spend import main

raise SystemExit(main())
