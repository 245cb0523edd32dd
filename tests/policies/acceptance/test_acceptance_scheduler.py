"""Cloud Scheduler attempt deadline rule on job inputs."""

from __future__ import annotations

from acceptance_support import DELETE, changed, run, shipped

from mlgov_policies import vocabulary as v
from mlgov_policies.props import UNKNOWN_SENTINELS

RULE = "mlgov-scheduler-attempt-deadline-within-limit"
DOC = "Cloud Scheduler API Job.attemptDeadline (discovery document cloudscheduler.v1) https://cloud.google.com/scheduler/docs/reference/rest/v1/projects.locations.jobs"
UNKNOWN = next(iter(UNKNOWN_SENTINELS))


def job() -> dict:
    return shipped("dev", "governance-reap-expired-job")  # HTTP target, 900s


def test_shipped_jobs_pass() -> None:
    assert run(RULE, v.SCHEDULER_JOB, job()) == []
    assert run(RULE, v.SCHEDULER_JOB, shipped("dev", "notebooks-alice-start")) == []
    for deadline in ("15s", "1800s", "1800.0s"):
        assert run(RULE, v.SCHEDULER_JOB, changed(job(), "attemptDeadline", deadline)) == []


def test_http_deadline_past_30_minutes_fails() -> None:
    assert run(RULE, v.SCHEDULER_JOB, changed(job(), "attemptDeadline", "3600s")) == [
        "attemptDeadline '3600s': 3600s is outside a Cloud Scheduler HTTP target's "
        f"attemptDeadline: 15s to 1800s (source: {DOC})"
    ]


def test_http_deadline_under_15_seconds_fails() -> None:
    assert run(RULE, v.SCHEDULER_JOB, changed(job(), "attemptDeadline", "10s")) == [
        "attemptDeadline '10s': 10s is outside a Cloud Scheduler HTTP target's attemptDeadline: "
        f"15s to 1800s (source: {DOC})"
    ]


def test_app_engine_target_allows_a_day() -> None:
    props = changed(job(), "httpTarget", DELETE)
    props = changed(props, "appEngineHttpTarget", {"relativeUri": "/run"})
    assert run(RULE, v.SCHEDULER_JOB, changed(props, "attemptDeadline", "3600s")) == []
    assert len(run(RULE, v.SCHEDULER_JOB, changed(props, "attemptDeadline", "90000s"))) == 1


def test_pubsub_target_is_not_judged() -> None:
    props = changed(job(), "httpTarget", DELETE)
    props = changed(props, "pubsubTarget", {"topicName": "projects/p/topics/t"})
    assert run(RULE, v.SCHEDULER_JOB, changed(props, "attemptDeadline", "3600s")) == []


def test_malformed_and_unknown_deadlines() -> None:
    assert run(RULE, v.SCHEDULER_JOB, changed(job(), "attemptDeadline", "15m")) == [
        f"attemptDeadline '15m' is not a duration in seconds such as '320s' (source: {DOC})"
    ]
    assert run(RULE, v.SCHEDULER_JOB, changed(job(), "attemptDeadline", UNKNOWN)) == []
    assert run(RULE, v.SCHEDULER_JOB, changed(job(), "attemptDeadline", DELETE)) == []
