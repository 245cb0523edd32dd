"""A local stand-in for the GitHub REST calls mlgov makes (tests only, 127.0.0.1).

Shapes follow GitHub's REST reference (API version 2022-11-28): a pull request
(`GET /repos/{owner}/{repo}/pulls/{n}`: `number`, `user.login`, `head.sha`, `base.sha`), its reviews
(`GET .../pulls/{n}/reviews`: a JSON array, oldest first, each `id`, `user.login`, `state`,
`commit_id`, `submitted_at`; `per_page`/`page` paging) and a team membership
(`GET /orgs/{org}/teams/{slug}/memberships/{user}`: `{"url", "role", "state"}`, 404 when not a
member); and the pull request's comments, which `mlgov comment --post github` reads and
writes (`GET /repos/{owner}/{repo}/issues/{n}/comments`, paged like the reviews; `POST` to it
creates one, `PATCH /repos/{owner}/{repo}/issues/comments/{id}` edits one; each an issue comment:
`id`, `node_id`, `url`, `html_url`, `body`, `user`, `created_at`, `updated_at`, `issue_url`,
`author_association`); with `link_pages` its pages carry GitHub's `Link` header (`link`: any
header, for broken or hostile ones; `moved_to`: a renamed repository's 301). A body over 65,536
characters is refused with 422, as GitHub does; with `token` set any other Authorization is 401
"Bad credentials"; `read_only`: writes are 403 "Resource not accessible by integration". Every
request is recorded with its Authorization header (`requests`), every write with its method and
body (`writes`).
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
    comments: list[dict[str, Any]] = field(default_factory=list)
    """The PR's issue comments, oldest first."""
    token: str = ""
    """When set, the only Authorization accepted is `Bearer <token>` (else 401)."""
    read_only: bool = False
    """The token may read but not write (a `pull-requests: read` workflow token)."""
    writes: list[tuple[str, str, Any]] = field(default_factory=list)
    """(method, path, JSON body) of each POST/PATCH."""
    link_pages: bool = False
    """Page the comments as GitHub does: a `Link` header (rel next/last/first/prev) whose URLs
    name the repository by id (`/repositories/{repo_id}/...`), a path the fake serves too."""
    link: str | None = None
    """A `Link` header sent verbatim with every page of comments (a broken or hostile one)."""
    repo_id: int = 1296269
    moved_to: str | None = None
    """Where GETs under `/repos/{repo}` are moved, 301 (GitHub's answer for a renamed repository:
    `{url}/repositories/{repo_id}`)."""

    def comment(self, login: str, body: str) -> dict[str, Any]:
        """Add a comment by `login` (latest last, as GitHub lists them)."""
        id_ = 5000 + len(self.comments)
        made = {
            "id": id_,
            "node_id": f"IC_{id_}",
            "url": f"{self.url}/repos/{self.repo}/issues/comments/{id_}",
            "html_url": f"https://github.com/{self.repo}/pull/{self.number}#issuecomment-{id_}",
            "body": body,
            "user": {"login": login, "id": 41898282 if login.endswith("[bot]") else 42,
                     "type": "Bot" if login.endswith("[bot]") else "User"},
            "created_at": "2026-11-28T10:00:00Z",
            "updated_at": "2026-11-28T10:00:00Z",
            "issue_url": f"{self.url}/repos/{self.repo}/issues/{self.number}",
            "author_association": "NONE" if login.endswith("[bot]") else "MEMBER",
            "performed_via_github_app": None,
        }  # fmt: skip
        self.comments.append(made)
        return made

    def write(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        """A POST or PATCH: create or edit a comment of the PR."""
        self.writes.append((method, path, body))
        if self.read_only:
            return 403, {"message": "Resource not accessible by integration",
                         "documentation_url": "https://docs.github.com/rest/issues/comments"}  # fmt: skip
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str):
            return 422, {"message": 'Invalid request.\n\n"body" wasn\'t supplied.'}
        if len(text) > 65536:
            return 422, {"message": "Validation Failed", "errors": [{
                "resource": "IssueComment", "code": "custom", "field": "body",
                "message": "body is too long (maximum is 65536 characters)"}]}  # fmt: skip
        issue = f"/repos/{self.repo}/issues/{self.number}/comments"
        if method == "POST" and path == issue:
            return 201, self.comment("github-actions[bot]", text)
        if method == "PATCH" and (
            m := re.fullmatch(rf"/repos/{self.repo}/issues/comments/(\d+)", path)
        ):
            for c in self.comments:
                if c["id"] == int(m.group(1)):
                    c["body"], c["updated_at"] = text, "2026-11-28T11:00:00Z"
                    return 200, c
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}

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

    def _comment_paths(self) -> tuple[str, str]:
        """The PR's comments by repository name, and by id (the form GitHub's Link uses)."""
        tail = f"issues/{self.number}/comments"
        return f"/repos/{self.repo}/{tail}", f"/repositories/{self.repo_id}/{tail}"

    def link_header(self, path: str, query: dict[str, list[str]]) -> str | None:
        """The `Link` header of a GET (None: no header), paging the comments like GitHub."""
        if path not in self._comment_paths():
            return None
        if self.link is not None:
            return self.link
        if not self.link_pages:
            return None
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(self.comments) // per_page))
        at = f"{self.url}{self._comment_paths()[1]}?per_page={per_page}&page="
        rels = [("next", page + 1), ("last", last)] if page < last else []
        rels += [("first", 1), ("prev", page - 1)] if page > 1 else []
        return ", ".join(f'<{at}{n}>; rel="{rel}"' for rel, n in rels) or None

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
        if path in self._comment_paths():
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            return 200, self.comments[(page - 1) * per_page : page * per_page]
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
        def _serve(self, method: str) -> None:
            parsed = urlparse(self.path)
            auth = self.headers.get("Authorization", "")
            state.requests.append((self.path, auth))
            link = None
            if state.token and auth != f"Bearer {state.token}":
                status, body = 401, {"message": "Bad credentials",
                                     "documentation_url": "https://docs.github.com/rest"}  # fmt: skip
            elif (
                method == "GET"
                and state.moved_to
                and parsed.path.startswith(f"/repos/{state.repo}/")
            ):
                status, body = 301, {"message": "Moved Permanently", "url": state.moved_to}
                link = None
            elif method == "GET":
                status, body = state.answer(parsed.path, parse_qs(parsed.query))
                link = state.link_header(parsed.path, parse_qs(parsed.query))
            else:
                length = int(self.headers.get("Content-Length") or 0)
                status, body = state.write(method, parsed.path, json.loads(self.rfile.read(length)))
            data = json.dumps(body).encode()
            self.send_response(status)
            if status == 301 and state.moved_to:
                self.send_header(
                    "Location", state.moved_to + self.path[len(f"/repos/{state.repo}") :]
                )
            if link:
                self.send_header("Link", link)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_PATCH(self) -> None:
            self._serve("PATCH")

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    # shutdown() waits until serve_forever next looks at its flag: every poll_interval, 0.5 s by
    # default, which every test using this server waited out on leaving the block.
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
