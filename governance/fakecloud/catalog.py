# pyright: basic
"""Fake Cloud Billing Catalog API (services.list, services.skus.list) on top of FakeGcp.

Paths and JSON shapes are the REST API's: GET /v1/services and GET /v1/services/{id}/skus,
each paged with pageToken/nextPageToken. Data comes from a recorded-shape fixture
(tests/costs/data/cloudbilling-catalog.json; its "_source" key says where it came from).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

FIXTURE = Path(__file__).parent / "recorded" / "cloudbilling-catalog.json"


class FakeCatalog:
    """Serves services and their SKUs, `page_size` items per page."""

    def __init__(self, data: dict[str, Any] | None = None, page_size: int = 3) -> None:
        self.data = data if data is not None else json.loads(FIXTURE.read_text())
        self.page_size = page_size

    def install(self, fake: FakeGcp) -> FakeGcp:
        fake.route("GET", r"/v1/services", self._services)
        fake.route("GET", r"/v1/services/([^/]+)/skus", self._skus)
        return fake

    def _page(self, items: list[Any], request: Request, key: str) -> Reply:
        start = int((request.query.get("pageToken") or ["0"])[0] or 0)
        end = start + self.page_size
        body: dict[str, Any] = {key: items[start:end]}
        body["nextPageToken"] = str(end) if end < len(items) else ""
        return Reply(200, body)

    def _services(self, request: Request, match: re.Match[str]) -> Reply:
        return self._page(self.data["services"], request, "services")

    def _skus(self, request: Request, match: re.Match[str]) -> Reply:
        service = match.group(1)
        if not any(s["serviceId"] == service for s in self.data["services"]):
            return Reply(404, error_body(404, f"service {service} not found"))
        return self._page(self.data["skus"].get(service, []), request, "skus")
