"""`python -m demo`: run the offline demo (see demo/__init__.py)."""

from demo.run import main

raise SystemExit(main())
