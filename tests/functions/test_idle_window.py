"""Idle means idle for the whole window (issue 19): reap_idle_gpus end to end.

Through functions_framework against the fake Compute, TPU and Monitoring; the fake cloud's wall
clock reads 2026-11-21T05:00:00Z (conftest.WALL) and the window is the default 60 minutes. A GPU
VM starting up reads 0% for minutes: it is judged only once it has run the whole window
(lastStartTimestamp, in Compute's own format), and every accelerator only on data that covers
the window, in the metric's documented unit.
"""

from __future__ import annotations

from datetime import timedelta, timezone

from tests.functions.conftest import DEV, WALL, log_lines, post_report

A, B = "us-central1-a", "us-central1-b"
PST = timezone(timedelta(hours=-8))


def _compute_time(minutes_ago: int) -> str:
    """A lastStartTimestamp as Compute writes it (recorded: 2021-03-25T06:51:01.815-07:00)."""
    at = (WALL - timedelta(minutes=minutes_ago)).astimezone(PST)
    return at.strftime("%Y-%m-%dT%H:%M:%S.000-08:00")


def _outcomes(report) -> dict[str, tuple[str, str]]:
    return {a["target"].rsplit("/", 1)[-1]: (a["outcome"], a["reason"]) for a in report["actions"]}


def test_a_gpu_vm_started_5_minutes_ago_is_left_running(cloud):
    fresh = cloud.compute.add(
        DEV, A, "gpu-fresh", gpus=1, labels={"workload": "training"}, last_start=_compute_time(5)
    )
    old = cloud.compute.add(
        DEV, A, "gpu-old", gpus=1, labels={"workload": "training"}, last_start=_compute_time(61)
    )
    # Both read 0% (start-up, or truly idle); the fresh VM's data begins at its start.
    cloud.monitoring.set(DEV, fresh["id"], 0.0)
    cloud.monitoring.since[fresh["id"]] = WALL - timedelta(minutes=5)
    cloud.monitoring.set(DEV, old["id"], 0.0)
    report = post_report("reap_idle_gpus")
    outcomes = _outcomes(report)
    assert outcomes["gpu-fresh"][0] == "skipped"
    assert "5 min ago: judged once it has run the whole 60-min window" in outcomes["gpu-fresh"][1]
    assert outcomes["gpu-old"][0] == "done"
    assert cloud.compute.status(DEV, A, "gpu-fresh") == "RUNNING"
    assert cloud.compute.status(DEV, A, "gpu-old") == "TERMINATED"
    assert report["no_data"] == []  # starting up is not "no data"


def test_a_vm_whose_gpu_data_begins_inside_the_window_is_left_running(cloud):
    # Running for two hours, but its agent (or driver) reports only since 10 minutes ago.
    vm = cloud.compute.add(
        DEV,
        A,
        "gpu-new-agent",
        gpus=1,
        labels={"workload": "training"},
        last_start=_compute_time(120),
    )
    cloud.monitoring.set(DEV, vm["id"], 0.0)
    cloud.monitoring.since[vm["id"]] = WALL - timedelta(minutes=10)
    report = post_report("reap_idle_gpus")
    outcome, reason = _outcomes(report)["gpu-new-agent"]
    assert outcome == "skipped"
    assert "judged once it covers the whole window" in reason
    assert cloud.compute.status(DEV, A, "gpu-new-agent") == "RUNNING"


def test_a_gpu_series_in_another_unit_counts_as_no_data(cloud, capsys):
    vm = cloud.compute.add(DEV, A, "gpu-ratio", gpus=1, labels={"workload": "training"})
    cloud.monitoring.set(DEV, vm["id"], 0.5)  # 0.5 as a ratio is 50% busy
    cloud.monitoring.units[vm["id"]] = "10^2.%"
    report = post_report("reap_idle_gpus")
    target = f"//compute.googleapis.com/projects/{DEV}/zones/{A}/instances/gpu-ratio"
    assert report["no_data"] == [target]
    outcome, reason = _outcomes(report)["gpu-ratio"]
    assert outcome == "skipped" and "unit '10^2.%', not '%'" in reason
    assert cloud.compute.status(DEV, A, "gpu-ratio") == "RUNNING"
    warnings = [x for x in log_lines(capsys.readouterr().out) if x["severity"] == "WARNING"]
    assert [w["no_data"] for w in warnings] == [[target]]


def test_tpu_vms_created_or_restarted_inside_the_window_are_left_running(cloud):
    new = cloud.tpu.add(DEV, B, "tpu-new", labels={"workload": "training"})
    new["createTime"] = (WALL - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    cloud.tpu.add(DEV, B, "tpu-restarted", labels={"workload": "training"})
    cloud.tpu.add(DEV, B, "tpu-idle", labels={"workload": "training"})
    for node in ("tpu-new", "tpu-restarted", "tpu-idle"):
        cloud.monitoring.set_tpu(DEV, node, 0.0)
    # Created weeks ago, stopped, started again 5 minutes ago: its data begins then.
    cloud.monitoring.since["tpu-restarted"] = WALL - timedelta(minutes=5)
    report = post_report("reap_idle_gpus")
    outcomes = _outcomes(report)
    assert outcomes["tpu-new"][0] == "skipped"
    assert "created " in outcomes["tpu-new"][1] and "5 min ago" in outcomes["tpu-new"][1]
    assert outcomes["tpu-restarted"][0] == "skipped"
    assert "covers" in outcomes["tpu-restarted"][1]
    assert outcomes["tpu-idle"][0] == "done"
    assert cloud.tpu.state(DEV, B, "tpu-new") == "READY"
    assert cloud.tpu.state(DEV, B, "tpu-restarted") == "READY"
    assert cloud.tpu.state(DEV, B, "tpu-idle") == "STOPPED"
