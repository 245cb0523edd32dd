"""Progress on long work: a spinner on a terminal's stderr, never in a pipe, CI or with --quiet.

The end-to-end cases run the real `mlgov plan` (the CLI's `main`, in this process) with stderr on
a pseudo-terminal or a pipe, over a program that sleeps ten times longer than the spinner's delay
(shortened for these tests), so whether it shows never depends on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import threading
import time
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.text import progress

DELAY_S = 0.05
"""The spinner's delay in the plan cases (progress.DELAY_S, 1 s for users)."""
SLOW_PROGRAM = """\
import time
import pulumi_gcp as gcp

time.sleep(0.5)  # ten times the spinner's delay in these tests (DELAY_S)
gcp.serviceaccount.Account("runner", account_id="runner")
"""


def _read_until(fd: int, wanted: bytes, limit_s: float = 20.0) -> bytes:
    """What the terminal received, once it holds `wanted` (or `limit_s` passed)."""
    got = b""
    deadline = time.monotonic() + limit_s
    while wanted not in got and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            got += os.read(fd, 65536)
    return got


@pytest.mark.parametrize(
    ("environ", "quiet", "expected"),
    [
        ({}, False, True),
        ({"CI": "true"}, False, False),
        ({"CI": "1"}, False, False),
        ({"CI": "false"}, False, True),
        ({}, True, False),
        ({"TERM": "dumb"}, False, False),
    ],
)
def test_wanted_on_a_terminal_only_outside_ci_and_quiet(
    environ: dict[str, str], quiet: bool, expected: bool
) -> None:
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as terminal:
            assert progress.wanted(quiet, terminal, environ) is expected
    finally:
        os.close(master)
        os.close(slave)


def test_a_pipe_or_a_file_never_gets_progress(tmp_path: Path) -> None:
    with (tmp_path / "log").open("w") as file:
        assert progress.wanted(False, file, {}) is False
    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe:
        assert progress.wanted(False, pipe, {}) is False
    os.close(read)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch):
    """A pseudo-terminal (not CI): yields (the fd that reads what it shows, its writing end).

    The test puts the writing end on sys.stderr itself: pytest puts its own capture back on
    sys.stderr between a fixture's setup and the test.
    """
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w", buffering=1)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    yield master, stream
    stream.close()
    os.close(master)


def test_the_spinner_names_the_step_and_lines_print_above_it(terminal, monkeypatch) -> None:
    fd, stream = terminal
    monkeypatch.setattr(sys, "stderr", stream)
    with progress.shown("planning", delay_s=0.0):
        progress.step("planning dev (1/3)")
        progress.detail("running the Pulumi program")
        shown = _read_until(fd, b"planning dev (1/3): running the Pulumi program")
        print("mlgov: warning: a line while it spins", file=sys.stderr)
        shown += _read_until(fd, b"a line while it spins\r\n")
    assert b"planning dev (1/3): running the Pulumi program" in shown
    assert b"mlgov: warning: a line while it spins\r\n" in shown  # whole, on its own line
    assert sys.stderr is stream  # stderr is back


def test_work_that_ends_within_the_delay_shows_nothing(terminal, monkeypatch) -> None:
    fd, stream = terminal
    monkeypatch.setattr(sys, "stderr", stream)
    with progress.shown("planning", delay_s=60.0):
        progress.step("planning dev")
    print("done", file=sys.stderr)
    assert _read_until(fd, b"done\r\n") == b"done\r\n"


def _project(root: Path) -> Path:
    (root / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (root / "__main__.py").write_text(SLOW_PROGRAM)
    (root / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: shop-dev\n")
    return root


def _drained(fd: int) -> tuple[threading.Thread, bytearray]:
    """A thread that reads `fd` until its writing end closes, into the returned buffer.

    Read while the command runs: a terminal or a pipe nobody reads fills up and blocks the
    writer (the spinner redraws 8 times a second).
    """
    got = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # a terminal whose last writer closed
                return
            if not chunk:
                return
            got.extend(chunk)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, got


def _plan_in_process(
    root: Path,
    args: list[str],
    environ: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    terminal: bool,
) -> tuple[bytes, str]:
    """(what stderr received, stdout) of `mlgov ARGS` in `root`, stderr a terminal or a pipe.

    The CLI's own `main` in this process: what decides whether the spinner shows is what the
    command finds on sys.stderr and in the environment, not that it is a process of its own.
    The spinner's delay is shortened through the value it reads (progress.DELAY_S); the program
    still sleeps ten times longer, so whether it shows never depends on the machine's speed.
    """
    monkeypatch.chdir(root)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(progress, "DELAY_S", DELAY_S)
    reading, writing = pty.openpty() if terminal else os.pipe()
    drain, shown = _drained(reading)
    stderr = os.fdopen(writing, "w", buffering=1)
    capsys.readouterr()
    captured, sys.stderr = sys.stderr, stderr  # after pytest's capture took its place
    try:
        code = main(args)
    finally:
        sys.stderr = captured
        stderr.close()
    drain.join(timeout=20)
    os.close(reading)
    out = capsys.readouterr().out
    assert code == 0, bytes(shown).decode(errors="replace")
    return bytes(shown), out


@pytest.mark.parametrize(
    ("environ", "extra", "spins"),
    [({}, [], True), ({"CI": "true"}, [], False), ({}, ["--quiet"], False)],
)
def test_plan_on_a_terminal_spins_unless_ci_or_quiet(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    environ: dict[str, str],
    extra: list[str],
    spins: bool,
) -> None:
    root = _project(tmp_path)
    argv = ["plan", "--stack", "dev", "--json", *extra]
    shown, stdout = _plan_in_process(root, argv, environ, monkeypatch, capsys, terminal=True)
    assert json.loads(stdout)["stack"] == "dev"  # the result itself never changes
    assert (b"planning dev: running the Pulumi program under mocks" in shown) is spins
    assert (b"\x1b[" in shown) is spins  # no control sequence at all without the spinner


def test_plan_into_a_pipe_prints_exactly_what_it_did_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    argv = ["plan", "--stack", "dev", "--json"]
    shown, stdout = _plan_in_process(root, argv, {}, monkeypatch, capfd, terminal=False)
    assert shown == b""
    assert capfd.readouterr().err == ""  # nor anything written to the process's own stderr
    assert json.loads(stdout)["stack"] == "dev"


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--stack", "dev"],
        ["plan", "--all", "--out-dir", "plans"],
        ["check", "plan.json"],
        ["spend", "--stack", "dev"],
        ["report"],
        ["cap", "status", "--stack", "dev"],
    ],
)
def test_each_long_command_takes_quiet(argv: list[str]) -> None:
    from governance.cli.main import build_parser

    assert build_parser().parse_args([*argv, "--quiet"]).quiet is True
    assert build_parser().parse_args([*argv, "-q"]).quiet is True
    assert build_parser().parse_args(argv).quiet is False
