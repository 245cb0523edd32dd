# pyright: basic
"""`python -m governance.demo`: run the offline demo (see governance/demo/__init__.py)."""

from governance.demo.run import main

raise SystemExit(main())
