"""A short wait budget for tests of commands whose API does not answer.

The real budget (governance/deadlines.py) gives a command's first call seconds before it gives
up, per API. What those tests prove is that a command gives up through that budget, not after
the client libraries' default of minutes of retries; a budget of a fraction of a second proves
the same. Commands read the budget when a wait starts (`deadlines.budget()`), so a test that
replaces `deadlines.BUDGET` shortens every command's wait through the path the command takes.
"""

from __future__ import annotations

import pytest

from governance import deadlines
from governance.deadlines import Budget

SHORT = Budget(reach_s=0.5, attempt_s=0.5, quiet_s=0.05, refused_backoff_s=0.01)
"""Each first call gives up within about a second; a wait prints its progress line at once."""


def use_short_budget(monkeypatch: pytest.MonkeyPatch) -> Budget:
    """Every command waits `SHORT` until the test ends."""
    monkeypatch.setattr(deadlines, "BUDGET", SHORT)
    return SHORT
