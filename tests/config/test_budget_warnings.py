"""Budget warnings: a stop level that is not one of the budget's thresholds still fires (the cap
acts on costAmount / budgetAmount, and notifications arrive several times a day), but no budget
alert marks it; settings say so, and the shipped stacks carry their stop levels as thresholds."""

from __future__ import annotations

import copy

import pytest

from governance.settings import settings_from_config, settings_warnings
from governance.settings.budget import BudgetSettings, threshold_warnings
from tests.conftest import STACKS, stack_config


@pytest.mark.parametrize("stack", STACKS)
def test_the_shipped_stacks_have_no_budget_warnings(stack: str) -> None:
    assert threshold_warnings(settings_from_config(stack_config(stack)).budget) == []


def test_a_stop_level_above_every_threshold_is_warned_about() -> None:
    # The shipped prod before this change: thresholds up to 1.0, stop_at 1.1.
    budget = BudgetSettings(amount_usd=40000, thresholds=(0.5, 0.75, 0.9, 1.0), stop_at=1.1)
    assert threshold_warnings(budget) == [
        (
            "budget.stop_at",
            "1.1 is not among budget.thresholds [0.5, 0.75, 0.9, 1.0]: the cap still stops "
            "workloads at 110% of the budget, but no budget alert (console, email) marks that "
            "moment; add 1.1 to budget.thresholds",
        )
    ]


def test_each_level_is_checked() -> None:
    budget = BudgetSettings(
        amount_usd=2000, thresholds=(0.5, 0.9), stop_at=1.0, disable_billing_at=1.5
    )
    assert [key for key, _ in threshold_warnings(budget)] == [
        "budget.stop_at",
        "budget.disable_billing_at",
    ]
    assert "unlinks billing at 150%" in threshold_warnings(budget)[1][1]


def test_no_warning_without_levels_or_when_they_are_thresholds() -> None:
    assert threshold_warnings(BudgetSettings(amount_usd=1, stop_at=None)) == []
    assert threshold_warnings(BudgetSettings(amount_usd=1, thresholds=(0.5, 1.0))) == []


def test_the_warning_reaches_the_plan_and_the_user():
    config = copy.deepcopy(stack_config("prod"))
    config["mlgov:settings"]["budget"]["thresholds"] = [0.5, 0.9, 1.0]  # stop_at 1.1 not among them
    [warning] = settings_warnings(settings_from_config(config))
    assert warning.key == "mlgov:settings.budget.stop_at"
    assert warning.message.startswith("1.1 is not among budget.thresholds [0.5, 0.9, 1.0]")
