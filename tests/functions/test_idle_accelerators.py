"""reap_idle_gpus on TPU VMs (duty cycle) beside GPU VMs, and the run-level `no_data` report.

Decisions on plain values, the flow on memory ports, and the entry point end to end through
functions_framework against the fake Monitoring (both metrics) and TPU APIs.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from govern import decide, execute, flows
from govern.actions import Skip, StopTpuNode
from govern.models import Workload
from govern.parse import action_policy
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import DEV, log_lines, policy_dict, post_report, set_policy
from tests.functions.memory import MemoryCloud, MemoryPorts

A, B = "us-central1-a", "us-central1-b"
POLICY = action_policy(json.dumps(policy_dict()))
NOW = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)
LONG_AGO = datetime(2026, 11, 1, tzinfo=UTC)  # created (or started) well before any window


def tpu(name, state="READY", workload="training", **kw) -> Workload:
    labels = {"workload": workload, **kw.pop("labels", {})}
    kw.setdefault("last_start", LONG_AGO)
    return Workload("tpu", DEV, kw.pop("zone", B), name, state, labels, **kw)


@pytest.mark.parametrize(
    ("w", "duty", "expected", "reason"),
    [
        (tpu("t"), {"t": 1.0}, StopTpuNode, "TPU idle: 1.0% < 5%"),
        (tpu("t", instance_id="77"), {"77": 1.0}, StopTpuNode, "TPU idle"),
        (tpu("t"), {"t": 40.0}, Skip, "TPU busy"),
        (tpu("t"), {}, decide.NoData, "no TPU duty-cycle data"),
        (tpu("t", labels={"mlgov-exempt": "true"}), {"t": 0.0}, Skip, "exempt"),
        (tpu("t", state="STOPPED"), {"t": 0.0}, Skip, "not running"),
    ],
)
def test_reap_idle_tpus(w, duty, expected, reason):
    actions = decide.reap_idle_tpus([w], duty, POLICY, NOW)
    assert [type(a) for a in actions] == [expected]
    assert reason in actions[0].reason


def test_tpu_candidates_need_the_workload_label_and_a_governed_zone():
    ws = [tpu("a"), tpu("b", workload="data"), tpu("c", zone="europe-west4-a")]
    assert [w.name for w in decide.tpu_candidates(ws, POLICY)] == ["a"]


def test_the_tpu_threshold_and_window_come_from_the_policy():
    policy = action_policy(
        json.dumps(policy_dict(idle_tpu={"max_duty_cycle_percent": 50, "window_minutes": 15}))
    )
    [action] = decide.reap_idle_tpus([tpu("t")], {"t": 40.0}, policy, NOW)
    assert isinstance(action, StopTpuNode) and "over 15 min" in action.reason


def test_the_flow_reads_duty_cycle_once_per_project_and_reports_no_data_once(capsys):
    gpu = Workload(
        "compute", DEV, A, "gpu", "RUNNING", {"workload": "training"}, 1, "11", last_start=LONG_AGO
    )
    cloud = MemoryCloud(
        workloads=[gpu, tpu("idle"), tpu("quiet"), tpu("busy")],
        duty_cycle={"idle": 0.5, "busy": 90.0},
    )
    runner = execute.Runner(POLICY, FakeClock(wall=NOW))
    report = flows.reap_idle_gpus(MemoryPorts(cloud), runner)
    assert cloud.called("tpus.stop") == [(DEV, B, "idle")]
    assert cloud.called("monitoring.tpu_duty_cycle") == [(DEV, 60, ("busy", "idle", "quiet"))]
    assert report.no_data == (
        f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/gpu",
        f"//tpu.googleapis.com/projects/{DEV}/locations/{B}/nodes/quiet",
    )
    warnings = [x for x in log_lines(capsys.readouterr().out) if x["severity"] == "WARNING"]
    assert len(warnings) == 1 and warnings[0]["no_data"] == list(report.no_data)


def test_reap_idle_gpus_end_to_end_stops_an_idle_tpu_vm_and_names_the_silent_ones(cloud, capsys):
    vm = cloud.compute.add(DEV, A, "gpu-silent", gpus=1, labels={"workload": "training"})
    cloud.tpu.add(DEV, B, "tpu-idle", labels={"workload": "training"})
    cloud.tpu.add(DEV, B, "tpu-busy", labels={"workload": "training"})
    cloud.tpu.add(DEV, B, "tpu-silent", labels={"workload": "training"})
    cloud.tpu.add(DEV, A, "tpu-exempt", labels={"workload": "training", "mlgov-exempt": "true"})
    cloud.monitoring.set_tpu(DEV, "tpu-idle", 0.0, 3.0)  # a two-worker slice, both idle
    cloud.monitoring.set_tpu(DEV, "tpu-busy", 0.0, 70.0)  # one busy worker keeps it
    report = post_report("reap_idle_gpus")
    assert cloud.tpu.state(DEV, B, "tpu-idle") == "STOPPED"
    for name, zone in (("tpu-busy", B), ("tpu-silent", B), ("tpu-exempt", A)):
        assert cloud.tpu.state(DEV, zone, name) == "READY", name
    assert cloud.compute.status(DEV, A, "gpu-silent") == "RUNNING"
    assert report["no_data"] == [
        f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/gpu-silent",
        f"//tpu.googleapis.com/projects/{DEV}/locations/{B}/nodes/tpu-silent",
    ]
    reads = cloud.server.calls("GET", "/timeSeries")
    filters = sorted(r.query["filter"][0] for r in reads)
    assert len(reads) == 2
    assert 'metric.type = "tpu.googleapis.com/accelerator/duty_cycle"' in filters[1]
    assert 'resource.type = "tpu_worker"' in filters[1]
    assert 'metric.type = "agent.googleapis.com/gpu/utilization"' in filters[0]
    lines = log_lines(capsys.readouterr().out)
    assert [x["no_data"] for x in lines if x["severity"] == "WARNING"] == [report["no_data"]]
    assert vm["id"]


def test_no_data_is_empty_and_silent_when_every_accelerator_reports(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, dry_run=True)
    cloud.tpu.add(DEV, B, "tpu-idle", labels={"workload": "training"})
    cloud.monitoring.set_tpu(DEV, "tpu-idle", 1.0)
    report = post_report("reap_idle_gpus")
    assert report["no_data"] == [] and report["counts"] == {"simulated": 1}
    assert cloud.mutations() == []
    assert not [x for x in log_lines(capsys.readouterr().out) if x["severity"] == "WARNING"]
