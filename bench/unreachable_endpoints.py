"""How long each command that calls an API takes to give up on an endpoint that does not answer.

    .venv/bin/python bench/unreachable_endpoints.py [--runs 3]

Whole processes (`python -m governance ...`, startup and imports included), each against a closed
port on 127.0.0.1 and against a server that accepts connections and never answers; the median
wall time and the exit code per command and endpoint. Target: under 10 s (issue 22).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = {
    "spend": ("bigquery", ["spend", "--stack", "dev", "--no-plan"]),
    "jobs list": ("cloudscheduler", ["jobs", "--stack", "dev", "list"]),
    "cap status": ("container", ["cap", "status", "--stack", "prod"]),
    "prices refresh": (None, ["prices", "refresh"]),
}


def _once(service: str | None, argv: list[str], url: str, out: Path) -> tuple[float, int]:
    env = {**os.environ}
    if service is None:
        argv = [*argv, "--endpoint", url, "--output", str(out)]
    else:
        env["MLGOV_API_ENDPOINTS"] = json.dumps({service: url})
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "governance", *argv],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=False,
        timeout=600,
    )
    return time.monotonic() - started, result.returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening: refused
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # the backlog accepts; nobody answers
    urls = {
        "closed port": f"http://127.0.0.1:{closed.getsockname()[1]}",
        "silent server": f"http://127.0.0.1:{silent.getsockname()[1]}",
    }
    print(f"| command | endpoint | median | runs | exit |  (load {os.getloadavg()[0]:.1f})")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (service, argv) in COMMANDS.items():
            for kind, url in urls.items():
                samples = [_once(service, argv, url, Path(tmp) / "p.json") for _ in range(runs)]
                median = statistics.median(s for s, _ in samples)
                codes = sorted({c for _, c in samples})
                print(f"| {name} | {kind} | {median:.1f} s | {runs} | {codes} |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
