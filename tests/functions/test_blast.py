"""govern/blast.py: the reapers' blast-radius decisions (pure), and their policy keys."""

from __future__ import annotations

import json

import pytest

from govern import blast
from govern.models import ActionPolicy, BlastRadius, Kind, PolicyError, Workload
from govern.parse import action_policy
from tests.functions.conftest import DEV, PROD, policy_dict


def _policy(**blast_radius) -> ActionPolicy:
    return action_policy(json.dumps(policy_dict(blast_radius=blast_radius)))


# -- MLGOV_POLICY.blast_radius ------------------------------------------------------------------


def test_absent_blast_radius_gets_the_contract_defaults():
    policy = action_policy(json.dumps(policy_dict()))
    assert policy.blast_radius == BlastRadius(100, None, 0.05, (), None)
    # Absent acting_reapers: every reaper follows dry_run, as before the key existed.
    assert not blast.simulates("reap_expired", policy)


def test_every_key_is_read():
    policy = _policy(
        max_stops_per_run=7,
        max_stop_percent=12.5,
        max_error_rate=0.1,
        canary=["projects/acme-canary", "folders/42"],
        acting_reapers=["reap_expired"],
    )
    assert policy.blast_radius == BlastRadius(
        7, 12.5, 0.1, ("projects/acme-canary", "folders/42"), ("reap_expired",)
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"max_stops": 5}, "MLGOV_POLICY.blast_radius: unknown key(s) max_stops"),
        ({"max_stops_per_run": 0}, "MLGOV_POLICY.blast_radius.max_stops_per_run: must be a"),
        ({"max_stops_per_run": 2.5}, "max_stops_per_run: must be a whole number"),
        ({"max_stop_percent": 0}, "MLGOV_POLICY.blast_radius.max_stop_percent: must be a number"),
        ({"max_stop_percent": 120}, "max_stop_percent: must be at most 100, got 120"),
        ({"max_error_rate": 1.5}, "max_error_rate: must be a number from 0 to 1, got 1.5"),
        ({"max_error_rate": True}, "max_error_rate: must be a number from 0 to 1"),
        ({"canary": "projects/acme-canary"}, "blast_radius.canary: must be a list, got str"),
        ({"canary": ["acme-canary"]}, "canary[0]: must be projects/<project id> or folders/"),
        ({"canary": ["organizations/1"]}, "canary[0]: must be projects/<project id> or"),
        ({"acting_reapers": ["reap_idle_tpus"]}, "acting_reapers[0]: 'reap_idle_tpus' is not"),
        ({"acting_reapers": ["on_budget_alert"]}, "acting_reapers[0]: 'on_budget_alert' is not"),
        ({"acting_reapers": None}, "acting_reapers: must be a list, got NoneType"),
    ],
)
def test_bad_values_are_refused_naming_the_key(value, message):
    with pytest.raises(PolicyError) as err:
        action_policy(json.dumps(policy_dict(blast_radius=value)))
    assert message in str(err.value)


def test_blast_radius_must_be_an_object():
    with pytest.raises(PolicyError, match=r"MLGOV_POLICY\.blast_radius: must be an object"):
        action_policy(json.dumps(policy_dict(blast_radius=[])))


# -- acting_reapers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dry_run", "acting", "entry_point", "simulates"),
    [
        (False, None, "reap_idle_gpus", False),
        (False, ["reap_expired"], "reap_idle_gpus", True),
        (False, ["reap_expired"], "reap_expired", False),
        (False, [], "reap_expired", True),
        (True, ["reap_expired"], "reap_expired", True),  # listing never overrides dry_run
    ],
)
def test_a_reaper_not_listed_simulates(dry_run, acting, entry_point, simulates):
    raw = policy_dict(dry_run=dry_run)
    if acting is not None:
        raw["blast_radius"] = {"acting_reapers": acting}
    policy = action_policy(json.dumps(raw))
    assert blast.simulates(entry_point, policy) is simulates
    assert bool(blast.dry_run_reason(entry_point, policy)) is simulates


# -- the ceiling ---------------------------------------------------------------------------------


def _vm(
    project: str, zone: str, name: str, state: str = "RUNNING", kind: Kind = "compute"
) -> Workload:
    return Workload(kind, project, zone, name, state)


def test_running_estate_counts_running_governed_workloads_once():
    policy = action_policy(json.dumps(policy_dict()))
    workloads = [
        _vm(DEV, "us-central1-a", "a"),
        _vm(DEV, "us-central1-a", "a", "ACTIVE", kind="notebook"),  # a Workbench VM and its
        _vm(DEV, "us-central1-a", "b", "TERMINATED"),  # instance count once; stopped: not
        _vm(DEV, "europe-west4-a", "c"),  # not a governed zone
        _vm(PROD, "us-central1-a", "d"),
        _vm("someone-else", "us-central1-a", "e"),  # not a governed project
    ]
    assert blast.running_estate(workloads, policy) == 2


@pytest.mark.parametrize(
    ("planned", "running", "limits", "held"),
    [
        (100, 1000, BlastRadius(), False),
        (101, 1000, BlastRadius(), True),
        (3, 20, BlastRadius(max_stop_percent=15), False),  # 15% of 20 = 3
        (4, 20, BlastRadius(max_stop_percent=15), True),
        (1, 15, BlastRadius(max_stop_percent=10), False),  # 1.5 rounds down to 1
        (2, 15, BlastRadius(max_stop_percent=10), True),
        (5, None, BlastRadius(max_stop_percent=10), False),  # estate unknown: count only
        (0, 0, BlastRadius(max_stop_percent=10), False),
    ],
)
def test_ceiling_holds_a_run_planning_more_than_it(planned, running, limits, held):
    verdict = blast.ceiling_verdict(planned, running, limits)
    assert (verdict is not None) is held
    if verdict is not None:
        assert verdict.kind == "ceiling" and verdict.retry is False
        assert verdict.reason.startswith("held: blast-radius ceiling")
        assert f"{planned} stop(s) planned" in verdict.reason


def test_the_percentage_names_itself_when_it_binds():
    verdict = blast.ceiling_verdict(4, 20, BlastRadius(max_stop_percent=15))
    assert verdict is not None
    assert "max_stop_percent 15% of 20 running workload(s) = 3" in verdict.reason


def test_an_allowance_replaces_the_runs_ceiling_for_a_work_item():
    assert blast.ceiling_verdict(3, None, BlastRadius(max_stops_per_run=1), allowance=3) is None
    verdict = blast.ceiling_verdict(3, None, BlastRadius(), allowance=2)
    assert verdict is not None and "allowance of 2 stop(s)" in verdict.reason


def test_allowances_give_each_project_its_own_when_all_fit():
    split = blast.allowances({"a": 3, "b": 0, "c": 5}, BlastRadius(max_stops_per_run=10))
    assert split == {"a": 3, "b": 0, "c": 5}


def test_allowances_share_the_ceiling_and_never_add_up_to_more():
    split = blast.allowances({"a": 30, "b": 10, "c": 60}, BlastRadius(max_stops_per_run=10))
    assert split == {"a": 3, "b": 1, "c": 6}
    even = blast.allowances({f"p{i}": 1 for i in range(7)}, BlastRadius(max_stops_per_run=3))
    assert sum(even.values()) == 3 and set(even.values()) == {0, 1}
    assert [p for p, n in sorted(even.items()) if n] == ["p0", "p1", "p2"]  # ties: by id
    by_share = blast.allowances(
        {"a": 5, "b": 5}, BlastRadius(max_stop_percent=10), running=40
    )  # 10% of 40 = 4
    assert by_share == {"a": 2, "b": 2}


# -- the breaker ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "failures", "tripped"),
    [
        (19, 19, False),  # too few calls to judge
        (20, 1, False),  # 5% is not more than 5%
        (20, 2, True),
        (100, 5, False),
        (100, 6, True),
    ],
)
def test_breaker_trips_past_the_rate_after_enough_calls(calls, failures, tripped):
    assert blast.breaker_tripped(calls, failures, BlastRadius()) is tripped


def test_breaker_hold_is_retried_and_says_the_rate():
    hold = blast.breaker_hold(20, 2, BlastRadius())
    assert hold.kind == "breaker" and hold.retry is True
    assert hold.reason.startswith("held: error-rate breaker: 2 of 20 API calls failed (10% > ")


# -- the canary ----------------------------------------------------------------------------------


def test_canary_projects_and_folders():
    limits = BlastRadius(canary=("projects/acme-canary", "folders/42", "folders/7"))

    def resolve(folder: str) -> list[str]:
        if folder == "folders/7":
            raise LookupError(folder)
        return ["p1", "p2"]

    found = blast.canary_projects(limits, resolve)
    assert found.projects == {"acme-canary", "p1", "p2"}
    assert found.unresolved == ("folders/7",)
    without = blast.canary_projects(limits)
    assert without.projects == {"acme-canary"}
    assert without.unresolved == ("folders/42", "folders/7")


def test_canary_hold_names_what_failed():
    hold = blast.canary_hold([f"//x/projects/p/instances/vm-{i}" for i in range(7)])
    assert hold.reason.startswith("held: canary failed (//x/projects/p/instances/vm-0")
    assert "and 2 more" in hold.reason and hold.retry is True
    unresolved = blast.canary_hold((), ("folders/42",))
    assert "canary folders/42 could not be resolved" in unresolved.reason
