"""Issue 30's aspects of the governance diff, on the shipped prod plan (tests/golden) edited.

Schedules by their longest gap, timeouts and time budgets (and the working minimum), authorized
networks by the share of IPv4 they open, usage assumptions, lookalike labels, and a new stack
judged on its own. Each weakening case is checked the other way round too.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable

import pytest

from governance.review.govdiff import governance_changes
from governance.review.govdiff.cron import cadence, longest_gap_minutes, runs_per_year
from governance.review.govdiff.label_scripts import suspicious
from governance.review.govdiff.networks import share
from governance.review.govdiff.standalone import standalone_changes
from governance.review.govdiff.time_budgets import refusals
from tests.govdiff.test_compare import Doc, golden, inputs, policy_edit

DAY = 24 * 60


@pytest.mark.parametrize(
    ("expression", "gap"),
    [("0 * * * *", 60), ("*/30 * * * *", 30), ("30 6 * * *", DAY),
     ("* * 1 * *", 30 * DAY + 1), ("* * 1,15 * *", 16 * DAY + 1),
     ("0 0 1 1 *", 366 * DAY), ("0 9-17 * * 1-5", 3 * DAY - 8 * 60), ("0 0 29 2 *", 1461 * DAY)],
)  # fmt: skip
def test_the_longest_gap_between_runs(expression: str, gap: float) -> None:
    assert longest_gap_minutes(expression) == gap


def test_a_schedule_with_more_runs_can_still_leave_longer_gaps() -> None:
    # H1: 1,440 runs on one day a month are "more often" by count and far rarer by gap.
    assert runs_per_year("* * 1 * *") > runs_per_year("0 * * * *")
    assert longest_gap_minutes("* * 1 * *") > longest_gap_minutes("0 * * * *")
    assert cadence("* * 1 * *").startswith("up to 30.0 days between runs")
    assert math.isinf(longest_gap_minutes("0 0 29 2 1")) or longest_gap_minutes("0 0 29 2 1") > 0


def _job(schedule: str) -> Callable[[Doc], None]:
    return lambda d: inputs(d, "governance-reap-idle-vms-job").update(schedule=schedule)


def _changes(edit: Callable[[Doc], None], base: Doc | None = None) -> dict[str, object]:
    before = base if base is not None else golden()
    after = copy.deepcopy(before)
    edit(after)
    return {c.id: c for c in governance_changes(before, after)}


def _weakens(edit: Callable[[Doc], None], change_id: str) -> tuple[bool, bool]:
    """(weakens applied, weakens reverted) for the change `change_id`."""
    base = golden()
    head = copy.deepcopy(base)
    edit(head)
    forward = {c.id: c for c in governance_changes(base, head)}
    back = {c.id: c for c in governance_changes(head, base)}
    assert change_id in forward and change_id in back, sorted(forward)
    return forward[change_id].weakens, back[change_id].weakens


@pytest.mark.parametrize(
    ("schedule", "weakens"),
    [("* * 1 * *", True), ("* * 1,15 * *", True), ("*/30 * * * *", False), ("0 */2 * * *", True)],
)
def test_schedules_are_judged_by_their_longest_gap(schedule: str, weakens: bool) -> None:
    forward, back = _weakens(_job(schedule), "governance-reap-idle-vms-job.schedule")
    assert (forward, back) == (weakens, not weakens)


def _http_timeout(seconds: float) -> Callable[[Doc], None]:
    """What `automation.http_timeout_seconds: N` renders: each reaper and job, and its budget."""

    def edit(doc: Doc) -> None:
        for r in doc["resources"]:
            if r["name"].endswith("-job") and r["name"].startswith("governance-"):
                r["inputs"]["attemptDeadline"] = f"{seconds:g}s"
            env = r["inputs"].get("serviceConfig", {}).get("environmentVariables", {})
            # The three reapers (the HTTP functions); not the budget function nor the fan-out ones.
            entry = r["inputs"].get("buildConfig", {}).get("entryPoint", "")
            if "MLGOV_POLICY" in env and entry.startswith("reap_"):
                r["inputs"]["serviceConfig"]["timeoutSeconds"] = seconds
                policy = json.loads(env["MLGOV_POLICY"])
                policy["time_budget_seconds"] = seconds - 60
                env["MLGOV_POLICY"] = json.dumps(policy)

    return edit


def test_every_timeout_and_time_budget_is_an_aspect() -> None:
    base = golden()
    head = copy.deepcopy(base)
    _http_timeout(300)(head)
    changes = {c.id: c for c in governance_changes(base, head)}
    for name in (
        "governance-reap-idle-vms",
        "governance-reap-expired",
        "governance-reap-idle-gpus",
    ):
        assert changes[f"{name}.serviceConfig.timeoutSeconds"].weakens
        assert changes[f"{name}.policy.time_budget_seconds"].weakens
        assert changes[f"{name}-job.attemptDeadline"].weakens
    back = {c.id: c for c in governance_changes(head, base)}
    assert not back["governance-reap-idle-vms.policy.time_budget_seconds"].weakens
    assert refusals(head["resources"]) == []


def test_a_time_budget_below_the_working_minimum_is_refused() -> None:
    head = golden()
    _http_timeout(60)(head)  # H2: a time budget of 0
    found = refusals(head["resources"])
    assert len(found) == 3
    assert all("time_budget_seconds is 0 s, below the 30 s" in line for line in found)
    assert refusals(golden()["resources"]) == []


def test_a_time_budget_longer_than_the_function_runs_is_refused() -> None:
    head = golden()
    policy_edit(lambda p: p.update(time_budget_seconds=5000))(head)
    found = refusals(head["resources"])
    assert any("longer than the function's timeout" in line for line in found)


@pytest.mark.parametrize(
    ("cidrs", "expected"),
    [(["0.0.0.0/0"], 1.0), (["0.0.0.0/1", "128.0.0.0/1"], 1.0), (["10.0.0.0/8"], 1 / 256),
     (["10.0.0.0/8", "10.1.0.0/16"], 1 / 256), ([], 0.0), (["2001:db8::/32"], 0.0)],
)  # fmt: skip
def test_the_share_of_ipv4_a_list_opens(cidrs: list[str], expected: float) -> None:
    assert share(cidrs) == expected
    assert share(["not a range"]) is None


def _public_endpoint(*cidrs: str) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        cluster = inputs(doc, "gke-cluster")
        cluster.pop("privateClusterConfig", None)
        blocks = [{"cidrBlock": c} for c in cidrs]
        cluster["masterAuthorizedNetworksConfig"] = {"cidrBlocks": blocks}

    return edit


def test_authorized_networks_are_judged_by_the_share_they_open() -> None:
    # H3: two /1 ranges open every IPv4 address, as /0 does.
    base = golden()
    narrow = copy.deepcopy(base)
    _public_endpoint("203.0.113.0/24")(narrow)
    wide = copy.deepcopy(base)
    _public_endpoint("0.0.0.0/1", "128.0.0.0/1")(wide)
    key = "gke-cluster.controlPlane.authorizedShare"
    change = {c.id: c for c in governance_changes(narrow, wide)}[key]
    assert change.weakens and change.after == 1.0
    assert "100% of IPv4 (4,294,967,296 addresses)" in change.why
    assert not {c.id: c for c in governance_changes(wide, narrow)}[key].weakens


def test_a_lower_usage_assumption_weakens() -> None:
    # M2: the estimate shrinks while no resource changes.
    edit = lambda d: d["assumptions"].update(training_pool_average_nodes=0.01)  # noqa: E731
    assert _weakens(edit, "assumptions.training_pool_average_nodes") == (True, False)
    edit = lambda d: d["assumptions"].update(commitment="3y")  # noqa: E731
    assert _weakens(edit, "assumptions.commitment") == (True, False)


@pytest.mark.parametrize(
    ("text", "why"),
    [("research", None), ("cc-9000", None), ("r\u0435search", "mixes scripts"),
     ("\u0441\u0441-9000", "holds CYRILLIC SMALL LETTER ES \\u0441 (looks like 'c')"),
     ("\uff52esearch", "is not in normal form"), ("\u00e9quipe", None)],
)  # fmt: skip
def test_lookalike_label_text(text: str, why: str | None) -> None:
    found = suspicious(text)
    assert (found is None) if why is None else (found is not None and found.startswith(why))


def test_lookalike_labels_are_flagged_wherever_they_appear() -> None:
    # M3: every resource relabelled with Cyrillic letters in team and cost-center.
    def relabel(doc: Doc) -> None:
        for r in doc["resources"]:
            for field in ("labels", "resourceLabels", "userLabels"):
                labels = r["inputs"].get(field)
                if isinstance(labels, dict) and "team" in labels:
                    labels["team"] = "ml-pl\u0430tform"
                    labels["cost-center"] = "\u0441\u0441-9000"

    changes = _changes(relabel)
    for key in ("team", "cost-center"):
        change = changes[f"labels.{key}.lookalike"]
        assert change.weakens  # type: ignore[attr-defined]
    assert "\\u0430" in str(changes["labels.team.lookalike"].after)  # type: ignore[attr-defined]


def test_a_new_stack_is_judged_on_its_own() -> None:
    assert standalone_changes(golden()) == []
    head = golden()
    policy_edit(lambda p: p.update(dry_run=True))(head)
    inputs(head, "training-l4-spot")["nodeConfig"]["labels"]["mlgov-exempt"] = "true"
    head["resources"] = [r for r in head["resources"] if r["type"] != "gcp:billing/budget:Budget"]
    ids = {c.id for c in standalone_changes(head)}
    assert {"policy.dry_run", "training-l4-spot.labels.mlgov-exempt", "stack.budget"} <= ids
    assert all(c.weakens for c in standalone_changes(head))
    no_functions = golden()
    no_functions["resources"] = [
        r
        for r in no_functions["resources"]
        if r["type"] != "gcp:cloudfunctionsv2/function:Function"
    ]
    assert "stack.governance_functions" in {c.id for c in standalone_changes(no_functions)}
