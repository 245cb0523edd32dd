"""Every command that calls an API fails fast on an endpoint that does not answer, naming it.

Two endpoints that do not answer, both on 127.0.0.1: a closed port (connection refused) and a
server that accepts connections and never answers (the listen backlog completes the handshake;
nothing reads). Each command runs in-process through the CLI's `main` with the real client
libraries and governance/deadlines.py's waits, shortened (tests/short_deadlines.py) through the
budget every command reads: it must end well before the client libraries' own retries would,
with its documented exit code (spend 2, jobs, cap and prices refresh 4), one error line naming
the endpoint, and, when the wait is long, a progress line on stderr before it.
"""

from __future__ import annotations

import io
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.deadlines import Budget, Endpoint, reason, unreachable, waiting
from tests.conftest import REPO
from tests.short_deadlines import use_short_budget

# What these tests catch is a command hanging on the client libraries' default retry (120 s and
# more, per call, or no timeout at all) instead of giving up after deadlines.py's first-call
# budget (here about 1 s, the real one about 8 s). 10 s flaked on a loaded 2-core machine (16 s:
# imports alone take seconds there); 45 s still fails on the default retry and does not measure
# speed (that belongs in bench/).
LIMIT_S = 45.0


@pytest.fixture
def short(monkeypatch: pytest.MonkeyPatch) -> Budget:
    return use_short_budget(monkeypatch)


@pytest.fixture
def silent_url() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)  # the kernel accepts into the backlog; nobody ever reads or answers
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


# ...and the prod stack fans out: its runs are read from Cloud Logging.
CAP_APIS = ("the GKE API", "the Vertex AI API", "the Budget API", "the Cloud Logging API")
COMMANDS = {
    # name: (service key, argv, exit code): 4 (Exit.CLOUD), the API did not answer
    "spend": ("bigquery", ["spend", "--stack", "dev", "--no-plan"], 2),  # spend: 0 or 2 only
    "jobs": ("cloudscheduler", ["jobs", "--stack", "dev", "list"], 4),
    "cap": ("container", ["cap", "status", "--stack", "prod"], 4),
    "prices": ("cloudbilling", ["prices", "refresh"], 4),
}


def _run(
    command: str,
    url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str, float]:
    service, argv, _code = COMMANDS[command]
    monkeypatch.chdir(REPO)
    if command == "prices":  # reads --endpoint only; writes nothing when the API is silent
        argv = [*argv, "--endpoint", url, "--output", str(tmp_path / "prices.json")]
    else:
        # cap reads GKE, Vertex AI and (the prod stack declares a spend cap) the Budget API: all
        # point at the silent server (the first call is GKE's).
        services = (
            (service, "aiplatform", "billingbudgets", "logging") if command == "cap" else (service,)
        )
        monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps(dict.fromkeys(services, url)))
    capsys.readouterr()
    started = time.monotonic()
    code = main(argv)
    elapsed = time.monotonic() - started
    return code, capsys.readouterr().err, elapsed


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_closed_port_fails_fast_naming_the_endpoint(
    command: str,
    short: Budget,
    closed_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err, elapsed = _run(command, closed_url, tmp_path, monkeypatch, capsys)
    assert code == COMMANDS[command][2], err
    assert elapsed < LIMIT_S
    errors = [line for line in err.splitlines() if line.startswith("mlgov: error:")]
    # One line per API the command calls (cap: GKE, Vertex AI, the Budget API, Cloud Logging),
    # each naming it.
    apis = CAP_APIS if command == "cap" else ("",)
    assert len(errors) == len(apis), err
    for api, line in zip(apis, errors, strict=True):
        assert f"{api} at {closed_url} did not answer (connection refused".strip() in line
    assert "Traceback" not in err and "FutureWarning" not in err
    assert not (tmp_path / "prices.json").exists()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_server_that_never_answers_fails_fast_with_progress(
    command: str,
    short: Budget,
    silent_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err, elapsed = _run(command, silent_url, tmp_path, monkeypatch, capsys)
    assert code == COMMANDS[command][2], err
    assert elapsed < LIMIT_S
    errors = [line for line in err.splitlines() if line.startswith("mlgov: error:")]
    apis = CAP_APIS if command == "cap" else ("",)
    assert len(errors) == len(apis), err
    for api, line in zip(apis, errors, strict=True):
        assert f"{api} at {silent_url} did not answer".strip() in line
        assert "timed out" in line
    if command != "cap":  # cap's one call is a single attempt: its error is the only line
        progress = [line for line in err.splitlines() if line.startswith("mlgov: waiting for")]
        assert progress and silent_url in progress[0], err
        if command != "prices":  # the others name their limit: the budget they read, shortened
            assert f"gives up within {short.first_call_s:g} s)" in progress[0], err


def test_waiting_is_quiet_for_quick_calls_and_reports_slow_ones() -> None:
    quick = io.StringIO()
    with waiting("BigQuery at http://x", 8, stream=quick, quiet_s=0.5):
        pass
    assert quick.getvalue() == ""

    slow = io.StringIO()
    with waiting("BigQuery at http://x", 8, stream=slow, quiet_s=0.05, every_s=0.05) as wait:
        wait.saw(ConnectionRefusedError("[Errno 111] Connection refused"))
        # Until a second line that names the error (a fixed 0.2 s failed on a loaded machine:
        # the printing thread had not run twice); a wait that never repeats its line, or never
        # names the error, still fails, after 30 s.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (
            len(lines := slow.getvalue().splitlines()) >= 2 and "refused" in lines[-1]
        ):
            time.sleep(0.01)
    lines = slow.getvalue().splitlines()
    assert len(lines) >= 2
    assert all(x.startswith("mlgov: waiting for BigQuery at http://x (") for x in lines), lines
    assert lines[0].startswith("mlgov: waiting for BigQuery at http://x (0 s; ")
    assert "connection refused, retrying; gives up within 8 s)" in lines[-1]


def test_reasons_and_hints_are_words() -> None:
    import requests

    assert reason(requests.exceptions.ReadTimeout("read timed out")).startswith("connected, but")
    assert reason(requests.exceptions.ConnectTimeout("x")) == "could not connect: timed out"
    assert reason(requests.exceptions.ConnectionError("Name or service not known")) == (
        "host name not found"
    )
    assert Endpoint("bigquery").where == "BigQuery at https://bigquery.googleapis.com"
    assert Endpoint("bigquery").hint == "check the network (and any proxy settings)"
    message = unreachable(
        Endpoint("cloudbilling", "http://h:1", "--endpoint", from_env=False),
        requests.exceptions.ConnectionError("[Errno 111] Connection refused"),
        4.2,
    )
    assert message == (
        "the Cloud Billing Catalog API at http://h:1 did not answer (connection refused; "
        "gave up after 4.2 s); check the URL (--endpoint)"
    )
