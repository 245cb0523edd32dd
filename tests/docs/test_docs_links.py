"""Links in the PR comment and the plan's notes go to the published docs site (issue 32 item 5),
not to repository paths (`docs/reference/preview.md`) that a team's own repository does not have.
"""

from __future__ import annotations

import re

import pytest

from governance.cli.main import main
from governance.errors import Exit
from governance.text.docs_links import DEFAULT_DOCS_URL, DOCS_URL_ENV, linked_markdown, linked_text
from tests.cli.shipped_plans import use_shipped_plans
from tests.conftest import REPO

COMMENT = ["comment", "--stack", "dev", "docs/examples/base.json", "docs/examples/head.json"]
REPO_PATH = re.compile(r"\bdocs/[a-z/-]+\.md")


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.delenv(DOCS_URL_ENV, raising=False)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_default_is_the_site_mkdocs_publishes() -> None:
    site_url = re.search(r"^site_url: (\S+)$", (REPO / "mkdocs.yml").read_text(), re.M)
    assert site_url is not None
    assert site_url.group(1) == DEFAULT_DOCS_URL


def test_the_comment_links_to_the_docs_site_not_to_repository_paths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _code, out, _err = run(COMMENT, capsys)
    assert not REPO_PATH.search(out), REPO_PATH.findall(out)
    links = re.findall(r"\]\((https://[^)]+)\)", out)
    assert f"{DEFAULT_DOCS_URL}reference/costs.html" in links


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_team_points_the_links_at_its_own_copy(
    how: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = "https://docs.example.com/platform/mlgov"
    argv = [*COMMENT, "--docs-url", site] if how == "flag" else COMMENT
    if how == "env":
        monkeypatch.setenv(DOCS_URL_ENV, site)
    _code, out, _err = run(argv, capsys)
    assert f"]({site}/reference/costs.html)" in out
    assert DEFAULT_DOCS_URL not in out
    # One run's choice: the next caller in this process links to the default again.
    monkeypatch.delenv(DOCS_URL_ENV, raising=False)
    assert linked_text("docs/guides/sre.md") == f"{DEFAULT_DOCS_URL}guides/sre.html"


def test_the_plan_text_and_markdown_link_their_notes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    use_shipped_plans(monkeypatch)  # the links are in the printing: dev is planned once
    for argv in (["plan", "-s", "dev"], ["plan", "-s", "dev", "--markdown"]):
        code, out, _err = run(argv, capsys)
        assert code == Exit.OK
        assert not REPO_PATH.search(out), (argv, REPO_PATH.findall(out))
        assert f"{DEFAULT_DOCS_URL}reference/costs.html#usage-file" in out


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "https://x.example/a)b", "https://x.example/a b", "ftp://x"]
)
def test_a_url_that_cannot_be_linked_safely_is_refused(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*COMMENT, "--docs-url", url], capsys)
    assert code == Exit.INVALID
    assert out == ""
    assert err.startswith("mlgov: error: --docs-url: ")


def test_escaped_citations_become_links_and_anchors_are_kept() -> None:
    escaped = (
        r"add its price \(docs/reference/costs.md\); see docs/reference/costs.md#&#8203;usage-file"
    )
    assert linked_markdown(escaped) == (
        rf"add its price \([reference/costs]({DEFAULT_DOCS_URL}reference/costs.html)\); see "
        f"[reference/costs]({DEFAULT_DOCS_URL}reference/costs.html#usage-file)"
    )
    assert linked_text("(docs/guides/sre.md)") == f"({DEFAULT_DOCS_URL}guides/sre.html)"


def test_every_page_the_code_cites_is_a_page_of_the_site() -> None:
    cited = {
        m.group(1)
        for path in (REPO / "governance").rglob("*.py")
        for m in re.finditer(r"docs/([a-z0-9/-]+)\.md", path.read_text())
    }
    assert "reference/costs" in cited
    missing = sorted(page for page in cited if not (REPO / "docs" / f"{page}.md").exists())
    assert not missing
