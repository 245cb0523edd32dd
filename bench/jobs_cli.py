"""Benchmark `python -m governance jobs`: CLI start-up and list/run against a local fake Scheduler.

Run: .venv/bin/python bench/jobs_cli.py [runs]. Prints the median wall time of each case over
`runs` fresh processes (default 7). The fake server lives in this process; each CLI call is a new
interpreter, as an operator would run it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from governance.fakecloud.scheduler import FakeScheduler  # noqa: E402
from governance.fakecloud.server import FakeGcp  # noqa: E402


def median_seconds(argv: list[str], runs: int) -> float:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=REPO, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    py = [sys.executable, "-m", "governance"]
    with FakeGcp() as server:
        sched = FakeScheduler().install(server)
        for job in ("reap-idle-vms", "reap-expired", "reap-idle-gpus"):
            sched.add("acme-ml-dev", "us-central1", f"acme-dev-{job}")
        cases = {
            "python -m governance --help": [*py, "--help"],
            "python -m governance jobs --help": [*py, "jobs", "--help"],
            "jobs --stack dev list (fake)": [
                *py,
                "jobs",
                "--stack",
                "dev",
                "--endpoint",
                server.url,
                "list",
            ],
            "jobs --stack dev run reap-expired (fake)": [
                *py,
                "jobs",
                "--stack",
                "dev",
                "--endpoint",
                server.url,
                "run",
                "reap-expired",
            ],
        }
        for label, argv in cases.items():
            print(f"{label:45s} {median_seconds(argv, runs):6.3f} s (median of {runs})")


if __name__ == "__main__":
    main()
