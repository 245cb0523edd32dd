"""`python -m governance`: the `mlgov` command (see governance/tools/cli.py)."""

from governance.tools.cli import run

run()
