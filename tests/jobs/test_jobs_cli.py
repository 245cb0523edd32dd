"""`python -m governance jobs` against a fake Cloud Scheduler: method, path and body of each call.

Job ids come from the stack files (stacks/Pulumi.dev.yaml: prefix acme-dev, project
acme-ml-dev, region us-central1), named as governance/components/automation.py deploys them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.fakecloud.scheduler import FakeScheduler
from governance.fakecloud.server import FakeGcp

REPO = Path(__file__).resolve().parents[2]
PARENT = "projects/acme-ml-dev/locations/us-central1"
OURS = ("acme-dev-reap-idle-vms", "acme-dev-reap-expired", "acme-dev-reap-idle-gpus")


@pytest.fixture
def fake() -> Iterator[tuple[FakeGcp, FakeScheduler]]:
    with FakeGcp() as server:
        sched = FakeScheduler().install(server)
        for job in OURS:
            sched.add("acme-ml-dev", "us-central1", job)
        sched.add("acme-ml-dev", "us-central1", "acme-dev-nb-alice-stop", schedule="0 19 * * 1-5")
        sched.add("other-project", "us-central1", "acme-dev-reap-expired")
        yield server, sched


def jobs(server: FakeGcp, *argv: str) -> int:
    return main(["jobs", "--stack", "dev", "--endpoint", server.url, *argv])


def test_list_shows_the_stack_jobs_with_state_and_schedule(fake, capsys):
    server, sched = fake
    sched.jobs[f"{PARENT}/jobs/acme-dev-reap-expired"]["state"] = "PAUSED"
    sched.jobs[f"{PARENT}/jobs/acme-dev-reap-idle-gpus"]["status"] = {
        "code": 7,
        "message": "permission denied",
    }

    assert jobs(server, "list") == 0

    [call] = server.calls()
    assert (call.method, call.path) == ("GET", f"/v1/{PARENT}/jobs")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == PARENT
    rows = {line.split()[0]: line for line in out[2:]}
    assert sorted(rows) == sorted(OURS)  # the notebook job is not a cleanup job
    assert rows["acme-dev-reap-expired"].split()[1] == "PAUSED"
    assert rows["acme-dev-reap-idle-vms"].split()[1] == "ENABLED"
    assert "0 * * * *" in rows["acme-dev-reap-idle-vms"]
    assert "code 7: permission denied" in rows["acme-dev-reap-idle-gpus"]
    assert rows["acme-dev-reap-idle-vms"].rstrip().endswith("ok")


def test_list_json_all_follows_pages_and_marks_missing_jobs(fake, capsys):
    server, sched = fake
    sched.page_size = 2
    del sched.jobs[f"{PARENT}/jobs/acme-dev-reap-idle-gpus"]

    assert jobs(server, "list", "--all", "--json") == 0

    calls = server.calls("GET")
    assert [c.query.get("pageToken") for c in calls] == [None, ["2"]]
    doc = json.loads(capsys.readouterr().out)
    assert doc["location"] == PARENT
    by_job = {j["job"]: j for j in doc["jobs"]}
    assert by_job["acme-dev-reap-idle-gpus"]["state"] == "NOT DEPLOYED"
    assert by_job["acme-dev-nb-alice-stop"]["schedule"] == "0 19 * * 1-5"
    assert by_job["acme-dev-reap-idle-vms"]["last_attempt"] == "2026-11-20T10:00:03.123456Z"
    assert by_job["acme-dev-reap-idle-vms"]["target"].startswith("https://")


@pytest.mark.parametrize(
    ("action", "job", "verb", "state"),
    [
        ("run", "reap-idle-vms", "run", "ENABLED"),
        ("pause", "reap_expired", "pause", "PAUSED"),
        ("resume", "acme-dev-reap-idle-gpus", "resume", "ENABLED"),
    ],
)
def test_actions_post_to_the_job_name(fake, capsys, action, job, verb, state):
    server, sched = fake
    sched.jobs[f"{PARENT}/jobs/acme-dev-reap-idle-gpus"]["state"] = "PAUSED"

    assert jobs(server, action, job) == 0

    [call] = server.calls()
    target = {"run": OURS[0], "pause": OURS[1], "resume": OURS[2]}[action]
    assert call.method == "POST"
    assert call.path == f"/v1/{PARENT}/jobs/{target}:{verb}"
    # RunJobRequest/PauseJobRequest/ResumeJobRequest carry only the name, which is in the path.
    assert call.body == {}
    assert call.query["$alt"] == ["json;enum-encoding=int"]
    assert sched.jobs[f"{PARENT}/jobs/{target}"]["state"] == state
    out = capsys.readouterr().out
    assert out.startswith(f"{target}: ")
    assert f"state {state}" in out
    if action == "run":
        assert sched.runs == [f"{PARENT}/jobs/{target}"]


def test_endpoint_from_environment(fake, capsys, monkeypatch):
    server, _sched = fake
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"cloudscheduler": server.url}))

    assert main(["jobs", "--stack", "dev", "pause", "reap-idle-vms", "--json"]) == 0

    assert [c.path for c in server.calls()] == [f"/v1/{PARENT}/jobs/{OURS[0]}:pause"]
    assert json.loads(capsys.readouterr().out)["state"] == "PAUSED"


def test_prod_stack_uses_its_own_project_and_region(capsys):
    with FakeGcp() as server:
        FakeScheduler().install(server)
        assert main(["jobs", "--stack", "prod", "--endpoint", server.url, "list"]) == 0
        [call] = server.calls()
    assert call.path == "/v1/projects/acme-ml-prod/locations/europe-west4/jobs"
    out = capsys.readouterr().out
    assert out.count("NOT DEPLOYED") == 3
    assert "acme-prod-reap-idle-vms" in out


# -------------------------------------------------------------------------- invalid input: 2
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "reap-everything"], "unknown job 'reap-everything'; this stack's jobs: "),
        (["pause"], "jobs pause: name the JOB: reap-idle-vms, reap-expired, reap-idle-gpus"),
        (["list", "reap-expired"], "jobs list: takes no JOB"),
    ],
)
def test_bad_job_arguments_exit_2_without_calling(fake, capsys, argv, message):
    server, _sched = fake
    assert jobs(server, *argv) == 2
    assert server.calls() == []
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_unknown_stack_exits_2(capsys):
    assert main(["jobs", "--stack", "qa", "--endpoint", "http://127.0.0.1:9", "list"]) == 2
    err = capsys.readouterr().err
    assert "no stack file stacks/Pulumi.qa.yaml" in err


def test_invalid_stack_settings_exit_2(tmp_path, capsys):
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text(
        (REPO / "stacks" / "Pulumi.dev.yaml")
        .read_text()
        .replace("dry_run: true", "dry_run: true\n      reap_expired_schedule: daily")
    )
    assert main(["jobs", "--config", str(stack), "--endpoint", "http://127.0.0.1:9", "list"]) == 2
    err = capsys.readouterr().err
    assert "mlgov:settings.automation.reap_expired_schedule" in err


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ("{not json", "MLGOV_API_ENDPOINTS: not valid JSON"),
        (
            '{"cloudscheduler": "localhost:8080"}',
            "MLGOV_API_ENDPOINTS.cloudscheduler: 'localhost:8080' must be a URL starting with http://",
        ),
        ('{"cloudscheduler": 8080}', "MLGOV_API_ENDPOINTS.cloudscheduler: must be a URL string"),
        # A misspelt key would leave the scheduler on Google's real endpoint, unnoticed.
        (
            '{"cloudschedular": "http://127.0.0.1:9"}',
            "MLGOV_API_ENDPOINTS: unknown service(s) cloudschedular; known: compute,",
        ),
    ],
)
def test_bad_endpoint_configuration_exits_2(monkeypatch, capsys, env, message):
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", env)
    assert main(["jobs", "--stack", "dev", "list"]) == 2
    assert message in capsys.readouterr().err


# -------------------------------------------------------------------------- API errors: 4
def test_run_of_a_job_that_is_not_deployed_exits_4_with_a_hint(fake, capsys):
    server, sched = fake
    del sched.jobs[f"{PARENT}/jobs/{OURS[0]}"]

    assert jobs(server, "run", "reap-idle-vms") == 4

    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("mlgov: error: cloud scheduler: run acme-dev-reap-idle-vms: 404")
    assert "not deployed? run `pulumi up`" in err[0]


def test_permission_denied_exits_4(fake, capsys):
    server, _sched = fake
    server.inject(r":pause$", 403)

    assert jobs(server, "pause", "reap-expired") == 4

    err = capsys.readouterr().err
    assert "cloud scheduler: pause acme-dev-reap-expired: 403" in err
    assert "roles/cloudscheduler.admin" in err


def test_transient_errors_are_retried_for_list_but_run_is_not_repeated(fake, capsys):
    server, sched = fake
    server.inject(r"/jobs$", 503, times=1)
    assert jobs(server, "list") == 0
    assert len(server.calls("GET")) == 2

    server.inject(r":run$", 503, times=1)
    assert jobs(server, "run", "reap-expired") == 4
    assert len(server.calls("POST")) == 1  # a retried run could clean up twice
    assert sched.runs == []
    assert "503" in capsys.readouterr().err


def test_unreachable_endpoint_exits_4(capsys):
    assert (
        main(["jobs", "--stack", "dev", "--endpoint", "http://127.0.0.1:9", "run", "reap-expired"])
        == 4
    )
    err = capsys.readouterr().err
    assert err.startswith("mlgov: error: cloud scheduler: run acme-dev-reap-expired:")
    assert len(err.strip().splitlines()) == 1


def test_cli_start_does_not_import_the_scheduler_client():
    code = (
        "import sys; from governance.cli.main import build_parser; build_parser(); "
        "print('google.cloud.scheduler_v1' in sys.modules, 'pulumi_gcp' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=True,
    ).stdout
    assert out.split() == ["False", "False"]


def test_the_tools_and_the_functions_accept_the_same_endpoint_keys():
    # functions/ imports nothing from governance/ (it is deployed alone), so each keeps its own
    # list of docs/architecture.md's endpoint keys; one map must work for both, so the lists must agree.
    import main as functions_main

    from governance.endpoints import KNOWN_SERVICES

    assert set(functions_main.KNOWN_SERVICES) == set(KNOWN_SERVICES)


def test_jobs_seeded_by_the_demo_run_relative_to_its_clock(capsys, monkeypatch):
    """Issue 32: the demo's `jobs list` showed a next run eight days before the demo's now."""
    from datetime import UTC, datetime, timedelta

    from governance.demo import cloud as demo_cloud

    now = datetime(2027, 3, 14, 15, 9, 26, tzinfo=UTC)  # any clock, not the fake's fixed times
    # The plan the demo seeds from (governance/demo/run.py runs `mlgov plan --stack dev --json`
    # as a process; the same command in-process prints the same document).
    monkeypatch.chdir(REPO)
    capsys.readouterr()
    assert main(["plan", "--stack", "dev", "--json"]) == 0, capsys.readouterr().err
    plan = json.loads(capsys.readouterr().out)
    with FakeGcp() as server:
        cloud = demo_cloud.Cloud(server, scheduler=FakeScheduler(now=lambda: now))
        seeded = demo_cloud.seed(cloud, plan)
        assert jobs(server, "list", "--json") == 0
        listed = {j["job"]: j for j in json.loads(capsys.readouterr().out)["jobs"]}
        assert sorted(listed) == sorted(seeded.jobs)

        def at(text: str) -> datetime:
            return datetime.fromisoformat(text.replace("Z", "+00:00"))

        for job in listed.values():
            assert now < at(job["next_run"]) <= now + timedelta(days=1), job
            assert now - timedelta(days=1) <= at(job["last_attempt"]) <= now, job
        # an hourly job's next run is the next whole hour, in its own time zone
        hourly = [j for j in listed.values() if j["schedule"].startswith("0 * ")]
        assert hourly and all(j["next_run"].startswith("2027-03-14T16:00:00") for j in hourly)
        assert jobs(server, "run", seeded.jobs[0]) == 0
        assert cloud.scheduler.jobs[f"{PARENT}/jobs/{seeded.jobs[0]}"]["lastAttemptTime"] == (
            "2027-03-14T15:09:26.000000Z"
        )
