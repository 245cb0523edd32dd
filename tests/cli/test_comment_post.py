"""`mlgov comment --post github`: mlgov's one PR comment created, then updated, over GitHub's REST
API, against the local fake of it (tests/judge/fake_github.py on 127.0.0.1).

Run in-process through the CLI's `main`, with the environment a workflow gives
(`GITHUB_TOKEN`, `GITHUB_REPOSITORY`, `GITHUB_API_URL`, `GITHUB_EVENT_PATH`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.review.comment import MARKER
from governance.review.post_comment import marked, pr_number
from tests.judge.fake_github import FakeGitHub, serve

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TOKEN = "ghs_fake-token"
BOT = "github-actions[bot]"
PLANS = ["--stack", "dev", str(GOLDEN / "plan.dev.json"), str(GOLDEN / "plan.dev.json")]


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with serve(FakeGitHub(token=TOKEN)) as state:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_REPOSITORY", state.repo)
        monkeypatch.setenv("GITHUB_API_URL", state.url)
        monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
        yield state


def _post(*args: str) -> int:
    return main(["comment", *args, "--post", "github"])


def test_the_comment_is_created_once_then_updated_in_place(github: FakeGitHub, capsys) -> None:
    assert _post(*PLANS, "--pr", "7") == 0
    printed = capsys.readouterr()
    assert github.writes[0][:2] == ("POST", "/repos/acme/ml-platform/issues/7/comments")
    [made] = github.comments
    assert made["body"] == printed.out and made["body"].startswith(MARKER)
    assert f"mlgov: created the comment on acme/ml-platform#7: {made['html_url']}" in printed.err
    github.comments[0]["body"] += "stale"
    assert _post(*PLANS, "--pr", "7") == 0
    assert github.writes[1][:2] == (
        "PATCH",
        f"/repos/acme/ml-platform/issues/comments/{made['id']}",
    )
    assert len(github.comments) == 1 and github.comments[0]["body"] == printed.out
    assert "mlgov: updated the comment" in capsys.readouterr().err
    assert {auth for _, auth in github.requests} == {f"Bearer {TOKEN}"}


def test_every_page_is_read_and_only_the_posters_marked_comment_is_updated(
    github: FakeGitHub,
) -> None:
    for i in range(230):
        github.comment("alice", f"comment {i}")
    github.comment("mallory", f"{MARKER}\nquoting the marker")  # another account: never updated
    for i in range(20):
        github.comment("bob", f"later {i}")
    mine = github.comment(BOT, f"{MARKER}\nold verdict")
    assert _post(*PLANS, "--pr", "7") == 0
    pages = [p for p, _ in github.requests if "/issues/7/comments?" in p]
    assert [p.split("page=")[-1] for p in pages] == ["1", "2", "3"]
    assert github.writes[0][:2] == (
        "PATCH",
        f"/repos/acme/ml-platform/issues/comments/{mine['id']}",
    )
    assert github.comments[230]["body"] == f"{MARKER}\nquoting the marker"


def test_a_comment_quoting_the_marker_by_someone_else_gets_a_new_one(github: FakeGitHub) -> None:
    github.comment("mallory", f"{MARKER}\nfake verdict")
    assert _post(*PLANS, "--pr", "7") == 0
    assert [w[0] for w in github.writes] == ["POST"]
    assert github.comments[0]["body"] == f"{MARKER}\nfake verdict"


def test_the_verdict_is_still_the_exit_code(github: FakeGitHub, tmp_path: Path) -> None:
    head = json.loads((GOLDEN / "plan.dev.json").read_text())
    head["violations"] = [
        {"policy": "mlgov-labels-required", "resource": "nb", "type": "gcp:x/y:Z",
         "enforcement": "mandatory", "message": "no labels"}
    ]  # fmt: skip
    (tmp_path / "head.json").write_text(json.dumps(head))
    base = str(GOLDEN / "plan.dev.json")
    assert _post("--stack", "dev", base, str(tmp_path / "head.json"), "--pr", "7") == 1
    assert "mlgov-labels-required" in github.comments[0]["body"]


def test_the_pr_comes_from_the_event_payload(github: FakeGitHub, tmp_path, monkeypatch) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 7,
                                 "pull_request": {"number": 7, "head": {"sha": "0" * 40}}}))  # fmt: skip
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    assert _post(*PLANS) == 0
    assert github.writes[0][1] == "/repos/acme/ml-platform/issues/7/comments"


def test_pr_numbers_of_each_event_kind() -> None:
    assert pr_number({"pull_request": {"number": 3}}) == 3
    assert pr_number({"issue": {"number": 4, "pull_request": {"url": "x"}}}) == 4
    assert pr_number({"issue": {"number": 4}}) is None  # an issue, not a pull request
    assert pr_number({"workflow_run": {"pull_requests": [{"number": 5}]}}) == 5
    assert pr_number({"workflow_run": {"pull_requests": []}}) is None  # a fork's run
    assert pr_number({"pull_request": {"number": True}}) is None
    assert pr_number(["not", "an", "event"]) is None


def test_a_rendered_comment_is_posted_from_a_file(github: FakeGitHub, tmp_path: Path) -> None:
    body = tmp_path / "comment.md"
    body.write_text("## mlgov plan\n\nThe judge failed.\n")  # no marker: one is added
    assert _post("--body-file", str(body), "--pr", "7") == 0
    assert github.comments[0]["body"] == f"{MARKER}\n## mlgov plan\n\nThe judge failed.\n"
    assert _post("--body-file", str(body), "--pr", "7") == 0
    assert [w[0] for w in github.writes] == ["POST", "PATCH"]


def test_a_body_over_githubs_limit_is_cut_at_a_line_with_a_note(github, tmp_path) -> None:
    long = MARKER + "\n" + "".join(f"| row {i} | {'x' * 60} |\n" for i in range(1200))
    assert len(long) > 65536
    (tmp_path / "long.md").write_text(long)
    assert _post("--body-file", str(tmp_path / "long.md"), "--pr", "7") == 0
    posted = github.comments[0]["body"]  # the fake refuses a longer one (422), as GitHub does
    assert len(posted) <= 65536 and posted.startswith(MARKER)
    kept, note = posted.split("\n\n(This comment was cut")
    assert kept.endswith("|") and long.startswith(kept)
    assert "limit of 65,536 characters" in note
    assert marked("short") == f"{MARKER}\nshort"


@pytest.mark.parametrize(
    ("setup", "pr", "problem"),
    [
        (
            lambda g, env: env.setenv("GITHUB_TOKEN", "wrong"),
            "7",
            "HTTP 401: Bad credentials: GITHUB_TOKEN is not accepted",
        ),
        (
            lambda g, env: setattr(g, "read_only", True),
            "7",
            "HTTP 403: Resource not accessible by integration: the token may not write to pull "
            "requests: give the workflow job `permissions: pull-requests: write`",
        ),
        (
            lambda g, env: None,
            "99",
            "HTTP 404: Not Found: no pull request 99 in acme/ml-platform, or the token cannot see "
            "that repository",
        ),
        (
            lambda g, env: env.setenv("GITHUB_API_URL", "http://github.example.com/api/v3"),
            "7",
            "http://github.example.com/api/v3: not an https API URL",
        ),
    ],
    ids=["401", "403", "404", "not-https"],
)
def test_github_refusing_is_exit_4_named_without_a_traceback(
    github, monkeypatch, capsys, setup, pr, problem
) -> None:
    setup(github, monkeypatch)
    assert _post(*PLANS, "--pr", pr) == 4
    err = capsys.readouterr().err
    assert err.startswith("mlgov: error: --post github: ") and problem in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert github.comments == []


@pytest.mark.parametrize(
    ("unset", "args", "problem"),
    [
        ("GITHUB_TOKEN", ["--pr", "7"], "--post github: GITHUB_TOKEN is not set"),
        ("GITHUB_REPOSITORY", ["--pr", "7"], "--post github: GITHUB_REPOSITORY is not set"),
        (
            None,
            [],
            "--post github needs the pull request: pass --pr N (GITHUB_EVENT_PATH is unset)",
        ),
        (None, ["--pr", "0"], "--pr 0: a pull request number is positive"),
    ],
)
def test_missing_settings_are_exit_2_named(github, monkeypatch, capsys, unset, args, problem):
    if unset:
        monkeypatch.delenv(unset)
    assert _post(*PLANS, *args) == 2
    assert f"mlgov: error: {problem}" in capsys.readouterr().err
    assert github.writes == []


def test_body_file_needs_post_and_no_plans(capsys, tmp_path: Path) -> None:
    (tmp_path / "c.md").write_text("x")
    assert main(["comment", "--body-file", str(tmp_path / "c.md")]) == 2
    assert "it needs --post github" in capsys.readouterr().err
    assert main(["comment", *PLANS, "--body-file", str(tmp_path / "c.md"), "--post", "github"]) == 2
    assert "give it without plans to render" in capsys.readouterr().err
