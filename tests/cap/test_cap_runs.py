"""`mlgov cap status` per fan-out run: done, failed, pending and dead-lettered projects.

The runs come from the functions' log lines (docs/architecture.md#on-work-item) in Cloud Logging v2,
read with `POST /v2/entries:list` from the fake (governance/fakecloud/logging.py), whose requests
and answers are checked against the logging v2 discovery document here too.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from governance.cap.runs import log_filter, runs_of
from governance.cli.main import main
from governance.fakecloud.logging import FakeLogging
from governance.fakecloud.server import FakeGcp
from tests.cap.conftest import PROJECT
from tests.policies.compat.discovery_documents import document

DISPATCHER = "acme-prod-on-budget-alert"
WORKER = "acme-prod-on-work-item"
DEAD = "acme-prod-on-dead-letter"
REAPER = "acme-prod-reap-expired"
RUN = "b7c1e0d2"
PROJECTS = [f"acme-ml-{n:03d}" for n in range(1, 7)]


def _stamp(minutes: float) -> str:
    at = datetime.now(UTC) - timedelta(hours=1) + timedelta(minutes=minutes)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _item(project: str, run: str = RUN, job: str = "budget") -> dict[str, Any]:
    return {
        "job": job,
        "project": project,
        "run": run,
        "key": f"k-{project}",
        "scope": "folders/112233445566",
    }


def _seed(logs: FakeLogging) -> None:
    """A budget run over six projects, each ending differently, and a reaper run."""
    write = logs.write
    write(
        PROJECT,
        DISPATCHER,
        {
            "severity": "INFO",
            "message": "dispatched",
            "dispatch": {"job": "budget", "run": RUN, "items": 6, "projects": PROJECTS},
        },
        _stamp(0),
    )
    p1, p2, p3, p4, p5, _p6 = PROJECTS
    outcome = {"severity": "INFO", "message": "work item"}
    write(
        PROJECT,
        WORKER,
        {**outcome, "work_item": _item(p1), "outcome": "done", "counts": {"done": 3}},
        _stamp(1),
    )
    write(PROJECT, WORKER, {**outcome, "work_item": _item(p1), "outcome": "duplicate"}, _stamp(2))
    write(
        PROJECT,
        WORKER,
        {**outcome, "severity": "ERROR", "work_item": _item(p2), "outcome": "failed"},
        _stamp(1),
    )
    write(PROJECT, WORKER, {**outcome, "work_item": _item(p2), "outcome": "done"}, _stamp(3))
    write(
        PROJECT,
        WORKER,
        {**outcome, "severity": "ERROR", "work_item": _item(p3), "outcome": "failed"},
        _stamp(2),
    )
    write(
        PROJECT,
        WORKER,
        {**outcome, "severity": "ERROR", "work_item": _item(p4), "outcome": "refused"},
        _stamp(2),
    )
    for minute in (1, 2, 4, 8, 16):
        write(
            PROJECT,
            WORKER,
            {**outcome, "severity": "ERROR", "work_item": _item(p5), "outcome": "failed"},
            _stamp(minute),
        )
    write(
        PROJECT,
        DEAD,
        {
            "severity": "CRITICAL",
            "page": True,
            "work_item": _item(p5),
            "outcome": "dead-lettered",
            "CloudPubSubDeadLetterSourceDeliveryCount": 5,
        },
        _stamp(17),
    )
    # p6: dispatched, never delivered yet. A later reaper run, all done.
    write(
        PROJECT,
        REAPER,
        {"dispatch": {"job": "reap_expired", "run": "r-2", "items": 2, "projects": [p1, p2]}},
        _stamp(30),
    )
    for p in (p1, p2):
        write(
            PROJECT,
            WORKER,
            {**outcome, "work_item": _item(p, "r-2", "reap_expired"), "outcome": "nothing to do"},
            _stamp(31),
        )
    # Not ours: another service, and a line of ours without a run.
    write(
        PROJECT,
        "someone-else",
        {"dispatch": {"job": "budget", "run": "x", "projects": ["p"]}},
        _stamp(5),
    )
    write(PROJECT, WORKER, {"message": "cold start"}, _stamp(5))
    # Too old for the window.
    old = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    write(
        PROJECT,
        DISPATCHER,
        {"dispatch": {"job": "budget", "run": "old", "items": 1, "projects": ["p"]}},
        old,
    )


def test_each_project_counts_once_by_its_last_outcome_and_a_dead_letter_is_final():
    logs = FakeLogging()
    _seed(logs)
    services = (DISPATCHER, WORKER, DEAD, REAPER)
    mine = [e for e in logs.entries if e["resource"]["labels"]["service_name"] in services]
    runs = [r.as_dict() for r in runs_of(mine)]
    assert [r["run"] for r in runs] == ["r-2", RUN, "old"]  # newest first
    budget = runs[1]
    assert {
        k: budget[k] for k in ("job", "items", "done", "failed", "pending", "dead_lettered")
    } == {"job": "budget", "items": 6, "done": 2, "failed": 2, "pending": 1, "dead_lettered": 1}
    _p1, _p2, p3, p4, p5, p6 = PROJECTS
    assert budget["failed_projects"] == [p3, p4]
    assert budget["pending_projects"] == [p6]
    assert budget["dead_lettered_projects"] == [p5]
    assert budget["deliveries"] == 11
    assert (runs[0]["done"], runs[0]["job"]) == (2, "reap_expired")


@pytest.fixture
def logging_server():
    with FakeGcp() as server:
        logs = FakeLogging().install(server)
        _seed(logs)
        yield server, logs


def _status(server: FakeGcp, capsys, *flags: str) -> tuple[int, str]:
    code = main(["cap", "status", "--stack", "prod", "--endpoint", server.url, *flags])
    return code, capsys.readouterr().out


def _fakes_for_the_rest(server: FakeGcp) -> None:
    """GKE, Vertex AI and the Budget API answer empty: only the runs are under test here."""
    from governance.fakecloud.billingbudgets import FakeBudgets
    from governance.fakecloud.container import FakeContainer
    from governance.fakecloud.vertex import FakeVertex

    FakeContainer().install(server)
    FakeVertex().install(server)
    FakeBudgets().install(server).add_account()


def test_status_of_a_fan_out_stack_shows_each_run(logging_server, capsys, monkeypatch):
    server, _ = logging_server
    _fakes_for_the_rest(server)
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"billingbudgets": server.url}))
    code, out = _status(server, capsys, "--json")
    doc = json.loads(out)
    assert code == 0
    budget = next(r for r in doc["runs"] if r["run"] == RUN)
    assert (budget["done"], budget["failed"], budget["pending"], budget["dead_lettered"]) == (
        2,
        2,
        1,
        1,
    )
    assert [r["run"] for r in doc["runs"]] == ["r-2", RUN]  # the 3-day-old run is outside 24 h
    assert doc["scopes"] == ["folders/112233445566"]
    [read] = server.calls("POST", "/v2/entries:list")
    assert read.body["resourceNames"] == [f"projects/{PROJECT}"]
    assert read.body["orderBy"] == "timestamp asc"
    assert 'resource.labels.service_name=("acme-prod-on-budget-alert" OR ' in read.body["filter"]
    code, out = _status(server, capsys)
    assert f"budget run {RUN} started" in out
    assert ": 6 project(s): 2 done, 2 failed, 1 pending, 1 dead-lettered" in out
    assert f"    dead-lettered (never acted on; see on_dead_letter's log): {PROJECTS[4]}" in out
    code, out = _status(server, capsys, "--json", "--hours", "96")
    assert [r["run"] for r in json.loads(out)["runs"]] == ["r-2", RUN, "old"]


def test_every_page_is_read(logging_server, capsys, monkeypatch):
    server, logs = logging_server
    _fakes_for_the_rest(server)
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"billingbudgets": server.url}))
    for n in range(2500):  # three pages of 1,000
        logs.write(
            PROJECT,
            WORKER,
            {"work_item": _item(f"bulk-{n:04d}", "r-bulk"), "outcome": "done"},
            _stamp(40),
        )
    code, out = _status(server, capsys, "--json")
    bulk = next(r for r in json.loads(out)["runs"] if r["run"] == "r-bulk")
    assert (code, bulk["done"]) == (0, 2500)
    pages = server.calls("POST", "/v2/entries:list")
    assert len(pages) == 3
    assert [p.body.get("pageToken") for p in pages] == [None, "1000", "2000"]


def test_a_failed_read_is_named_and_fails_status(logging_server, capsys, monkeypatch):
    server, _ = logging_server
    _fakes_for_the_rest(server)
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"billingbudgets": server.url}))
    server.inject(r"/v2/entries:list", 403)
    code = main(["cap", "status", "--stack", "prod", "--endpoint", server.url, "--json"])
    captured = capsys.readouterr()
    assert code == 4
    assert json.loads(captured.out)["runs"] is None
    assert (
        f"fan-out runs (Cloud Logging entries.list in {PROJECT}): POST entries:list: HTTP 403"
        in captured.err
    )


def test_a_stack_without_fan_out_reads_no_runs(capsys, monkeypatch):
    with FakeGcp() as server:
        FakeLogging().install(server)
        _fakes_for_the_rest(server)
        code = main(["cap", "status", "--stack", "staging", "--endpoint", server.url, "--json"])
        doc = json.loads(capsys.readouterr().out)
        assert "runs" not in doc
        assert server.calls("POST", "/v2/entries:list") == []
        assert code == 0


def test_the_filter_reads_indexed_fields_first_and_both_kinds_of_line():
    since = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
    assert log_filter("p", ["a", "b"], since) == (
        'resource.type="cloud_run_revision" AND resource.labels.project_id="p" '
        'AND resource.labels.service_name=("a" OR "b") AND timestamp>="2026-11-28T10:00:00Z" '
        "AND (jsonPayload.dispatch.run:* OR jsonPayload.work_item.run:*)"
    )


# ------------------------------------------------------------------ the fake's shapes
def _check(value: Any, schema: dict[str, Any], where: str) -> None:
    schemas = document("logging.v2")["schemas"]
    if "$ref" in schema:
        schema = schemas[schema["$ref"]]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        assert isinstance(value, dict), where
        for key, item in value.items():
            assert key in schema["properties"], f"{where}.{key}: not documented"
            _check(item, schema["properties"][key], f"{where}.{key}")
    elif kind == "array":
        assert isinstance(value, list), where
        for i, item in enumerate(value):
            _check(item, schema.get("items", {}), f"{where}[{i}]")
    elif kind == "string":
        assert isinstance(value, str), where
        if "enum" in schema:
            assert value in schema["enum"], f"{where}: {value!r} not in the enum"
    elif kind == "integer":
        assert isinstance(value, int) and not isinstance(value, bool), where


def test_the_request_and_the_fake_answer_are_the_documented_shapes(
    logging_server, capsys, monkeypatch
):
    server, _ = logging_server
    _fakes_for_the_rest(server)
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"billingbudgets": server.url}))
    _status(server, capsys, "--json")
    method = document("logging.v2")["resources"]["entries"]["methods"]["list"]
    assert (method["httpMethod"], method["path"]) == ("POST", "v2/entries:list")
    exchanges = [(q, r) for q, r in server.exchanges if q.path == "/v2/entries:list"]
    assert exchanges
    for request, reply in exchanges:
        _check(request.body, method["request"], "request")
        _check(reply.body, method["response"], "response")
    with pytest.raises(AssertionError, match="not documented"):
        _check({"entries": [{"textPayload": "x", "payload": 1}]}, method["response"], "x")
