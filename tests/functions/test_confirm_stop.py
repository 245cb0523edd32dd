"""actions/confirm_stop.py: what the check of a VM left STOPPING makes of what it finds.

On memory ports, with the VM's status after the wait given; the end-to-end replay (the VM left
STOPPING by an unconfirmed stop, then the redelivery) is in test_recorded_cases.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from govern import claims, decide, execute
from govern.actions import ConfirmStop, Skip
from govern.models import Recommendation, Workload
from govern.parse import action_policy
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import DEV, policy_dict
from tests.functions.memory import MemoryCloud, MemoryInstances, MemoryPorts

A = "us-central1-a"
NOW = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)


class _Settled(MemoryInstances):
    """A Compute port whose VM is found in `status` once it leaves STOPPING."""

    status = "TERMINATED"

    def wait_stopped(self, project: str, zone: str, name: str) -> str:
        self.cloud.record("compute.wait_stopped", name, project, zone, name)
        return self.status


def _run(status: str, *, restop: bool = True) -> tuple[tuple[str, str], MemoryCloud]:
    w = Workload("compute", DEV, A, "vm", "STOPPING")
    cloud = MemoryCloud(workloads=[w])
    ports = MemoryPorts(cloud)
    ports.compute = _Settled(cloud, "compute", "compute")
    ports.compute.status = status
    runner = execute.Runner(action_policy(json.dumps(policy_dict())), FakeClock())
    action = ConfirmStop(w.target, "over budget", workload=w, restop=restop)
    [result] = execute.apply([action], ports, runner, "test", dry_run=False)
    return (result.outcome, result.reason), cloud


@pytest.mark.parametrize("status", ["TERMINATED", "STOPPED", "SUSPENDED"])
def test_a_stopped_vm_is_confirmed(status):
    (outcome, reason), cloud = _run(status)
    assert outcome == "done" and f"confirmed stopped (was STOPPING, now {status})" in reason
    assert not cloud.called("compute.stop")


def test_a_vm_gone_meanwhile_is_already_gone():
    (outcome, reason), _ = _run("GONE")
    assert (outcome, reason) == ("skipped", "already gone")


def test_a_vm_running_again_is_stopped_again():
    (outcome, reason), cloud = _run("RUNNING")
    assert outcome == "done" and "RUNNING again, the earlier stop did not take" in reason
    assert cloud.called("compute.stop") == [(DEV, A, "vm")]


def test_the_idle_gpu_reaper_never_stops_a_vm_running_again_blind():
    (outcome, reason), cloud = _run("RUNNING", restop=False)
    assert outcome == "failed" and "the next run judges it again" in reason
    assert not cloud.called("compute.stop")


# -- which VMs decide.py checks again -------------------------------------------------------------

POLICY = action_policy(json.dumps(policy_dict()))


@pytest.mark.parametrize(
    ("state", "labels", "managed", "kind"),
    [
        ("STOPPING", {}, None, ConfirmStop),
        ("PENDING_STOP", {}, None, ConfirmStop),
        ("TERMINATED", {}, None, Skip),
        ("STOPPING", {"mlgov-exempt": "true"}, None, Skip),
        ("STOPPING", {}, "gke", Skip),  # GKE's own node: never stopped through Compute
    ],
)
def test_the_budget_cap_checks_again_only_ungoverned_stopping_vms(state, labels, managed, kind):
    w = Workload("compute", DEV, A, "vm", state, labels, managed_by=managed)
    [action] = decide.stop_workloads([w], POLICY, "over budget")
    assert type(action) is kind


def test_a_stale_claim_on_a_vm_still_stopping_is_kept_not_closed():
    w = Workload("compute", DEV, A, "vm", "STOPPING")
    meta = {"mlgov": "claimed", "run": "r0", "runstart": "20261101T000000Z"}
    rec = Recommendation("recs/1", "e", "CLAIMED", "STOP_VM", DEV, A, "vm", state_metadata=meta)
    [action] = decide.reap_idle([rec], [w], POLICY, claims.Run("r1", NOW))
    assert isinstance(action, Skip) and "its claim is kept for the next run" in action.reason
