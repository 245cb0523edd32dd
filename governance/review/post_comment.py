"""Posting the PR comment to GitHub: mlgov's one comment on a pull request, created or updated.

`mlgov comment --post github` (cli/post.py) hands its body here. The comment is found again by
`MARKER` (defined here, where the comment is found again; comment.py writes it first in the
body it renders, and a body without it gets it first) among the comments of one
author, the poster (`github-actions[bot]`, the workflow token's account, unless told otherwise):
another account quoting the marker is never updated. Calls, at `GITHUB_API_URL` with
`GITHUB_TOKEN` (GitHub's REST API, version 2022-11-28, through judge/github.py's client):

- `GET /repos/{repo}/issues/{n}/comments` (every page, 100 a page): the existing comment. The
  next page is the one the answer's `Link` header names (rel="next"), followed only on the same
  API (scheme, host, port and path prefix: the request carries the token); an answer without a
  Link header is the last page when it is short. At most MAX_PAGES pages;
- `PATCH /repos/{repo}/issues/comments/{id}` to update it, else
  `POST /repos/{repo}/issues/{n}/comments` to create it.

A body over GitHub's 65,536 characters is cut at a line, with a note (comment.py already folds
its own to fit; this guards anything else). Every refusal is a `GitHubError` whose message says
what GitHub refused and what to check (401: the token; 403: the token's permissions or a rate
limit; 404: the repository or the pull request); never a traceback. Where the pull request
number comes from (an option, or the workflow's event payload) is decided here too.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from governance.review.judge.github import DEFAULT_API, MAX_PAGES, Client, GitHubError
from governance.text.fit import GITHUB_LIMIT
from mlgov_policies.props import as_mapping

MARKER = "<!-- mlgov-plan-comment -->"
"""The first line of mlgov's PR comment: how the poster finds its own comment again."""
BOT = "github-actions[bot]"
"""The account a workflow's GITHUB_TOKEN comments as."""
PER_PAGE = 100
CUT_NOTE = (
    "\n\n(This comment was cut to fit GitHub's limit of {limit:,} characters; the full report "
    "has everything.)\n"
)
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_PAGE_RELATIONS = frozenset({"next", "prev", "first", "last"})


@dataclass(frozen=True)
class Posted:
    """What was done: `created` or `updated`, the comment's id and its address."""

    action: str
    id: int
    url: str


def marked(body: str, limit: int = GITHUB_LIMIT) -> str:
    """`body` with the marker (added first when missing), cut to `limit` characters at a line."""
    if MARKER not in body:
        body = f"{MARKER}\n{body}"
    if len(body) <= limit:
        return body
    note = CUT_NOTE.format(limit=limit)
    kept = body[: limit - len(note)]
    if (line := kept.rfind("\n")) > len(MARKER):
        kept = kept[:line]
    return kept + note


def own_comment(comments: Sequence[Mapping[str, Any]], author: str) -> int | None:
    """The id of the first of `author`'s comments that carries the marker, if any (pure)."""
    for c in comments:
        user: Any = c.get("user")
        login = cast(Mapping[str, Any], user).get("login") if isinstance(user, Mapping) else None
        body, id_ = c.get("body"), c.get("id")
        mine = isinstance(login, str) and login.lower() == author.lower()
        if mine and isinstance(body, str) and MARKER in body and isinstance(id_, int):
            return id_
    return None


def refused(status: int, answer: Any, what: str, repo: str, number: int) -> GitHubError:
    """The error for a call GitHub refused, saying what to check."""
    said: Any = as_mapping(answer).get("message")
    detail = f"HTTP {status}" + (f": {str(said)[:200]}" if said else "")
    if status == 401:
        hint = "GITHUB_TOKEN is not accepted (expired, revoked or not a token)"
    elif status == 403 and "rate limit" in str(said).lower():
        hint = "GitHub's rate limit was reached: try again later"
    elif status == 403:
        hint = (
            "the token may not write to pull requests: give the workflow job "
            "`permissions: pull-requests: write` (a fork's pull_request run never gets it)"
        )
    elif status == 404:
        hint = (
            f"no pull request {number} in {repo}, or the token cannot see that repository "
            "(check GITHUB_REPOSITORY and --pr)"
        )
    else:
        hint = "GitHub refused the request"
    return GitHubError(f"{what}: {detail}: {hint}")


def link_pages(link: str) -> dict[str, str]:
    """The pages a `Link` header names, by relation (`next`, `prev`, `first`, `last`); pure.

    Empty for no header, or one naming none of GitHub's paging relations (then the caller falls
    back to the short-page rule). requests (installed with the google-cloud clients) parses it.
    """
    if not link.strip():
        return {}
    from requests.utils import parse_header_links

    pages: dict[str, str] = {}
    for entry in parse_header_links(link):
        for rel in entry.get("rel", "").lower().split():  # `rel` may list several
            if rel in _PAGE_RELATIONS and entry.get("url"):
                pages.setdefault(rel, entry["url"])
    return pages


def _comments(client: Client, repo: str, number: int) -> list[Mapping[str, Any]]:
    """Every comment of the pull request, page by page (at most MAX_PAGES requests).

    GitHub names the next page in the `Link` header (its URL may differ from the first, e.g.
    `/repositories/ID/...`): followed only on this API (Client.on_this_api), since the request
    carries the token; a Link to anywhere else, or back to a page already read, is an error
    rather than a guess. Without a Link header the pages are counted until a short one.
    """
    path = f"/repos/{repo}/issues/{number}/comments"
    where, query = path, {"per_page": str(PER_PAGE), "page": "1"}
    read: set[str] = set()
    found: list[Mapping[str, Any]] = []
    for page in range(1, MAX_PAGES + 1):
        answer = client.answer("GET", where, query)
        if answer.status != 200:
            raise refused(answer.status, answer.json, f"GET {path}", repo, number)
        listed: Any = answer.json
        if not isinstance(listed, list):
            raise GitHubError(f"GET {path}: the answer is not a list of comments")
        listed = cast(list[Any], listed)
        items = [cast(Mapping[str, Any], c) for c in listed if isinstance(c, dict)]
        found += items
        read.add(where if not query else f"{where}?{urllib.parse.urlencode(query)}")
        pages = link_pages(answer.link)
        if not pages:  # no Link header: a short page is the last
            if len(items) < PER_PAGE:
                return found
            where, query = path, {"per_page": str(PER_PAGE), "page": str(page + 1)}
            continue
        if (following := pages.get("next")) is None:  # the Link says this is the last page
            return found
        where, query = _next_page(client, following, path), {}
        if where in read:
            raise GitHubError(f"GET {path}: the Link header's next page {following[:200]!r} "
                              "was already read: not followed again")  # fmt: skip
    raise GitHubError(f"pull request {number}: more than {MAX_PAGES * PER_PAGE} comments")


def _next_page(client: Client, url: str, path: str) -> str:
    """The Link header's next page as a path on the API; GitHubError when it points elsewhere."""
    relative = client.on_this_api(url)
    if relative is None:
        raise GitHubError(
            f"GET {path}: the Link header's next page {url[:200]!r} is not on {client.api}: not "
            "followed (the token is sent only to the API it is for; check GITHUB_API_URL)"
        )
    return relative


def post_comment(
    body: str, repo: str, number: int, *, token: str, api: str = "", author: str = BOT
) -> Posted:
    """Create or update mlgov's one comment on pull request `number` of `repo`.

    Raises:
        GitHubError: bad arguments, a refusal (named, with what to check), or no answer.
    """
    if not _REPO.fullmatch(repo):
        raise GitHubError(f"GITHUB_REPOSITORY {repo!r} is not OWNER/REPO")
    if number <= 0:
        raise GitHubError(f"pull request number {number} is not a positive number")
    client = Client(api or DEFAULT_API, token)
    text = marked(body)
    existing = own_comment(_comments(client, repo, number), author)
    if existing is not None:
        path, method, action = f"/repos/{repo}/issues/comments/{existing}", "PATCH", "updated"
    else:
        path, method, action = f"/repos/{repo}/issues/{number}/comments", "POST", "created"
    status, answer = client.send(method, path, body={"body": text})
    if status not in (200, 201):
        raise refused(status, answer, f"{method} {path}", repo, number)
    said = as_mapping(answer)
    id_: Any = said.get("id")
    return Posted(action, id_ if isinstance(id_, int) else -1, str(said.get("html_url") or ""))


def pr_number(event: Any) -> int | None:
    """The pull request of a workflow's event payload (`GITHUB_EVENT_PATH`), if it names one.

    `pull_request` and `pull_request_target` events carry `pull_request.number`, an
    `issue_comment` on a pull request `issue.number`, a `workflow_run` its
    `workflow_run.pull_requests[0].number` (empty for a fork's run: pass --pr).
    """
    if not isinstance(event, Mapping):
        return None
    e = cast(Mapping[str, Any], event)
    candidates: list[Any] = [_dig(e, "pull_request", "number")]
    issue: Any = e.get("issue")
    if isinstance(issue, Mapping) and cast(Mapping[str, Any], issue).get("pull_request"):
        candidates.append(_dig(e, "issue", "number"))
    pulls: Any = _dig(e, "workflow_run", "pull_requests")
    if isinstance(pulls, list) and pulls:
        candidates.append(_dig(cast(list[Any], pulls)[0], "number"))
    for n in candidates:
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return n
    return None


def _dig(node: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = cast(Mapping[str, Any], node).get(key)
    return node
