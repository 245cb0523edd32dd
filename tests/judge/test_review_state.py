"""The judge's own parts: which files decide governance, who owns them, who approved them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.review.judge.approvals import Approvals, review_code, teams_needed
from governance.review.judge.code import decides_governance, governance_code, read_changed
from governance.review.judge.github import latest_approvers, read_approvals
from governance.review.judge.owners import OwnerRules
from governance.review.judge.render import code_section
from tests.judge.fake_github import FakeGitHub, serve

HEAD = "a" * 40
RULES = OwnerRules(
    "*  @acme/platform\n*.md\n/docs/\n*.py @acme/platform\n/functions/ @alice @acme/functions\n"
    "/vendor/\n",
    ".github/CODEOWNERS",
)


@pytest.mark.parametrize(
    ("path", "decides"),
    [("stacks/Pulumi.prod.yaml", False), ("stacks/Pulumi.new-eu.yaml", False),
     ("README.md", False), ("docs/guides/x.md", False), ("docs/img/a.png", False),
     ("governance/README.md", False),
     ("docs/hooks.py", True), ("stacks/helper.py", True), ("stacks/Pulumi.yaml.bak", True),
     ("Pulumi.yaml", True), ("Pulumi.json", True), ("textwrap.py", True), ("yaml/__init__.py", True),
     ("uv.toml", True), (".python-version", True), ("tests/conftest.py", True),
     ("functions/govern/parse/policy.py", True), ("policies/config.prod.json", True),
     (".github/workflows/judge.yml", True), ("Makefile", True), ("bench/x.py", True)],
)  # fmt: skip
def test_everything_but_stack_files_and_prose_decides_governance(path: str, decides: bool) -> None:
    assert decides_governance(path) is decides


def test_stack_files_are_those_of_the_projects_stack_folder() -> None:
    assert decides_governance("Pulumi.prod.yaml", stack_dir=".", ext=".yaml") is False
    assert decides_governance("stacks/Pulumi.prod.yaml", stack_dir=".", ext=".yaml") is True
    assert decides_governance("stacks/Pulumi.prod.yml", stack_dir="stacks", ext=".yaml") is True
    assert governance_code(["b.py", "a.py", "a.py", "", "README.md"]) == ["a.py", "b.py"]
    assert read_changed("a.py\0dir/with\nnewline.py\0") == ["a.py", "dir/with\nnewline.py"]
    assert read_changed("a.py\nb.py\n") == ["a.py", "b.py"]


def test_owners_are_the_last_matching_rule() -> None:
    assert RULES.of("governance/x.py").teams == ("acme/platform",)
    functions = RULES.of("functions/main.py")
    assert (functions.users, functions.teams) == (("alice",), ("acme/functions",))
    assert not RULES.of("README.md").any and not RULES.of("vendor/lib.c").any
    assert RULES.of("nothing/at/all").any
    assert teams_needed(["functions/main.py", "Makefile"], RULES) == [
        "acme/functions",
        "acme/platform",
    ]


def _approvals(**kw: object) -> Approvals:
    return Approvals.from_mapping({"head_sha": HEAD, "author": "mallory", **kw})


def test_each_file_needs_one_of_its_own_owners() -> None:
    paths = ["functions/main.py", "Makefile", "vendor/lib.c"]
    state = _approvals(approved_by=["alice", "bob"], teams={"acme/platform": ["bob"]})
    review = review_code(paths, RULES, state)
    by_path = {f.path: f for f in review.files}
    assert by_path["functions/main.py"].approved_by == ("alice",)
    assert by_path["Makefile"].approved_by == ("bob (@acme/platform)",)
    assert not by_path["vendor/lib.c"].approved  # no owner: nobody can approve it
    assert [f.path for f in review.unapproved] == ["vendor/lib.c"]


def test_the_author_and_an_unreadable_state_approve_nothing() -> None:
    author = review_code(["Makefile"], RULES, _approvals(author="bob", approved_by=["bob"],
                                                          teams={"acme/platform": ["bob"]}))  # fmt: skip
    assert author.unapproved
    broken = review_code(["Makefile"], RULES, _approvals(approved_by=["bob"], error="HTTP 500",
                                                         teams={"acme/platform": ["bob"]}))  # fmt: skip
    assert broken.unapproved and broken.problem == "HTTP 500"
    assert review_code(["Makefile"], RULES, None).problem == "the review state was not read"
    assert Approvals.from_mapping({"approved_by": "everyone", "teams": [1]}).approved_by == ()


def test_the_section_blocks_only_in_prod_and_escapes_paths() -> None:
    review = review_code(["`evil`<b>.py"], RULES, _approvals())
    lines, blocking = code_section(review, prod=True)
    text = "\n".join(lines)
    assert blocking == 1 and "mlgov-governance-code-changed" in text
    import cmarkgfm  # GitHub's own renderer: the path stays text, never markup

    html = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert code_section(review, prod=False)[1] == 0
    assert code_section(review_code([], RULES, _approvals()), prod=True) == ([], 0)


def test_latest_state_setting_review_on_the_head_commit_counts() -> None:
    def review(login: str, state: str, commit: str = HEAD) -> dict[str, object]:
        return {"user": {"login": login}, "state": state, "commit_id": commit}

    reviews = [
        review("alice", "APPROVED"), review("alice", "COMMENTED"),  # a comment changes nothing
        review("bob", "APPROVED"), review("bob", "DISMISSED"),
        review("carol", "APPROVED", "b" * 40),  # an older commit
        review("dave", "CHANGES_REQUESTED"), review("dave", "APPROVED"),
        review("Erin", "APPROVED"),
    ]  # fmt: skip
    assert latest_approvers(reviews, HEAD) == ["alice", "dave", "erin"]


def test_the_review_state_is_read_from_github() -> None:
    state = FakeGitHub(head_sha=HEAD, teams={"acme/platform": {"alice"}},
                       forbidden_teams={"acme/secret"})  # fmt: skip
    for i in range(120):  # more than one page of reviews
        state.review(f"user{i}", "COMMENTED")
    state.review("alice")
    state.review("mallory")  # the author
    with serve(state):
        doc = read_approvals("acme/ml-platform", 7, HEAD, ["acme/platform", "acme/secret"],
                             state.url, "ghs_x")  # fmt: skip
    assert doc["error"] == ""
    assert doc["author"] == "mallory" and doc["approved_by"] == ["alice"]
    assert doc["teams"] == {"acme/platform": ["alice"]}
    assert "HTTP 403" in doc["unresolved_teams"]["acme/secret"]
    pages = [p for p, _ in state.requests if "/reviews" in p]
    assert pages == [
        "/repos/acme/ml-platform/pulls/7/reviews?per_page=100&page=1",
        "/repos/acme/ml-platform/pulls/7/reviews?per_page=100&page=2",
    ]
    assert {auth for _, auth in state.requests} == {"Bearer ghs_x"}


def test_a_pr_that_moved_on_or_cannot_be_read_approves_nothing() -> None:
    state = FakeGitHub(head_sha="c" * 40)
    state.review("alice", commit=HEAD)
    with serve(state):
        moved = read_approvals("acme/ml-platform", 7, HEAD, [], state.url, "t")
        missing = read_approvals("acme/ml-platform", 8, HEAD, [], state.url, "t")
    assert "a later push will be judged on its own" in moved["error"]
    assert moved["approved_by"] == []
    assert "HTTP 404" in missing["error"]
    nowhere = read_approvals("acme/ml-platform", 7, HEAD, [], "http://127.0.0.1:9", "t")
    assert "no answer" in nowhere["error"]
    bad = read_approvals("acme/ml platform", 7, "x", [], "http://127.0.0.1:9", "t")
    assert bad["error"].startswith("the repository, pull request number or head commit")
    plain = read_approvals("acme/ml-platform", 7, HEAD, [], "http://example.test", "t")
    assert "not an https API URL" in plain["error"]


def test_the_approvals_command_prints_the_state(tmp_path: Path, monkeypatch, capsys) -> None:
    from governance.cli.main import main

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    changed = tmp_path / "changed"
    changed.write_bytes(b"functions/main.py\0README.md\0")
    state = FakeGitHub(head_sha=HEAD, teams={"mlgov/maintainers": {"alice"}})
    state.review("alice")
    with serve(state):
        monkeypatch.setenv("GITHUB_API_URL", state.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghs_y")
        code = main(["approvals", "--repository", "acme/ml-platform", "--pr", "7",
                     "--head-sha", HEAD, "--changed", str(changed)])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["teams"] == {"mlgov/maintainers": ["alice"]}
    assert main(["governance-code", "--changed", str(changed)]) == 0
    assert capsys.readouterr().out == "functions/main.py\n"
    empty = tmp_path / "none"
    empty.write_bytes(b"")
    assert main(["governance-code", "--changed", str(empty)]) == 0
    assert capsys.readouterr().out == ""
