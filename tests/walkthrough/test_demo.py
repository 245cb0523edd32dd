"""`make demo` end to end, and its cleanup: after success and after Ctrl-C, no process it started
is left and its temporary files are gone.

The demo runs as a user runs it (`python -m governance.demo`, a child process), with TMPDIR pointed at an
empty folder: everything it creates must be inside, and gone when it exits. The pids it prints
(bqemulator, functions-framework) must no longer exist.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs import pages

PID = re.compile(r"\(pid (\d+)\)")


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp), "COLUMNS": "110", "PYTHONUNBUFFERED": "1"}


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _assert_cleaned(out: str, tmp: Path) -> None:
    pids = [int(p) for p in PID.findall(out)]
    assert pids, out
    deadline = time.monotonic() + 5  # a killed process may take a moment to be reaped
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in pids if _alive(p)] == []
    assert sorted(p.name for p in tmp.iterdir()) == []


@pytest.mark.e2e  # the whole demo as a user runs it: `make e2e`
def test_demo_runs_every_step_and_leaves_nothing_behind(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "governance.demo"],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    steps = re.findall(r"^== (\d)/9 ", out, re.M)
    assert steps == [str(i) for i in range(1, 10)]
    for command in (
        "$ mlgov spend --stack dev",
        "$ mlgov jobs --stack dev list",
        "$ mlgov cap status --stack dev",
        "$ mlgov cap restore --stack dev --dry-run",
        "$ mlgov cap restore --stack dev",
    ):
        assert command in out
    # The dry run simulates, the real run acts, restore undoes the GKE part.
    dry = out.split("== 7/9", 1)[1].split("== 8/9", 1)[0]
    real = out.split("== 8/9", 1)[1].split("== 9/9", 1)[0]
    assert (
        "scale_to_zero container locations/us-central1/clusters/acme-dev-ml/nodePools/t4-spot: simulated"
        in dry
    )
    assert ": done" not in dry
    assert (
        "scale_to_zero container locations/us-central1/clusters/acme-dev-ml/nodePools/t4-spot: done"
        in real
    )
    assert "stop notebooks locations/us-central1-a/instances/acme-dev-nb-alice: done" in real
    assert "  restore sets: nvidia-tesla-t4 0-4" in real
    last_status = out.split("== 9/9", 1)[1].rsplit("$ mlgov cap status --stack dev", 1)[1]
    assert "  nothing capped" in last_status.splitlines()
    assert "Traceback" not in out + done.stderr
    _assert_cleaned(out, tmp_path)
    # What the docs quote of the demo (`<!-- demo-sample -->` blocks) is what it printed.
    quoted = list(pages.demo_samples())
    assert len(quoted) >= 4
    for sample in quoted:
        assert pages.found_in(sample.lines, out.splitlines()), (
            f"{sample.id} is stale; the demo printed:\n{out}"
        )


@pytest.mark.e2e  # the whole demo as a user runs it: `make e2e`
def test_ctrl_c_stops_the_servers_and_removes_the_files(tmp_path: Path) -> None:
    # Started with SIGINT ignored, as a background job of a script would be: the demo still
    # answers Ctrl-C.
    demo = subprocess.Popen(
        [sys.executable, "-m", "governance.demo"],
        cwd=REPO,
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert demo.stdout is not None
    seen: list[str] = []
    try:
        for line in demo.stdout:  # interrupt once the emulator runs and holds data
            seen.append(line)
            if "rows in" in line:
                break
        assert any("bqemulator listening" in line for line in seen), "".join(seen)
        demo.send_signal(signal.SIGINT)
        rest, err = demo.communicate(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 130, err
    assert "interrupted (Ctrl-C)" in err
    assert "stopped every server it started" in rest
    _assert_cleaned("".join(seen) + rest, tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_termination_signals_run_the_same_cleanup(tmp_path: Path, sig: signal.Signals) -> None:
    # The demo's Teardown in a small program: a server child, a temp dir, then the signal.
    script = f"""
import os, signal, sys, tempfile, time
from pathlib import Path
from governance.demo.lifecycle import Child, Stopped, Teardown
def in_group(pgid):  # another process than the group's leader
    for proc in Path("/proc").iterdir():
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if proc.name.isdigit() and int(proc.name) != pgid and int(fields[2]) == pgid:
            return True
    return False
work = Path(tempfile.mkdtemp())
try:
    with Teardown() as t:
        t.callback(lambda: __import__("shutil").rmtree(work))
        child = Child("sleeper", ["sh", "-c", "sleep 300 & sleep 300"], os.environ, work, work / "log")
        t.callback(child.stop)
        print(child.pid, flush=True)
        # Until sh has forked its background sleep into the group (bounded): the cleanup must
        # end a server's own children too.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not in_group(child.pid):
            time.sleep(0.01)
        os.kill(os.getpid(), {int(sig)})
        time.sleep(30)
except Stopped as err:
    print("stopped", err, flush=True)
    sys.exit(143)
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 143, done.stderr
    pid, verdict = done.stdout.splitlines()
    assert verdict == f"stopped {sig.name}"
    group = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and _in_group(p, int(pid))]
    assert group == []
    assert list(tmp_path.iterdir()) == []


def _in_group(proc: Path, pgid: int) -> bool:
    try:
        fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return int(fields[2]) == pgid and fields[0] != "Z"
