"""`mlgov` builds its parser without importing what only some commands use (cli/main.py).

Every command, `mlgov --help` and a first-line error among them, builds the whole parser first:
what that imports, each command pays. The check runs in a fresh interpreter, whose imports are
its own (this process has imported everything by now).
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

# The plan renderer, the cost model, the settings models and Pulumi: each only for the commands
# that run them.
HEAVY = ("governance.review.comment", "governance.costs", "pydantic", "pulumi")


def test_building_the_parser_imports_no_renderer_no_cost_model_no_pulumi() -> None:
    code = (
        "import sys; from governance.cli.main import build_parser; build_parser(); "
        f"print(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') "
        f"for h in {HEAVY!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "[]"
