"""The MLGOV_POLICY wire format: what governance renders, the functions must parse.

governance/components/action_settings.py renders the JSON; functions/govern/models.py parses it. Neither
imports the other, so this test is the only thing holding them together (docs/architecture.md#mlgov-policy).

Organization scale adds `blast_radius` (always rendered), `scopes`, `budgets.<id>.scopes` and
`fan_out`: a key the two sides spell differently fails these tests.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from govern.models import ActionPolicy, PolicyError
from governance.components.action_settings import ActionSettings, action_settings
from governance.settings import Settings, settings_from_config
from governance.settings.scopes import REAPERS
from tests.conftest import STACKS, stack_config

BUDGET_ID = "de72f49d-779b-4945-a127-4d6ce8def0bb"  # the documented example budgetId


def stack_settings(stack: str, **overrides: Any) -> Settings:
    config = stack_config(stack)
    raw = dict(config["mlgov:settings"])
    for key, value in overrides.items():
        raw[key] = {**raw.get(key, {}), **value}
    return settings_from_config({**config, "mlgov:settings": raw})


def added(parsed: object, name: str) -> Any:
    """An attribute the functions' side adds for issue 29 (scopes, fan_out, blast_radius)."""
    return getattr(parsed, name)


def parse(rendered: ActionSettings) -> ActionPolicy:
    return ActionPolicy.from_json(rendered.model_dump_json())


@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_policy_parses_with_the_same_meaning(stack):
    s = stack_settings(stack)
    policy = parse(action_settings(s, BUDGET_ID, time_budget_seconds=480))

    assert policy.dry_run is s.automation.dry_run
    assert policy.exempt_label == ("mlgov-exempt", "true")
    [(project_id, project)] = policy.projects.items()
    assert project_id == s.project
    assert project.environment == s.environment
    assert project.zones == s.zones
    assert project.allow_billing_disable is (stack == "dev")
    budget = policy.budgets[BUDGET_ID]
    assert budget.projects == (s.project,)
    assert budget.stop_at == s.budget.stop_at
    assert budget.disable_billing_at == (1.5 if stack == "dev" else None)
    # What the budget is, so a notification can be checked against it (docs/architecture.md#mlgov-policy).
    assert budget.billing_account == s.billing_account
    assert budget.amount == s.budget.amount_usd
    assert budget.currency == "USD"
    assert budget.period == "MONTH"
    assert budget.absent() == ()
    assert policy.idle_gpu.max_utilization_percent == s.automation.idle_gpu_max_utilization_percent
    assert policy.idle_gpu.window_minutes == s.automation.idle_gpu_window_minutes
    assert policy.idle_gpu.workloads == s.automation.idle_gpu_workloads
    assert policy.idle_tpu.max_duty_cycle_percent == (s.automation.idle_tpu_max_duty_cycle_percent)
    assert policy.idle_tpu.window_minutes == s.automation.idle_tpu_window_minutes
    assert policy.idle_tpu.workloads == s.automation.idle_gpu_workloads
    assert policy.undeploy_endpoints is s.automation.undeploy_endpoints_at_cap is False
    assert policy.time_budget_seconds == 480


def test_the_required_keys_alone_parse():
    rendered = json.loads(action_settings(stack_settings("staging"), BUDGET_ID).model_dump_json())
    required = {k: rendered[k] for k in ("dry_run", "exempt_label", "projects", "budgets")}
    assert ActionPolicy.from_json(json.dumps(required)).budgets[BUDGET_ID].stop_at == 1.0


def test_endpoint_undeploy_opt_in_reaches_the_functions():
    s = stack_settings("staging", automation={"undeploy_endpoints_at_cap": True})
    assert parse(action_settings(s, BUDGET_ID)).undeploy_endpoints is True


def test_budget_without_thresholds_is_left_out_and_still_parses():
    s = stack_settings("staging", budget={"stop_at": None})
    policy = parse(action_settings(s, BUDGET_ID))
    assert dict(policy.budgets) == {}


def test_unlink_only_budget_stops_at_the_unlink_threshold():
    s = stack_settings("dev", budget={"stop_at": None, "disable_billing_at": 1.3})
    budget = parse(action_settings(s, BUDGET_ID)).budgets[BUDGET_ID]
    assert (budget.stop_at, budget.disable_billing_at) == (1.3, 1.3)


def test_billing_unlink_is_rendered_only_with_the_opt_in_and_never_for_prod():
    # Settings already refuse these combinations; the renderer holds the line on its own too.
    dev = stack_settings("dev")
    no_opt_in = dev.model_copy(
        update={"automation": dev.automation.model_copy(update={"allow_billing_disable": False})}
    )
    policy = parse(action_settings(no_opt_in, BUDGET_ID))
    assert policy.budgets[BUDGET_ID].disable_billing_at is None
    assert policy.projects[dev.project].allow_billing_disable is False

    prod = dev.model_copy(update={"environment": "prod"})
    policy = parse(action_settings(prod, BUDGET_ID))
    assert policy.budgets[BUDGET_ID].disable_billing_at is None
    assert policy.projects[dev.project].allow_billing_disable is False


def test_the_functions_reject_what_governance_must_never_render():
    good = json.loads(action_settings(stack_settings("dev"), BUDGET_ID).model_dump_json())
    bad = {**good, "idle_gpu": {**good["idle_gpu"], "max_utilization_percent": 0}}
    with pytest.raises(PolicyError, match="max_utilization_percent"):
        ActionPolicy.from_json(json.dumps(bad))
    # ...which is why settings require it to be > 0
    with pytest.raises(Exception, match="idle_gpu_max_utilization_percent"):
        stack_settings("dev", automation={"idle_gpu_max_utilization_percent": 0})


@settings(max_examples=60, deadline=None)
@given(
    dry_run=st.booleans(),
    utilization=st.floats(min_value=0.01, max_value=100, allow_nan=False),
    window=st.integers(min_value=10, max_value=1440),
    stop_at=st.one_of(st.none(), st.floats(min_value=0.05, max_value=5)),
    zones=st.lists(
        st.sampled_from(["us-central1-a", "us-central1-b", "us-central1-c"]),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    budget_id=st.text(alphabet="abcdef0123456789-", min_size=1, max_size=40),
)
def test_any_valid_settings_render_a_policy_the_functions_accept(
    dry_run, utilization, window, stop_at, zones, budget_id
):
    config = stack_config("staging")
    raw = dict(config["mlgov:settings"])
    raw["zones"] = zones
    raw["automation"] = {
        "dry_run": dry_run,
        "idle_gpu_max_utilization_percent": utilization,
        "idle_gpu_window_minutes": window,
    }
    raw["budget"] = {**raw["budget"], "stop_at": stop_at}
    raw["notebooks"] = {}
    raw["training_pools"] = {}
    raw["gpu_vms"] = {}
    s = settings_from_config({**config, "mlgov:settings": raw})

    policy = parse(action_settings(s, budget_id))

    assert policy.dry_run is dry_run
    assert policy.projects[s.project].zones == tuple(zones)
    assert policy.idle_gpu.window_minutes == window
    assert (budget_id in policy.budgets) is (stop_at is not None)


def test_spend_caps_render_and_parse_with_the_same_meaning():
    from governance.components.action_settings import spend_cap_policies

    config = stack_config("prod")
    raw = {**config["mlgov:settings"], "spend_caps": {"vertex_ai": 2000, "gemini_api": 300.5}}
    s = settings_from_config({**config, "mlgov:settings": raw})
    ids = {"vertex_ai": "pair-vertex", "gemini_api": "pair-gemini"}
    names = {k: f"billingAccounts/{s.billing_account}/budgets/cap-{k}" for k in ids}
    rendered = action_settings(s, BUDGET_ID, spend_caps=spend_cap_policies(s, ids, names))
    policy = parse(rendered)
    assert set(policy.spend_caps) == {"pair-vertex", "pair-gemini"}
    gemini = policy.spend_caps["pair-gemini"]
    assert (gemini.project, gemini.service_key, gemini.amount) == (s.project, "gemini_api", 300.5)
    assert gemini.service == "services/AEFD-7695-64FA"
    assert gemini.cap == names["gemini_api"]
    assert BUDGET_ID in policy.budgets  # the project budget still stops workloads


def test_a_stack_without_caps_renders_no_spend_caps_key():
    rendered = json.loads(action_settings(stack_settings("dev"), BUDGET_ID).model_dump_json())
    assert "spend_caps" not in rendered


def test_a_notification_of_the_rendered_budget_acts_and_a_foreign_one_does_not():
    from datetime import UTC, datetime

    from govern import notifications
    from govern.models import BudgetAlert

    s = stack_settings("staging")
    budget = parse(action_settings(s, BUDGET_ID)).budgets[BUDGET_ID]
    ours = BudgetAlert(
        BUDGET_ID,
        cost_amount=float(s.budget.amount_usd),
        budget_amount=float(s.budget.amount_usd),
        billing_account_id=s.billing_account,
        currency="USD",
        cost_interval_start="2026-11-01T07:00:00Z",
    )
    now = datetime(2026, 11, 21, tzinfo=UTC)
    assert notifications.judge(ours, budget, now).acts
    foreign = BudgetAlert(**{**ours.__dict__, "billing_account_id": "012345-6789AB-CDEF01"})
    assert notifications.judge(foreign, budget, now).verdict == "mismatch"


# ------------------------------------------------------------------ organization scale (issue 29)
FOLDER = "folders/123456"
ORG = "organizations/456789"


def scoped_settings(stack: str = "staging", **scope: Any) -> Settings:
    config = stack_config(stack)
    raw = dict(config["mlgov:settings"])
    raw["automation"] = {
        **raw.get("automation", {}),
        "fan_out": True,
        "max_delivery_attempts": 7,
        "organization": ORG,
        "scopes": {
            FOLDER: {"labels": {"mlgov-governed": "true", "team": "vision"}, **scope},
            ORG: {"environment": "dev", "vertex_regions": ["europe-west4"]},
        },
    }
    raw["budget"] = {**raw["budget"], "scopes": [FOLDER, ORG]}
    return settings_from_config({**config, "mlgov:settings": raw})


def test_scopes_and_fan_out_parse_with_the_same_meaning():
    s = scoped_settings()
    policy = parse(action_settings(s, BUDGET_ID, worker_instances=105))
    scopes = added(policy, "scopes")
    assert set(scopes) == {FOLDER, ORG}
    folder, org = scopes[FOLDER], scopes[ORG]
    assert folder.environment == "staging"  # the stack's own
    assert dict(folder.labels) == {"mlgov-governed": "true", "team": "vision"}
    assert folder.allow_billing_disable is False
    assert tuple(folder.vertex_regions) == ()  # not given: the functions' default applies
    assert org.environment == "dev"
    assert dict(org.labels) == {}
    assert tuple(org.vertex_regions) == ("europe-west4",)
    budget = policy.budgets[BUDGET_ID]
    assert budget.projects == ()  # a budget of scopes: the stack's project only if inside one
    assert tuple(added(budget, "scopes")) == (FOLDER, ORG)
    fan_out = added(policy, "fan_out")
    assert (fan_out.max_delivery_attempts, fan_out.worker_instances) == (7, 105)
    assert s.project in policy.projects  # the reapers still govern the stack's own project


def test_a_scope_that_allows_unlink_reaches_the_functions_and_its_budget_unlinks():
    s = scoped_settings("dev", allow_billing_disable=True)
    policy = parse(action_settings(s, BUDGET_ID))
    assert added(policy, "scopes")[FOLDER].allow_billing_disable is True
    assert added(policy, "scopes")[ORG].allow_billing_disable is False
    assert policy.budgets[BUDGET_ID].disable_billing_at == 1.5


def test_blast_radius_is_always_rendered_and_parses_with_the_same_meaning():
    default = added(parse(action_settings(stack_settings("staging"), BUDGET_ID)), "blast_radius")
    # Rendered even when the stack sets nothing: the three reapers act, a later kind simulates.
    assert tuple(default.acting_reapers) == REAPERS
    assert (default.max_stops_per_run, default.max_stop_percent) == (100, None)
    assert default.max_error_rate == 0.05
    assert tuple(default.canary) == ()
    project = stack_config("staging")["gcp:project"]
    s = stack_settings(
        "staging",
        automation={
            "blast_radius": {
                "max_stops_per_run": 25,
                "max_stop_percent": 10,
                "max_error_rate": 0.1,
                "canary": [f"projects/{project}"],
                "acting_reapers": ["reap_expired"],
            }
        },
    )
    limits = added(parse(action_settings(s, BUDGET_ID)), "blast_radius")
    assert (limits.max_stops_per_run, limits.max_stop_percent) == (25, 10)
    assert limits.max_error_rate == 0.1
    assert tuple(limits.canary) == (f"projects/{project}",)
    assert tuple(limits.acting_reapers) == ("reap_expired",)


@settings(max_examples=40, deadline=None)
@given(
    stops=st.integers(min_value=1, max_value=100_000),
    percent=st.one_of(st.none(), st.floats(min_value=0.01, max_value=100, allow_nan=False)),
    rate=st.floats(min_value=0, max_value=0.5, allow_nan=False),
    reapers=st.lists(st.sampled_from(REAPERS), unique=True),
)
def test_any_valid_blast_radius_renders_a_policy_the_functions_accept(
    stops, percent, rate, reapers
):
    s = stack_settings(
        "staging",
        automation={
            "blast_radius": {
                "max_stops_per_run": stops,
                "max_stop_percent": percent,
                "max_error_rate": rate,
                "acting_reapers": reapers,
            }
        },
    )
    limits = added(parse(action_settings(s, BUDGET_ID)), "blast_radius")
    assert limits.max_stops_per_run == stops
    assert tuple(limits.acting_reapers) == tuple(reapers)


def test_a_stack_without_scopes_or_fan_out_renders_neither_key():
    rendered = json.loads(action_settings(stack_settings("staging"), BUDGET_ID).model_dump_json())
    assert "scopes" not in rendered
    assert "fan_out" not in rendered
    assert "scopes" not in rendered["budgets"][BUDGET_ID]
    assert "blast_radius" in rendered
