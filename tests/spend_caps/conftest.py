"""A fake Budget API (and Cloud Billing account) for spend-cap tests, checked against Google.

`budgets` starts tests/fakegcp with FakeBudgets, points MLGOV_API_ENDPOINTS at it (anonymous
access, as for any local endpoint) and, after the test, checks every request and answer against
the billingbudgets.v1 and cloudbilling.v1 discovery documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from governance.fakecloud.billingbudgets import ACCOUNT, FakeBudgets
from governance.fakecloud.server import FakeGcp
from tests.spend_caps.discovery import check_exchange

PROJECT, NUMBER = "acme-ml-prod", "345678901234"
VERTEX = "services/C7E2-9256-1C43"


@dataclass
class Budgets:
    """The fake server and its Budget API state."""

    server: FakeGcp
    api: FakeBudgets

    def methods(self) -> list[str]:
        """The documented method id of every billing request so far, in order (a test may put
        another fake API on the same server: only the billing ones are checked here)."""
        return [
            check_exchange(q, r)
            for q, r in self.server.exchanges
            if q.path.startswith("/v1/billingAccounts")
        ]


@pytest.fixture
def budgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[Budgets]:
    with FakeGcp() as server:
        fake = FakeBudgets().install(server)
        fake.add_account(ACCOUNT)
        fake.add_project(PROJECT, NUMBER)
        monkeypatch.setenv(
            "MLGOV_API_ENDPOINTS",
            json.dumps({"billingbudgets": server.url, "cloudbilling": server.url}),
        )
        b = Budgets(server, fake)
        yield b
        b.methods()  # every exchange of the test, against the discovery documents
