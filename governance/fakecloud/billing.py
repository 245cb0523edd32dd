# pyright: basic
"""Fake Cloud Billing project billingInfo: GET and PUT (unlink = empty billingAccountName)."""

from __future__ import annotations

import re
import threading
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body


class FakeBilling:
    """billingInfo per project id; projects not added answer 404."""

    def __init__(self) -> None:
        self.accounts: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, project: str, account: str = "billingAccounts/01D4EE-079462-DFD6EC") -> None:
        self.accounts[project] = account

    def info(self, project: str) -> dict[str, Any]:
        account = self.accounts[project]
        return {
            "name": f"projects/{project}/billingInfo",
            "projectId": project,
            "billingAccountName": account,
            "billingEnabled": bool(account),
        }

    def install(self, fake: FakeGcp) -> FakeBilling:
        fake.route("GET", r"/v1/projects/([^/]+)/billingInfo", self._get)
        fake.route("PUT", r"/v1/projects/([^/]+)/billingInfo", self._put)
        return self

    def _get(self, request: Request, m: re.Match[str]) -> Reply:
        if m[1] not in self.accounts:
            return Reply(404, error_body(404, f"project {m[1]} not found"))
        return Reply(200, self.info(m[1]))

    def _put(self, request: Request, m: re.Match[str]) -> Reply:
        if m[1] not in self.accounts:
            return Reply(404, error_body(404, f"project {m[1]} not found"))
        body = request.body if isinstance(request.body, dict) else {}
        with self._lock:
            self.accounts[m[1]] = str(body.get("billingAccountName", ""))
        return Reply(200, self.info(m[1]))
