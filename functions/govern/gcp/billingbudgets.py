# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Cloud Billing budgets (Budget API v1 REST): read a spend cap's state, nothing else.

`billingAccounts.budgets.get` as the billingbudgets.v1 discovery document defines it. The
budget function only reports a cap's state when its alerts-only pair sends a notification; it
never lifts or changes a cap (that is an operator's `mlgov cap lift`). A thin adapter: it
translates the call and its errors.
"""

from __future__ import annotations

from govern import parse
from govern.gcp.clients import translated
from govern.gcp.rest import Rest, session
from govern.models import SpendCapState
from govern.parse.spend_cap import spend_cap_state

GOOGLE = "https://billingbudgets.googleapis.com"


class BudgetsAdapter:
    """ports.Budgets over the Budget API v1 REST API."""

    def __init__(self, rest: Rest, base_url: str) -> None:
        self._rest = rest
        self._base = base_url.rstrip("/")

    def get_spend_cap(self, name: str) -> SpendCapState:
        """`budgets.get`; PortError (Gone for 404) when it cannot be read or is no cap."""
        from govern import ports

        what = f"billingbudgets budgets.get {name}"
        with translated(what):
            raw = self._rest.request("GET", f"{self._base}/v1/{name}")
        try:
            return spend_cap_state(raw)
        except parse.ParseError as err:
            raise ports.PortError(f"{what}: {err}") from err


def create(endpoint: str | None) -> BudgetsAdapter:
    """The adapter at Google's endpoint (default credentials) or at `endpoint` (anonymous)."""
    return BudgetsAdapter(Rest(session(endpoint)), endpoint or GOOGLE)
