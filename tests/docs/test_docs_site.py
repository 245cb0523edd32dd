"""The docs site mlgov links to is one something publishes (issue 32, item 5): DEFAULT_DOCS_URL,
mkdocs.yml's `site_url`, the workflow that builds and publishes the site (.github/workflows/
docs.yml, GitHub Pages) and the pages that tell users where links point all agree.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from governance.text.docs_links import DEFAULT_DOCS_URL, DOCS_URL_ENV
from tests.conftest import REPO

WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"
PAGES_PROJECT_SITE = re.compile(r"https://([a-z0-9-]+)\.github\.io/([A-Za-z0-9._-]+)/")


def _mkdocs() -> dict[str, Any]:
    # mkdocs.yml may hold `!ENV`/`!!python` tags; the keys read here are plain.
    text = (REPO / "mkdocs.yml").read_text()
    return {
        key: value
        for key, value in re.findall(r"^(site_url|site_dir|strict): (\S+)$", text, re.MULTILINE)
    }


def _workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text())
    # YAML 1.1 reads the key `on` as True.
    loaded["on"] = loaded.pop(True, loaded.get("on"))
    return loaded


def test_the_default_is_a_github_pages_site_as_the_workflow_publishes() -> None:
    assert _mkdocs()["site_url"] == DEFAULT_DOCS_URL
    assert PAGES_PROJECT_SITE.fullmatch(DEFAULT_DOCS_URL), DEFAULT_DOCS_URL


def test_the_workflow_builds_strictly_on_each_push_to_the_default_branch_and_deploys() -> None:
    flow = _workflow()
    assert flow["on"]["push"]["branches"] == ["main"]
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    assert build["if"] == "github.ref_name == github.event.repository.default_branch"
    runs = [step.get("run", "") for step in build["steps"]]
    assert "make docs PY_BOOT=python" in runs
    # `make docs` is strict (a warning fails the build), as mkdocs.yml says.
    assert _mkdocs()["strict"] == "true"
    assert "mkdocs build --strict" in (REPO / "Makefile").read_text()
    uses = {step.get("uses", "").split("@")[0]: step for step in build["steps"]}
    # What the build uploads is the folder mkdocs writes.
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == _mkdocs()["site_dir"]
    assert "actions/configure-pages" in uses
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    # Nothing but the deploy job may write Pages; the build reads only.
    assert flow["permissions"] == {"contents": "read"}
    assert build["permissions"] == {"contents": "read"}


def test_the_docs_say_where_links_point_and_how_to_point_them_elsewhere() -> None:
    reference = (REPO / "docs" / "reference" / "costs.md").read_text()
    section = reference[reference.index("### Where the links point {#docs-links}") :]
    section = section[: section.index("\n#", 1)]
    for needed in (DEFAULT_DOCS_URL, DOCS_URL_ENV, "--docs-url", ".github/workflows/docs.yml"):
        assert needed in section, needed
    # In the order the code applies them: the flag, then the environment, then the default.
    assert (
        section.index("--docs-url") < section.index(DOCS_URL_ENV) < section.index(DEFAULT_DOCS_URL)
    )
    assert DEFAULT_DOCS_URL in (REPO / "docs" / "index.md").read_text()
    # No page or sample names another address as mlgov's site.
    for path in [REPO / "README.md", *(REPO / "docs").rglob("*.md")]:
        assert "readthedocs.io" not in path.read_text(), path
