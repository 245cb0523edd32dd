"""`mlgov comment --post github` reads the PR's comments page by page as GitHub pages them: the
`Link` header's rel="next" (issue 32), followed only on the API the token is for; without a Link
header, pages are counted until a short one (tests/cli/test_comment_post.py covers that rule).

Against the local fake of GitHub's REST API (tests/judge/fake_github.py on 127.0.0.1), which
pages the comments with GitHub's Link header (URLs naming the repository by id, as GitHub's do).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.review.comment import MARKER
from governance.review.judge.github import Client
from governance.review.post_comment import link_pages
from tests.judge.fake_github import FakeGitHub, serve

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TOKEN = "ghs_fake-token"
BOT = "github-actions[bot]"
PLANS = ["--stack", "dev", str(GOLDEN / "plan.dev.json"), str(GOLDEN / "plan.dev.json")]
COMMENTS = "/issues/7/comments"


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with serve(FakeGitHub(token=TOKEN, link_pages=True)) as state:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_REPOSITORY", state.repo)
        monkeypatch.setenv("GITHUB_API_URL", state.url)
        monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
        yield state


@pytest.fixture
def elsewhere() -> Iterator[FakeGitHub]:
    """Another server on 127.0.0.1 (another port): where a hostile Link would send the token."""
    with serve(FakeGitHub(link_pages=True)) as state:
        yield state


def _post() -> int:
    return main(["comment", *PLANS, "--pr", "7", "--post", "github"])


def _listed(github: FakeGitHub) -> list[str]:
    return [p for p, _ in github.requests if f"{COMMENTS}?" in p]  # the GETs (with a query)


def _assert_updated_with_the_token(github: FakeGitHub, mine: dict[str, Any]) -> None:
    """The first write updated `mine` in place, and every request carried the token."""
    assert github.writes[0][:2] == (
        "PATCH",
        f"/repos/acme/ml-platform/issues/comments/{mine['id']}",
    )
    assert {auth for _, auth in github.requests} == {f"Bearer {TOKEN}"}


def test_the_link_headers_next_page_is_followed(github: FakeGitHub) -> None:
    for i in range(230):
        github.comment("alice", f"comment {i}")
    mine = github.comment(BOT, f"{MARKER}\nold verdict")  # on the third page
    assert _post() == 0
    assert _listed(github) == [
        "/repos/acme/ml-platform/issues/7/comments?per_page=100&page=1",
        # The URLs the Link header named (by repository id), not page numbers counted here.
        "/repositories/1296269/issues/7/comments?per_page=100&page=2",
        "/repositories/1296269/issues/7/comments?per_page=100&page=3",
    ]
    _assert_updated_with_the_token(github, mine)


def test_a_full_last_page_ends_the_listing_when_the_link_names_no_next(
    github: FakeGitHub,
) -> None:
    for i in range(199):
        github.comment("alice", f"comment {i}")
    github.comment(BOT, f"{MARKER}\nold verdict")  # 200 comments: two full pages
    assert _post() == 0
    # The short-page rule would ask for an empty third page; the Link says page 2 is the last.
    assert len(_listed(github)) == 2
    assert [w[0] for w in github.writes] == ["PATCH"]


@pytest.mark.parametrize(
    "target",
    [
        "{elsewhere}/repos/acme/ml-platform/issues/7/comments?page=2",  # another port
        "https://evil.example/repos/acme/ml-platform/issues/7/comments?page=2",
        "{api_scheme_less}@evil.example/repos/acme/ml-platform/issues/7/comments?page=2",
        "//evil.example/repos/acme/ml-platform/issues/7/comments?page=2",  # scheme-relative
        "/repos/acme/ml-platform/issues/7/comments?page=2",  # relative: no host given
        "{api}/repos/acme/ml-platform/issues/7/comments?page=2 extra",  # not one URL
    ],
    ids=["other-port", "other-host", "userinfo", "scheme-relative", "relative", "spaces"],
)
def test_a_link_off_the_api_is_not_followed_and_nothing_is_posted(
    github: FakeGitHub,
    elsewhere: FakeGitHub,
    capsys: pytest.CaptureFixture[str],
    target: str,
) -> None:
    for i in range(100):
        github.comment("alice", f"comment {i}")
    url = target.format(elsewhere=elsewhere.url, api=github.url, api_scheme_less=github.url)
    github.link = f'<{url}>; rel="next"'
    assert _post() == 4
    err = capsys.readouterr().err
    assert err.startswith("mlgov: error: --post github: GET /repos/acme/ml-platform/issues/7/")
    assert "the Link header's next page" in err and "is not on" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert elsewhere.requests == []  # the token went nowhere else
    assert len(_listed(github)) == 1  # the first page only
    assert github.writes == []  # no second comment made for want of the pages not read


def test_a_link_back_to_a_page_already_read_stops_with_an_error(
    github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    github.comment("alice", "hello")
    github.link = (
        f'<{github.url}/repos/acme/ml-platform/issues/7/comments?per_page=100&page=1>; rel="next"'
    )
    assert _post() == 4
    assert "was already read: not followed again" in capsys.readouterr().err
    assert len(_listed(github)) == 1
    assert github.writes == []


def test_a_link_with_no_paging_relation_falls_back_to_the_short_page_rule(
    github: FakeGitHub,
) -> None:
    for i in range(150):
        github.comment("alice", f"comment {i}")
    github.link = "garbage"
    assert _post() == 0
    assert [p.split("page=")[-1] for p in _listed(github)] == ["1", "2"]
    assert [w[0] for w in github.writes] == ["POST"]


def test_the_link_header_is_read_by_relation() -> None:
    api = "https://api.github.com/repositories/1/issues/7/comments?per_page=100"
    header = f'<{api}&page=1>; rel="prev", <{api}&page=3>; rel="next", <{api}&page=5>; rel=last'
    assert link_pages(header) == {
        "prev": f"{api}&page=1",
        "next": f"{api}&page=3",
        "last": f"{api}&page=5",
    }
    assert link_pages("") == {}
    assert link_pages("garbage") == {}
    assert link_pages('<https://x.example/a>; rel="alternate"') == {}
    assert link_pages('<https://x.example/a>; rel="next last"') == {
        "next": "https://x.example/a",
        "last": "https://x.example/a",
    }


@pytest.mark.parametrize(
    ("api", "url", "path"),
    [
        ("https://api.github.com", "https://api.github.com/repositories/1/x?page=2",
         "/repositories/1/x?page=2"),
        ("https://api.github.com/", "https://API.github.com:443/x", "/x"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/repositories/1/x",
         "/repositories/1/x"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com/other/x", None),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3x/x", None),
        ("https://api.github.com", "http://api.github.com/x", None),
        ("https://api.github.com", "https://api.github.com.evil.example/x", None),
        ("https://api.github.com", "https://api.github.com:8443/x", None),
        ("https://api.github.com", "https://token@api.github.com/x", None),
        ("https://api.github.com", "https://api.github.com:notaport/x", None),
        ("https://api.github.com", "https://api.github.com/x\r\nHost: evil", None),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8081/x", None),
    ],
)  # fmt: skip
def test_only_urls_on_the_api_itself_are_requested(api: str, url: str, path: str | None) -> None:
    assert Client(api, TOKEN).on_this_api(url) == path


def test_a_renamed_repositorys_redirect_on_the_api_is_followed(github: FakeGitHub) -> None:
    github.moved_to = f"{github.url}/repositories/{github.repo_id}"
    mine = github.comment(BOT, f"{MARKER}\nold verdict")
    assert _post() == 0
    assert _listed(github)[:2] == [
        "/repos/acme/ml-platform/issues/7/comments?per_page=100&page=1",
        "/repositories/1296269/issues/7/comments?per_page=100&page=1",
    ]
    _assert_updated_with_the_token(github, mine)


def test_a_redirect_off_the_api_is_not_followed_with_the_token(
    github: FakeGitHub, elsewhere: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    # urllib's own redirect handler copies Authorization to any host it is sent to.
    github.moved_to = f"{elsewhere.url}/repos/{github.repo}"
    assert _post() == 4
    err = capsys.readouterr().err
    assert "HTTP 301" in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert elsewhere.requests == []
    assert github.writes == []
