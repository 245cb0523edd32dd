"""What the benches of the deployed functions share: the fake cloud in a child process, its ML
projects, the stack's policy, the budget alert, and the functions under functions_framework.

bench/functions_cap.py (one budget alert over many projects), bench/org_fanout.py (the same alert
fanned out through Pub/Sub) and bench/org_profile.py (what one project costs each job) run the
REAL functions (functions/main.py, real google-cloud-* clients over REST) against
governance/fakecloud/. The fake cloud runs in a child process, so its serving does not share this
process's GIL with the function under measurement: `FakeCloudProcess` starts it, collects its
result and stops it, over two queues (on one shared queue a process can read back what it just
put). What each bench measures, and how it seeds its own projects, stays in the bench.

Importing this module puts the repository and the functions on sys.path (`use_functions`).
"""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
import resource
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FUNCTIONS = REPO / "functions"
ZONES = ["us-central1-a", "us-central1-b", "us-central1-c"]
NAP = {"cpu": (0, 512), "memory": (0, 2048), "nvidia-l4": (0, 32), "tpu-v5-lite-podslice": (0, 64)}
"""Node auto-provisioning limits of the benches' GKE clusters, GPUs and TPUs included."""
AUTOSCALING = {
    "enabled": True,
    "totalMinNodeCount": 0,
    "totalMaxNodeCount": 8,
    "locationPolicy": "ANY",
}
"""The accelerator pools' autoscaling: from zero, as mlgov's training pools are."""


def use_functions(functions: Path = FUNCTIONS) -> None:
    """Import the repository and `functions` (another checkout's, to compare) from now on."""
    for path in (str(functions), str(REPO)):
        if path not in sys.path:
            sys.path.insert(0, path)


use_functions()


# -- the fake cloud (child process) --------------------------------------------------------------


def add_ml_clusters(gke: Any, project: str, zone: str) -> None:
    """Two zonal clusters in `zone`: a system pool, an L4 GPU pool and a v5e TPU pool each."""
    for c in range(2):
        name = f"ml-{zone[-1]}{c}"
        gke.add_cluster(project, zone, name, nap=NAP)
        gke.add_pool(project, zone, name, "system", nodes=1, initial=1)
        gke.add_pool(
            project,
            zone,
            name,
            "l4",
            machine_type="g2-standard-8",
            gpus=1,
            autoscaling=AUTOSCALING,
            nodes=4,
        )
        gke.add_pool(
            project,
            zone,
            name,
            "v5e",
            machine_type="ct5lp-hightpu-4t",
            autoscaling=AUTOSCALING,
            nodes=2,
        )


def serve_commands(
    commands: Any, answers: Any, result: Callable[[], Any], stop: Callable[[], None]
) -> None:
    """The child's loop, after it put its URLs: "result" answers `result()`, "stop" ends it."""
    while True:
        command = commands.get()
        if command == "result":
            answers.put(result())
        elif command == "stop":
            stop()
            return


class FakeCloudProcess:
    """`serve(*args, commands, answers)` in a child process; `urls` is the first thing it puts."""

    def __init__(self, serve: Callable[..., None], *args: Any, timeout: float = 600) -> None:
        self._commands: Any = multiprocessing.Queue()
        self._answers: Any = multiprocessing.Queue()
        self._child = multiprocessing.Process(
            target=serve, args=(*args, self._commands, self._answers), daemon=True
        )
        self._child.start()
        self.urls: Any = self._answers.get(timeout=timeout)

    def result(self, timeout: float = 600) -> Any:
        """What the fake cloud saw (the serve function's `result()`), then stop it."""
        self._commands.put("result")
        answer = self._answers.get(timeout=timeout)
        self._commands.put("stop")
        self._child.join(10)
        return answer


# -- the functions (this process) ----------------------------------------------------------------


def budget_policy(
    projects: Sequence[str],
    *,
    concurrency: int,
    rps: float,
    time_budget_seconds: int = 480,
    unlink: bool = False,
) -> dict[str, Any]:
    """MLGOV_POLICY for budget `b1` over prod `projects` in ZONES (`unlink`: billing at 1.2)."""
    names = sorted(projects)
    return {
        "dry_run": False,
        "exempt_label": {"key": "mlgov-exempt", "value": "true"},
        "projects": {
            n: {"environment": "prod", "zones": ZONES, "allow_billing_disable": unlink}
            for n in names
        },
        "budgets": {
            "b1": {"projects": names, "stop_at": 1.0, "disable_billing_at": 1.2 if unlink else None}
        },
        "time_budget_seconds": time_budget_seconds,
        "max_concurrency": concurrency,
        "max_requests_per_second_per_project": rps,
    }


def folder_policy(folder: str) -> dict[str, Any]:
    """MLGOV_POLICY governing the projects labelled `mlgov-governed` under `folder` (prod), with
    no budget yet: the fan-out benches add theirs."""
    return {
        "dry_run": False,
        "exempt_label": {"key": "mlgov-exempt", "value": "true"},
        "projects": {},
        "scopes": {
            folder: {
                "environment": "prod",
                "allow_billing_disable": False,
                "labels": {"mlgov-governed": "true"},
            }
        },
        "budgets": {},
    }


def use_cloud(
    endpoints: Mapping[str, str], policy: Mapping[str, Any], work_topic: str | None = None
) -> None:
    """The functions' environment: API endpoints, policy and (fan-out) the work topic."""
    os.environ["MLGOV_API_ENDPOINTS"] = json.dumps(dict(endpoints))
    os.environ["MLGOV_POLICY"] = json.dumps(policy)
    if work_topic is None:
        os.environ.pop("MLGOV_WORK_TOPIC", None)
    else:
        os.environ["MLGOV_WORK_TOPIC"] = work_topic


def budget_alert(
    cost: float = 1500.0, threshold: float = 1.5, interval_start: str = "%Y-%m-01T00:00:00Z"
) -> tuple[dict[str, str], bytes]:
    """Budget `b1`'s Pub/Sub notification (1,000 USD) as a structured CloudEvent: headers, body.

    `interval_start` is formatted with this month (a notification of an earlier period acts on
    nothing).
    """
    from cloudevents.conversion import to_structured
    from cloudevents.http import CloudEvent

    data = {
        "costAmount": cost,
        "budgetAmount": 1000.0,
        "alertThresholdExceeded": threshold,
        "currencyCode": "USD",
        "costIntervalStart": time.strftime(interval_start, time.gmtime()),
    }
    event = CloudEvent(
        {"type": "google.cloud.pubsub.topic.v1.messagePublished", "source": "//bench", "id": "1"},
        {
            "message": {
                "data": base64.b64encode(json.dumps(data).encode()).decode(),
                "attributes": {"budgetId": "b1", "schemaVersion": "1.0"},
                "messageId": "1",
            }
        },
    )
    headers, body = to_structured(event)
    return dict(headers), body


def function_app(entry: str, kind: str, functions: Path = FUNCTIONS) -> Any:
    """The Flask app functions_framework serves `entry` with (`kind`: cloudevent or http)."""
    from functions_framework import create_app

    return create_app(entry, str(functions / "main.py"), kind)


def cpu_seconds() -> float:
    """User and system CPU time of this process so far."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


@contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence the functions' one log line per action while the bench measures."""
    with open(os.devnull, "w") as devnull:
        sys.stdout = devnull
        try:
            yield
        finally:
            sys.stdout = sys.__stdout__
