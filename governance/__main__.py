"""`python -m governance`: the `mlgov` command (see governance/cli/main.py)."""

from governance.cli.main import run

run()
