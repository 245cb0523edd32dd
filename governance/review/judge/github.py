"""The review state of a pull request, read from GitHub's REST API (the judge's one I/O adapter).

Calls, with the workflow's read-only token (`GITHUB_TOKEN`, `pull-requests: read`) at
`GITHUB_API_URL` (GitHub sets it; https://api.github.com otherwise), and only there: a redirect
or a `Link` page on another scheme, host, port or path prefix is not followed with the token
(Client.on_this_api):

- `GET /repos/{repo}/pulls/{n}`: the PR's head commit must be the one judged (else the PR moved
  on and the approvals would be for other code) and its author is never counted;
- `GET /repos/{repo}/pulls/{n}/reviews` (every page): per reviewer, the latest review that sets a
  state (APPROVED, CHANGES_REQUESTED, DISMISSED; a COMMENTED review changes nothing), counted
  only when APPROVED on the head commit;
- `GET /orgs/{org}/teams/{slug}/memberships/{user}`: for each approver and each team that owns a
  changed file; 200 with `state: active` is a member. A token that may not read the team (the
  default workflow token cannot read organisation teams) leaves it unresolved, named.

`read_approvals` returns the approvals document approvals.py reads; any failure is its `error`
(nothing approved), never an exception.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

DEFAULT_API = "https://api.github.com"
TIMEOUT_SECONDS = 20.0
MAX_PAGES = 30  # 3,000 reviews: more than any PR has; a loop cannot run away
MAX_ANSWER_BYTES = 8 * 1024 * 1024
_SETS_STATE = frozenset({"APPROVED", "CHANGES_REQUESTED", "DISMISSED"})
_SHA = re.compile(r"[0-9a-f]{40}")
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_TEAM = re.compile(r"([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)")


class GitHubError(Exception):
    """A call GitHub refused, or that did not answer."""


@dataclass(frozen=True)
class Answer:
    """One answer: its HTTP status, its JSON (None when it had none) and its `Link` header."""

    status: int
    json: Any
    link: str = ""
    """GitHub's pagination (`<URL>; rel="next", ...`); empty when the answer has no Link."""


class Client:
    """GitHub's REST API at `api` with `token` (also the PR comment's poster, post_comment.py)."""

    def __init__(self, api: str, token: str) -> None:
        self.api = api.rstrip("/")
        self.token = token

    def get(self, path: str, query: Mapping[str, str] | None = None) -> tuple[int, Any]:
        """(HTTP status, the answer's JSON); an error status comes with GitHub's JSON, if any."""
        return self.send("GET", path, query)

    def send(
        self,
        method: str,
        path: str,
        query: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> tuple[int, Any]:
        """`method` on `path` with a JSON `body`: (HTTP status, the answer's JSON or None)."""
        answer = self.answer(method, path, query, body)
        return answer.status, answer.json

    def on_this_api(self, url: str) -> str | None:
        """`url` as a path (and query) on this API, or None when it points anywhere else.

        For links GitHub hands back (the `Link` header's pages): the token goes only to the API
        it was given for, so another scheme, host or port, user info, or a path outside the
        API's own (GitHub Enterprise serves it under `/api/v3`) is None, never requested.
        """
        if not url.isprintable() or any(ch.isspace() for ch in url):
            return None  # urllib would refuse it with an error of its own, or split it
        try:
            given, api = urllib.parse.urlsplit(url), urllib.parse.urlsplit(self.api)
            same_origin = _origin(given) == _origin(api)
        except ValueError:  # a port that is not a number, a malformed IPv6 host
            return None
        base = api.path.rstrip("/")
        if not same_origin or "@" in given.netloc or not given.path.startswith(f"{base}/"):
            return None
        return given.path[len(base) :] + (f"?{given.query}" if given.query else "")

    def answer(
        self,
        method: str,
        path: str,
        query: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> Answer:
        """`method` on `path` (may carry its query) with a JSON `body`: status, JSON and Link."""
        url = f"{self.api}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        if not url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise GitHubError(f"{self.api}: not an https API URL")
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = self._headers()
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data, headers, method=method)  # noqa: S310
        try:
            opener = urllib.request.build_opener(_RedirectsOnThisApi(self))
            with opener.open(request, timeout=TIMEOUT_SECONDS) as answer:
                raw = answer.read(MAX_ANSWER_BYTES + 1)
                status = int(answer.status)
                link = str(answer.headers.get("Link") or "")
        except urllib.error.HTTPError as err:
            # GitHub says why in a JSON `message` ("Bad credentials"); read it, bounded.
            try:
                said: Any = json.loads(err.read(MAX_ANSWER_BYTES))
            except (ValueError, OSError, AttributeError):  # no body, or not JSON
                said = None
            return Answer(err.code, said)
        except (urllib.error.URLError, TimeoutError, OSError) as err:
            raise GitHubError(f"{method} {path}: no answer ({err})") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise GitHubError(
                f"{method} {path}: the answer is larger than {MAX_ANSWER_BYTES} bytes"
            )
        try:
            return Answer(status, json.loads(raw), link)
        except ValueError:
            raise GitHubError(f"{method} {path}: the answer is not JSON") from None

    def _headers(self) -> dict[str, str]:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "mlgov-judge",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers


class _RedirectsOnThisApi(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only on the client's API: urllib would send the token anywhere.

    urllib's own handler copies every header, Authorization included, into the request to the
    new address, whatever its host. A redirect elsewhere is not followed: the caller gets the
    3xx answer as a refusal.
    """

    def __init__(self, client: Client) -> None:
        super().__init__()
        self._client = client

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        if self._client.on_this_api(newurl) is None:
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _origin(url: urllib.parse.SplitResult) -> tuple[str, str | None, int | None]:
    """Scheme, host and port (the scheme's default when not written), as browsers compare them."""
    default = {"https": 443, "http": 80}.get(url.scheme.lower())
    return url.scheme.lower(), url.hostname, url.port or default


def _login(value: object) -> str:
    login = cast(Mapping[str, Any], value).get("login") if isinstance(value, Mapping) else None
    return str(login).lower() if isinstance(login, str) else ""


def latest_approvers(reviews: Sequence[Mapping[str, Any]], head_sha: str) -> list[str]:
    """Reviewers whose latest state-setting review is APPROVED on `head_sha` (pure)."""
    latest: dict[str, Mapping[str, Any]] = {}
    for review in reviews:  # GitHub lists reviews oldest first
        state = str(review.get("state") or "")
        if state in _SETS_STATE and (login := _login(review.get("user"))):
            latest[login] = review
    return sorted(
        login
        for login, review in latest.items()
        if review.get("state") == "APPROVED" and review.get("commit_id") == head_sha
    )


def _reviews(client: Client, repo: str, number: int) -> list[Mapping[str, Any]]:
    found: list[Mapping[str, Any]] = []
    for page in range(1, MAX_PAGES + 1):
        status, answer = client.get(
            f"/repos/{repo}/pulls/{number}/reviews", {"per_page": "100", "page": str(page)}
        )
        if status != 200 or not isinstance(answer, list):
            raise GitHubError(f"GET /repos/{repo}/pulls/{number}/reviews: HTTP {status}")
        items = [cast(Mapping[str, Any], r) for r in cast(list[Any], answer) if isinstance(r, dict)]
        found += items
        if len(items) < 100:
            return found
    raise GitHubError(f"pull request {number}: more than {MAX_PAGES * 100} reviews")


def _membership(client: Client, team: str, user: str) -> bool | str:
    """True/False for a member or not; a string saying why it could not be read."""
    match = _TEAM.fullmatch(team)
    if match is None:
        return f"{team!r} is not an org/team name"
    org, slug = match.groups()
    status, answer = client.get(f"/orgs/{org}/teams/{slug}/memberships/{user}")
    if status == 200 and isinstance(answer, Mapping):
        return cast(Mapping[str, Any], answer).get("state") == "active"
    if status == 404:
        return False
    return (
        f"HTTP {status}: the workflow's token may not read this team (list its members in "
        "CODEOWNERS by user, or give the judge a token that may read organisation members)"
    )


def _author(client: Client, repo: str, number: int, head_sha: str) -> str:
    """The PR's author; GitHubError unless the PR's head is still the judged commit."""
    status, pull = client.get(f"/repos/{repo}/pulls/{number}")
    if status != 200 or not isinstance(pull, Mapping):
        raise GitHubError(f"GET /repos/{repo}/pulls/{number}: HTTP {status}")
    pr = cast(Mapping[str, Any], pull)
    head = cast(Mapping[str, Any], pr.get("head") or {})
    if head.get("sha") != head_sha:
        raise GitHubError(
            f"the pull request's head is now {str(head.get('sha'))[:12]}, not the judged "
            f"{head_sha[:12]}: a later push will be judged on its own"
        )
    return _login(pr.get("user"))


def read_approvals(
    repo: str, number: int, head_sha: str, teams: Sequence[str], api: str, token: str
) -> dict[str, Any]:
    """The approvals document for `head_sha` of PR `number` (`error` set when unreadable)."""
    doc: dict[str, Any] = {
        "repository": repo,
        "pull": number,
        "head_sha": head_sha,
        "author": "",
        "approved_by": [],
        "teams": {},
        "unresolved_teams": {},
        "error": "",
    }
    if not _REPO.fullmatch(repo) or not _SHA.fullmatch(head_sha) or number <= 0:
        doc["error"] = "the repository, pull request number or head commit is malformed"
        return doc
    client = Client(api or DEFAULT_API, token)
    try:
        doc["author"] = _author(client, repo, number, head_sha)
        approvers = [a for a in latest_approvers(_reviews(client, repo, number), head_sha)]
        doc["approved_by"] = [a for a in approvers if a != doc["author"]]
        for team in teams:
            for user in doc["approved_by"]:
                member = _membership(client, team, user)
                if isinstance(member, str):
                    doc["unresolved_teams"][team] = member
                elif member:
                    doc["teams"].setdefault(team, []).append(user)
    except GitHubError as err:
        doc["error"] = str(err)
    return doc
