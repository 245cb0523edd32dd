"""on_budget_alert for a spend cap's alerts-only budget: read the cap's state and report it.

A spend cap may not publish to Pub/Sub, so mlgov pairs each cap with an alerts-only budget on the
same project and service, counting the same way (gross, monthly), that publishes to the budget
topic. Its notifications reach on_budget_alert; for them the function reads the cap
(`budgets.get`) and reports the service, the project, the spend ratio, `spendCap.outputState`
and `reconciling`. Read-only on purpose: lifting a cap is an operator's decision (`mlgov cap
lift`), and a single service's spend never stops the project's workloads (the project budget
does that, in flows/budget.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from govern import clock
from govern.execute import Runner
from govern.models import BudgetAlert, SpendCapPolicy, SpendCapState
from govern.ports import PortError, Ports

ENFORCED = "ENFORCED"
LIFTED = "AWAITING_NEXT_PERIOD"


@dataclass(frozen=True)
class SpendCapNotice:
    """What one alert of a cap's pair says, with the cap's state as read (None: unreadable)."""

    alert: BudgetAlert
    cap: SpendCapPolicy
    state: SpendCapState | None
    error: str = ""

    @property
    def severity(self) -> str:
        """WARNING when the service is blocked or the cap could not be read, else INFO."""
        if self.error or (self.state is not None and self.state.output_state == ENFORCED):
            return "WARNING"
        return "INFO"

    def message(self) -> str:
        """One sentence an operator can act on."""
        cap = self.cap
        where = f"spend cap on {cap.service_key} in {cap.project}"
        ratio = self.alert.spend_ratio
        spent = f"gross spend {self.alert.cost_amount:,.2f} of {self.alert.budget_amount:,.2f}" + (
            f" ({ratio:.0%})" if ratio is not None else ""
        )
        if self.state is None:
            return f"{where}: state unreadable ({self.error}); {spent}"
        state = self.state.output_state
        busy = "; Google is changing its state (reconciling)" if self.state.reconciling else ""
        if state == ENFORCED:
            return (
                f"{where} is ENFORCED: new usage of {cap.service_key} is blocked ({spent}){busy}. "
                f"An operator can lift it (`mlgov cap lift --service {cap.service_key}`); "
                "otherwise Google re-arms it next month"
            )
        if state == LIFTED:
            return f"{where} was lifted; it re-arms at the start of next month ({spent}){busy}"
        return f"{where} is {state}: {spent}; Google blocks new usage at 100%{busy}"

    def as_dict(self) -> dict[str, Any]:
        """The log line's fields."""
        state = self.state
        return {
            "budget_id": self.alert.budget_id,
            "spend_cap": {
                "name": self.cap.cap,
                "service": self.cap.service_key,
                "project": self.cap.project,
                "amount": self.cap.amount,
                "output_state": state.output_state if state else None,
                "input_state": state.input_state if state else None,
                "reconciling": state.reconciling if state else None,
                "spend_ratio": self.alert.spend_ratio,
                "error": self.error or None,
            },
            "actions": [],  # read-only: a cap is never lifted or acted on by automation
        }


def spend_cap_alert(
    alert: BudgetAlert, cap: SpendCapPolicy, ports: Ports, runner: Runner
) -> SpendCapNotice:
    """Read the cap behind an alerts-only budget's notification; never act on it."""
    try:
        state = runner.call(cap.project, ports.budgets.get_spend_cap, cap.cap)
    except (PortError, clock.OutOfTime) as err:
        return SpendCapNotice(alert, cap, None, str(err) or type(err).__name__)
    return SpendCapNotice(alert, cap, state)
