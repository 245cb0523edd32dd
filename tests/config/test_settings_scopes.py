"""Scopes, fan-out and blast-radius settings: each rejection is one exact line with the fix."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from governance.settings import SettingsError, settings_from_config
from governance.settings.scopes import REAPERS, organization_of, scope_unlinks
from tests.conftest import stack_config

P = "mlgov:settings"
FOLDER = "folders/123456"
ORG = "organizations/456789"
Mutation = Callable[[dict[str, Any]], None]


def _scoped(stack: str = "staging") -> dict[str, Any]:
    """A stack config with one folder scope its budget names (valid)."""
    config = copy.deepcopy(stack_config(stack))
    raw = config["mlgov:settings"]
    raw["automation"] = {
        **raw.get("automation", {}),
        "fan_out": True,
        "organization": ORG,
        "scopes": {FOLDER: {"labels": {"mlgov-governed": "true"}}},
    }
    raw["budget"] = {**raw["budget"], "scopes": [FOLDER]}
    return config


def _problems(mutate: Mutation, stack: str = "staging") -> list[str]:
    config = _scoped(stack)
    mutate(config["mlgov:settings"])
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def test_a_scoped_stack_parses_with_its_defaults():
    s = settings_from_config(_scoped())
    scope = s.automation.scopes[FOLDER]
    assert scope.environment is None  # the stack's own
    assert scope.labels == {"mlgov-governed": "true"}
    assert scope.allow_billing_disable is False
    assert s.budget.scopes == (FOLDER,)
    assert s.automation.blast_radius.acting_reapers == REAPERS
    assert s.automation.blast_radius.max_stops_per_run == 100
    assert s.automation.blast_radius.max_error_rate == 0.05
    assert s.automation.max_delivery_attempts == 20
    assert organization_of(s) == ORG


def test_an_organization_scope_is_its_own_organization():
    config = _scoped()
    auto = config["mlgov:settings"]["automation"]
    del auto["organization"]
    auto["scopes"] = {ORG: {}}
    config["mlgov:settings"]["budget"]["scopes"] = [ORG]
    assert organization_of(settings_from_config(config)) == ORG


def _auto(**changes: Any) -> Mutation:
    return lambda raw: raw["automation"].update(changes)


def _scope(**changes: Any) -> Mutation:
    return lambda raw: raw["automation"]["scopes"][FOLDER].update(changes)


def _blast(**changes: Any) -> Mutation:
    return lambda raw: raw["automation"].update(blast_radius=changes)


def _both(first: Mutation, second: Mutation) -> Mutation:
    def both(raw: dict[str, Any]) -> None:
        first(raw)
        second(raw)

    return both


FAN_OUT_LINE = (
    f"{P}.automation.fan_out: automation.scopes needs fan-out: one invocation stops at 540 s, "
    "about 2,000 projects at 50 ms a call and under 1,000 at 300 ms "
    "(bench/functions_cap.py), and a scope can hold thousands of projects; set "
    "automation.fan_out: true so each project is a work item of its own"
)
Q = '"folders/123456"'  # the key as errors quote it (it holds a slash)

CASES: list[tuple[str, Mutation, list[str], str]] = [
    ("scopes need fan-out", _auto(fan_out=False), [FAN_OUT_LINE], "staging"),
    (
        "a folder scope needs the organization",
        _auto(organization=None),
        [
            f"{P}.automation.scopes.{Q}: a folder scope needs automation.organization "
            "(organizations/<digits>): the functions' custom roles are created in the "
            "organization and bound on the folder"
        ],
        "staging",
    ),
    (
        "a scope that is neither a folder nor an organization",
        lambda raw: raw["automation"]["scopes"].update({"projects/acme": {}}),
        [
            f"{P}.automation.scopes.\"projects/acme\": 'projects/acme' is not a folder or an "
            "organization: folders/<digits> or organizations/<digits> "
            "(e.g. folders/123456789012)"
        ],
        "staging",
    ),
    (
        "an organization scope of another organization",
        lambda raw: raw["automation"]["scopes"].update({"organizations/999": {}}),
        [
            f'{P}.automation.scopes."organizations/999": is not automation.organization '
            f"'{ORG}': custom roles of one organization cannot be granted in another; govern it "
            "from a stack of its own"
        ],
        "staging",
    ),
    (
        "billing unlink on a scope of a prod stack",
        _scope(allow_billing_disable=True),
        [
            f"{P}.automation.scopes.{Q}.allow_billing_disable: unlinking billing stops every "
            "service in every project of the scope; it is never allowed for prod: remove it"
        ],
        "prod",
    ),
    (
        "billing unlink on a prod scope of a dev stack",
        lambda raw: _both(
            _scope(allow_billing_disable=True, environment="prod"),
            lambda r: r["budget"].update(disable_billing_at=None),
        )(raw),
        [
            f"{P}.automation.scopes.{Q}.allow_billing_disable: unlinking billing stops every "
            "service in every project of the scope; it is never allowed for prod: remove it"
        ],
        "dev",
    ),
    (
        "a label selector no project could match",
        _scope(labels={"Team": "x"}),
        [
            f"{P}.automation.scopes.{Q}.labels.Team: label key 'Team' must start with a "
            "lowercase letter and contain only lowercase letters, digits, '_' or '-' (at most 63 "
            "characters; international letters count as letters): no project could ever match"
        ],
        "staging",
    ),
    (
        "a typo in a scope key",
        _scope(label={"a": "b"}),
        [f"{P}.automation.scopes.{Q}.label: unknown key; did you mean 'labels'?"],
        "staging",
    ),
    (
        "a budget scope not declared",
        lambda raw: raw["budget"].update(scopes=["folders/777"]),
        [
            f"{P}.budget.scopes.0: 'folders/777' is not declared in automation.scopes; declare "
            "it there (its environment, label selector and billing unlink)"
        ],
        "staging",
    ),
    (
        "a budget that unlinks billing where no scope allows it",
        lambda raw: raw["budget"].update(disable_billing_at=1.5),
        [
            f"{P}.budget.disable_billing_at: unlinking billing stops every service in each "
            "project and may delete resources; no scope of budget.scopes allows it: set "
            "allow_billing_disable: true on the scope (automation.scopes) to confirm"
        ],
        "staging",
    ),
    (
        "a reaper that does not exist",
        _blast(acting_reapers=["reap_idle_vms", "reap_everything"]),
        [
            f"{P}.automation.blast_radius.acting_reapers.1: Input should be 'reap_idle_vms', "
            "'reap_expired' or 'reap_idle_gpus'"
        ],
        "staging",
    ),
    (
        "an error rate above one half",
        _blast(max_error_rate=0.9),
        [f"{P}.automation.blast_radius.max_error_rate: Input should be less than or equal to 0.5"],
        "staging",
    ),
    (
        "a ceiling of zero stops",
        _blast(max_stops_per_run=0),
        [
            f"{P}.automation.blast_radius.max_stops_per_run: Input should be greater than or "
            "equal to 1"
        ],
        "staging",
    ),
    (
        "a canary that is not a project or folder",
        _blast(canary=["acme-canary"]),
        [
            f"{P}.automation.blast_radius.canary.0: 'acme-canary' is not a canary: "
            "projects/<project id> or folders/<digits> (e.g. projects/acme-canary)"
        ],
        "staging",
    ),
    (
        "too few delivery attempts",
        _auto(max_delivery_attempts=3),
        [f"{P}.automation.max_delivery_attempts: Input should be greater than or equal to 5"],
        "staging",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "expected", "stack"),
    [pytest.param(m, e, s, id=name) for name, m, e, s in CASES],
)
def test_each_problem_is_one_line_naming_the_key(
    mutate: Mutation, expected: list[str], stack: str
) -> None:
    assert _problems(mutate, stack) == expected


def _unscoped(stack: str = "staging") -> dict[str, Any]:
    return copy.deepcopy(stack_config(stack))


def test_a_canary_outside_what_an_unscoped_stack_governs_is_refused():
    config = _unscoped()
    config["mlgov:settings"]["automation"] = {
        "blast_radius": {"canary": ["projects/acme-other", "folders/5"]}
    }
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    project = config["gcp:project"]
    assert err.value.problems == [
        f"{P}.automation.blast_radius.canary.0: 'projects/acme-other' is not governed by this "
        f"stack: a canary must be the stack's project (projects/{project}) or inside one of "
        "automation.scopes",
        f"{P}.automation.blast_radius.canary.1: 'folders/5': a folder canary must be inside one "
        "of automation.scopes, and this stack declares none",
    ]


def test_the_stack_project_is_a_valid_canary_without_scopes():
    config = _unscoped()
    project = config["gcp:project"]
    config["mlgov:settings"]["automation"] = {"blast_radius": {"canary": [f"projects/{project}"]}}
    s = settings_from_config(config)
    assert s.automation.blast_radius.canary == (f"projects/{project}",)


def test_a_dev_scope_may_allow_unlink_and_its_budget_may_then_unlink():
    config = _scoped("dev")
    config["mlgov:settings"]["automation"]["scopes"][FOLDER]["allow_billing_disable"] = True
    config["mlgov:settings"]["budget"]["disable_billing_at"] = 1.5
    s = settings_from_config(config)
    assert scope_unlinks(s, FOLDER) is True


def test_a_prod_stack_never_unlinks_even_if_a_scope_says_dev():
    # The settings refuse it; the derived view holds the line on its own too.
    s = settings_from_config(_scoped("prod"))
    scope = s.automation.scopes[FOLDER].model_copy(
        update={"allow_billing_disable": True, "environment": "dev"}
    )
    forced = s.model_copy(
        update={"automation": s.automation.model_copy(update={"scopes": {FOLDER: scope}})}
    )
    assert scope_unlinks(forced, FOLDER) is False


def test_the_shipped_prod_stack_governs_a_folder_with_fan_out():
    s = settings_from_config(stack_config("prod"))
    assert s.automation.fan_out is True
    assert [k for k in s.automation.scopes if k.startswith("folders/")]
    assert organization_of(s) is not None


def test_scale_settings_that_do_nothing_are_warned_about():
    from governance.settings import settings_warnings

    config = _unscoped()
    config["mlgov:settings"]["automation"] = {
        "enabled": False,
        "fan_out": True,
        "blast_radius": {"max_stops_per_run": 10},
    }
    warned = {w.key: w.message for w in settings_warnings(settings_from_config(config))}
    assert set(warned) >= {f"{P}.automation.fan_out", f"{P}.automation.blast_radius"}
    assert warned[f"{P}.automation.fan_out"].startswith("does nothing: automation.enabled is false")

    config["mlgov:settings"]["automation"] = {
        "max_delivery_attempts": 10,
        "organization": ORG,
    }
    warned = {w.key: w.message for w in settings_warnings(settings_from_config(config))}
    assert warned[f"{P}.automation.max_delivery_attempts"].startswith(
        "does nothing without automation.fan_out"
    )
    assert warned[f"{P}.automation.organization"].startswith(
        "does nothing without automation.scopes"
    )
    assert not [k for k in warned if "automation" in k and k.endswith(("fan_out", "scopes"))]
    # The shipped scoped stack is warned about none of these.
    shipped = settings_warnings(settings_from_config(stack_config("prod")))
    assert not [w for w in shipped if ".automation." in w.key]
