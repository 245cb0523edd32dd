# pyright: basic
"""The budget function as Cloud Run serves it: functions-framework on 127.0.0.1, and a message.

`BudgetFunction` starts `functions-framework --target on_budget_alert` (the same entry point
and source the stack deploys) with the stack's MLGOV_POLICY and MLGOV_API_ENDPOINTS pointing at
the fake cloud. `notification` builds the Pub/Sub message a Cloud Billing budget publishes, from
Google's documented example (tests/functions/data/budget-notification-format-example.json),
dated in the current budget period; `deliver` posts it as Eventarc does (a binary-mode
CloudEvent of type messagePublished). `actions` reads the function's log lines back.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from governance.demo.lifecycle import Child, free_port

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "functions" / "main.py"
EXAMPLE = (
    Path(__file__).resolve().parents[1]
    / "fakecloud"
    / "recorded"
    / "budget-notification-format-example.json"
)
START_TIMEOUT_S = 60.0
# Budget periods start at midnight US/Pacific (Google's example starts 08:00Z: see EXAMPLE).
PACIFIC = ZoneInfo("America/Los_Angeles")


class BudgetFunction:
    """on_budget_alert under functions-framework, in its own process group."""

    def __init__(self, policy: str, endpoints: Mapping[str, str], workdir: Path, tag: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        framework = Path(sys.executable).with_name("functions-framework")
        env = {
            "PATH": str(Path(sys.executable).parent),
            "HOME": str(workdir),
            "LANG": "C.UTF-8",
            "MLGOV_POLICY": policy,
            "MLGOV_API_ENDPOINTS": json.dumps(dict(endpoints)),
            "GOOGLE_CLOUD_PROJECT": "",
            # Its temporary files (gunicorn's) go where the demo's go.
            **{k: v for k, v in os.environ.items() if k == "TMPDIR"},
        }
        argv = [
            str(framework),
            "--target=on_budget_alert",
            f"--source={SOURCE}",
            "--signature-type=cloudevent",
            "--host=127.0.0.1",
            f"--port={self.port}",
        ]
        self.child = Child(
            "functions-framework", argv, env, workdir, workdir / f"function-{tag}.log"
        )

    def wait(self) -> BudgetFunction:
        """Return once the server answers (a GET: it is up, whatever it says)."""
        self.child.wait_http(self.url, START_TIMEOUT_S)
        return self

    def deliver(self, message: Mapping[str, Any]) -> int:
        """POST a Pub/Sub message as Eventarc does; the HTTP status (200 = acknowledged)."""
        data = {
            "message": {**message, "messageId": message["messageId"]},
            "subscription": "projects/demo/subscriptions/eventarc-budget",
        }
        headers = {
            "Content-Type": "application/json",
            "ce-specversion": "1.0",
            "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
            "ce-source": "//pubsub.googleapis.com/projects/demo/topics/budget-alerts",
            "ce-id": str(message["messageId"]),
        }
        request = urllib.request.Request(  # noqa: S310 - our own local server
            self.url, data=json.dumps(data).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
                return int(response.status)
        except urllib.error.HTTPError as err:
            return int(err.code)

    def log_lines(self) -> list[dict[str, Any]]:
        """The JSON lines the function logged (what Cloud Logging would show)."""
        lines: list[dict[str, Any]] = []
        for line in self.child.output().splitlines():
            if line.startswith("{"):
                try:
                    lines.append(json.loads(line))
                except ValueError:
                    continue
        return lines

    def stop(self) -> None:
        """End the server and its workers."""
        self.child.stop()


def period_start(now: datetime) -> str:
    """This month's budget period start, midnight US/Pacific, as the notification writes it."""
    local = now.astimezone(PACIFIC)
    start = datetime(local.year, local.month, 1, tzinfo=PACIFIC).astimezone(UTC)
    return start.strftime("%Y-%m-%dT%H:%M:%SZ")


def notification(
    *, budget_id: str, account: str, name: str, amount: float, cost: float, now: datetime
) -> dict[str, Any]:
    """The Pub/Sub message of a budget whose spend crossed `cost / amount`, this period."""
    example = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data = {
        **example["data"],
        "budgetDisplayName": name,
        "costAmount": cost,
        "costIntervalStart": period_start(now),
        "budgetAmount": amount,
        "alertThresholdExceeded": 1.0,
    }
    data.pop("forecastThresholdExceeded", None)  # this one is about actual spend
    attributes = {**example["attributes"], "billingAccountId": account, "budgetId": budget_id}
    return {
        "attributes": attributes,
        "data": base64.b64encode(json.dumps(data).encode()).decode(),
        "messageId": uuid.uuid4().hex[:16],
        "publishTime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def actions(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The function's per-resource action lines (target, action, outcome, reason)."""
    return [line for line in lines if "target" in line and "outcome" in line]


def summary(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's summary line."""
    found = [line for line in lines if line.get("summary")]
    return found[-1] if found else {}
