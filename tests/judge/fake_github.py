"""A local stand-in for the three GitHub REST calls the judge makes (tests only, 127.0.0.1).

Shapes follow GitHub's REST reference (API version 2022-11-28): a pull request
(`GET /repos/{owner}/{repo}/pulls/{n}`: `number`, `user.login`, `head.sha`, `base.sha`), its reviews
(`GET .../pulls/{n}/reviews`: a JSON array, oldest first, each `id`, `user.login`, `state`,
`commit_id`, `submitted_at`; `per_page`/`page` paging) and a team membership
(`GET /orgs/{org}/teams/{slug}/memberships/{user}`: `{"url", "role", "state"}`, 404 when not a
member). Every request is recorded with its Authorization header.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


@dataclass
class FakeGitHub:
    """The PR's state; edit it between calls."""

    repo: str = "acme/ml-platform"
    number: int = 7
    author: str = "mallory"
    head_sha: str = "0" * 40
    base_sha: str = "1" * 40
    reviews: list[dict[str, Any]] = field(default_factory=list)
    teams: dict[str, set[str]] = field(default_factory=dict)
    """`org/slug` -> member logins."""
    forbidden_teams: set[str] = field(default_factory=set)
    """Teams the token may not read (403)."""
    requests: list[tuple[str, str]] = field(default_factory=list)
    """(path with query, Authorization header)."""
    url: str = ""

    def review(self, login: str, state: str = "APPROVED", commit: str | None = None) -> None:
        """Add a review (latest last, as GitHub lists them)."""
        self.reviews.append({
            "id": 1000 + len(self.reviews),
            "node_id": f"PRR_{len(self.reviews)}",
            "user": {"login": login, "id": 42, "type": "User"},
            "body": "",
            "state": state,
            "html_url": f"https://github.com/{self.repo}/pull/{self.number}",
            "author_association": "MEMBER",
            "submitted_at": "2026-11-28T10:00:00Z",
            "commit_id": commit or self.head_sha,
        })  # fmt: skip

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        pulls = f"/repos/{self.repo}/pulls/{self.number}"
        if path == pulls:
            return 200, {
                "number": self.number, "state": "open",
                "user": {"login": self.author, "id": 7, "type": "User"},
                "head": {"sha": self.head_sha, "ref": "feature", "repo": {"full_name": self.repo}},
                "base": {"sha": self.base_sha, "ref": "main", "repo": {"full_name": self.repo}},
            }  # fmt: skip
        if path == f"{pulls}/reviews":
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            return 200, self.reviews[(page - 1) * per_page : page * per_page]
        if m := re.fullmatch(r"/orgs/([^/]+)/teams/([^/]+)/memberships/([^/]+)", path):
            team = f"{m.group(1)}/{m.group(2)}"
            if team in self.forbidden_teams:
                return 403, {"message": "Resource not accessible by integration"}
            if m.group(3) in self.teams.get(team, set()):
                return 200, {"url": f"{self.url}{path}", "role": "member", "state": "active"}
            return 404, {"message": "Not Found"}
        return 404, {"message": "Not Found"}


@contextmanager
def serve(state: FakeGitHub) -> Iterator[FakeGitHub]:
    """Serve `state` on 127.0.0.1 (an ephemeral port) for the duration of the block."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parsed = urlparse(self.path)
            state.requests.append((self.path, self.headers.get("Authorization", "")))
            status, body = state.answer(parsed.path, parse_qs(parsed.query))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
