"""`mlgov cap status` reads what the fanned-out functions really log.

A budget alert is fanned out over a folder through functions_framework (the scenario of
test_fanout.py, one project's stop refused until its item is dead-lettered); every line the
dispatcher, the worker and the dead-letter logger print becomes a Cloud Logging entry of their
Cloud Run service (governance/fakecloud/logging.py), and `mlgov cap status` per run
(governance/cap/runs.py) must count the projects as the functions left them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from governance.cap.api import Api
from governance.cap.runs import read_entries, runs_of
from governance.components.action_settings import ENTRY_POINTS, function_name
from governance.fakecloud.logging import FakeLogging
from governance.fakecloud.server import FakeGcp
from tests.functions.conftest import budget_data, log_lines, pubsub_event, send_event
from tests.functions.test_fanout import FAR, _fan_out, _org, _push

PROJECT, PREFIX = "acme-ops", "acme-ops"
SERVICES = {ep: function_name(PREFIX, ep) for ep in ENTRY_POINTS}


def _logged(logs: FakeLogging, out: str, start: datetime) -> int:
    """Store each JSON line as its function's log entry (in the order printed); how many."""
    n = 0
    for n, line in enumerate(log_lines(out), 1):
        service = SERVICES.get(str(line.get("entry_point")), "elsewhere")
        stamp = (start + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        logs.write(PROJECT, service, line, stamp)
    return n


def test_cap_status_counts_a_real_fanned_out_run(cloud, monkeypatch, capsys):
    governed = _org(cloud, n=4)
    cloud.compute.failing_stops[("ml-001", FAR, "vm")] = (
        "PERMISSION_DENIED",
        "Required 'compute.instances.stop' permission",
        403,
        True,
    )
    _fan_out(cloud, monkeypatch)
    push = _push(cloud, min_backoff=10, max_backoff=600)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    push.run()
    with FakeGcp() as server:
        logs = FakeLogging().install(server)
        start = datetime.now(UTC) - timedelta(minutes=30)
        assert _logged(logs, capsys.readouterr().out, start) > len(governed)
        api = Api({"logging": _session()}, {"logging": server.url})
        read = read_entries(api, PROJECT, tuple(SERVICES.values()), start - timedelta(hours=1))
    [run] = [r.as_dict() for r in runs_of(read.entries)]
    assert run["job"] == "budget"
    assert run["items"] == len(governed)
    assert run["dead_lettered_projects"] == ["ml-001"]
    assert run["done"] == len(governed) - 1
    assert (run["failed"], run["pending"]) == (0, 0)
    assert run["deliveries"] >= len(governed) - 1 + 5  # ml-001 failed five times first


def _session():
    import requests

    return requests.Session()
