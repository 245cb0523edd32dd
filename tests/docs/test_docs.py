"""The README's first screen is what CI and the Makefile run, and every page's examples are real.

- the quick start is two commands, and .ci/run runs the second;
- every `mlgov X` / `python -m governance X` a page shows is a real subcommand;
- every fenced python block runs, under Pulumi mocks (component examples register resources);
- every block after `<!-- sample: mlgov ARGS -->` is what `mlgov ARGS` prints (COLUMNS=110,
  from the repository root; `spend` against the test process's BigQuery emulator, which holds
  the export the demo loads (checked row for row));
  a line `…` alone stands for lines left out (tests/docs/pages.py);
- the site builds with `mkdocs build --strict`, and a broken link or anchor fails that build.
"""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import textwrap
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest

from governance.review.offline import run_under_mocks
from tests.cli.shipped_plans import use_shipped_plans
from tests.conftest import REPO
from tests.docs import pages

README = (REPO / "README.md").read_text()
ALL = pages.text()


def quick_start_commands() -> list[str]:
    return section_commands("## Quick start")


def section_commands(heading: str) -> list[str]:
    """The commands of the first sh block under a README heading."""
    section = README.split(heading, 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has no sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_make_commands_and_the_path_to_mlgov() -> None:
    assert quick_start_commands() == ["make plan", "make test"]
    # the PATH line is the quick start's next sh block, not a third command of the first
    blocks = re.findall(
        r"```sh\n(.*?)```", README.split("## Quick start", 1)[1].split("\n## ")[0], re.S
    )
    assert blocks[1].strip() == 'export PATH="$PWD/.venv/bin:$PATH"'


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run is the README's test command: the browser the report tests use, then the fast
    loop (the quick start's `make test`) and the end-to-end runs it leaves out."""
    ci = (REPO / ".ci" / "run").read_text()
    commands = [
        line.strip()
        for line in ci.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))
    ]
    readme = section_commands("## Running the tests")
    assert readme == [".ci/browser", f"{quick_start_commands()[1]} e2e"]
    assert commands == [readme[0], "export MLGOV_REQUIRE_BROWSER=1", readme[1]]


def test_a_report_test_without_a_browser_says_why_in_the_summary() -> None:
    """The report tests skip without Chromium; pytest's summary lists the reason (-rs), which
    says how to get one the way the README does."""
    import tomllib

    from tests.report.conftest import NO_BROWSER

    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]
    assert "-rs" in options["ini_options"]["addopts"].split()
    assert ".ci/browser" in NO_BROWSER and "MLGOV_CHROMIUM" in NO_BROWSER
    assert ".ci/browser" in section_commands("## Running the tests")


def test_makefile_targets_install_before_running() -> None:
    makefile = (REPO / "Makefile").read_text()
    for target in ("plan", "test"):
        rule = re.search(rf"^{target}:(.*)$", makefile, re.M)
        assert rule is not None, f"no `{target}` target"
        assert "install" in rule.group(1).split(), f"`make {target}` must install first"
    assert "uv.lock" in makefile and "--frozen" in makefile
    # `make test` builds the site strictly; `make e2e` runs the end-to-end tests, checks the
    # package as a user installs it and runs the README's first screen on a fresh clone.
    test_rule = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert {"lint", "docs"} <= set(test_rule.splitlines()[0].split())
    assert "-j 2 --output-sync=target typecheck suite" in test_rule  # pyright beside pytest
    suite_rule = makefile.split("\nsuite:", 1)[1].split("\n\n", 1)[0]
    assert "pytest -q -n 2\n" in suite_rule + "\n"
    e2e_rule = makefile.split("\ne2e:", 1)[1].split("\n\n", 1)[0]
    assert "-m 'e2e or packaging or freshclone'" in e2e_rule
    assert re.search(r"^check: test e2e$", makefile, re.M)
    docs_rule = makefile.split("\ndocs:", 1)[1].split("\n\n", 1)[0]
    assert "mkdocs build --strict" in docs_rule and "--quiet" not in docs_rule
    demo_rule = re.search(r"^demo:(.*)$", makefile, re.M)
    assert demo_rule is not None and {"install", "bqemulator"} <= set(demo_rule.group(1).split())


def test_make_dry_run_plan_uses_the_dev_stack() -> None:
    result = subprocess.run(
        ["make", "-n", "plan"], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "-m governance plan --stack dev" in result.stdout


def test_install_compiles_the_pulumi_gcp_modules_the_plans_use() -> None:
    makefile = (REPO / "Makefile").read_text()
    block = re.search(r"^GCP_MODULES := (.*?)\n(?=\S)", makefile, re.M | re.S)
    assert block is not None
    listed = set(block.group(1).replace("\\", " ").split())
    used: set[str] = set()
    for stack in ("dev", "staging", "prod"):
        doc = json.loads((REPO / "tests" / "golden" / f"plan.{stack}.json").read_text())
        used |= {r["type"].split(":")[1].split("/")[0] for r in doc["resources"]}
    # mlgov's own dynamic resources (pulumi-python:dynamic/...) are no pulumi_gcp module.
    assert listed == used - {"mlgov", "pulumi", "index", "dynamic"}


def test_the_first_screen_holds_the_two_commands_and_what_they_show() -> None:
    """The quick start (its commands, the plan it prints, the timing) is in the first 40 lines."""
    first = README.splitlines()[:40]
    assert (
        "make plan    # installs everything into .venv, then plans the dev stack offline" in first
    )
    assert any(line.startswith("make test    #") for line in first)
    assert "<!-- sample: mlgov plan --stack dev -->" in first
    prose = " ".join(" ".join(first).split())
    assert "on a fresh clone with an empty uv cache it took" in prose, prose


def test_readme_links_every_guide_and_the_demo() -> None:
    for target in (
        "docs/demo.md",
        "docs/guides/platform-engineer.md",
        "docs/guides/sre.md",
        "docs/guides/finops.md",
        "docs/guides/components.md",
        "docs/index.md",
    ):
        assert f"]({target})" in README, target
        assert (REPO / target).is_file(), target


def test_readme_installs_from_a_checkout_not_a_placeholder() -> None:
    assert "pip install ./mlgov" in README
    assert "<org>" not in ALL and "github.com/<" not in ALL


def test_readme_cli_examples_name_real_subcommands() -> None:
    from governance.cli.main import build_parser

    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    code = re.findall(r"```(?:sh|bash)\n(.*?)```", ALL, re.S) + re.findall(r"`([^`\n]+)`", ALL)
    named = re.findall(r"(?:python -m governance|mlgov) ([a-z][a-z-]*)", "\n".join(code))
    assert named
    for command in named:
        assert command in choices, command


def test_readme_python_examples_run_under_mocks() -> None:
    blocks = re.findall(r"(<!-- skip -->\n)?```python\n(.*?)```", ALL, re.S)
    runnable = [code for skip, code in blocks if not skip]
    assert len(runnable) >= 2, "the docs have no component example"
    registered: list[Any] = []
    for code in runnable:
        program = compile(textwrap.dedent(code), "docs", "exec")  # blocks in lists are indented
        registered += run_under_mocks(
            lambda program=program: exec(program, {}),  # noqa: S102 - our own documentation
            {"gcp:project": "shop-ml-dev"},
        )
    assert "gcp:workbench/instance:Instance" in {r.type for r in registered}


@pytest.fixture(scope="module")
def export_endpoint(pytestconfig: pytest.Config) -> str:
    """The BigQuery emulator the `spend` samples read: the test process's one (tests/spend).

    It holds what `make demo` loads for the projects the demo loads, and more (the staging and
    prod projects, ten more days, other datasets), which `spend --stack dev` does not read:
    test_the_spend_samples_export_holds_what_make_demo_loads checks that, without a second
    emulator started and loaded here for a few samples (seconds of a worker's time).
    """
    from tests.spend.emulator import shared_export

    return shared_export(pytestconfig).url


def test_the_spend_samples_export_holds_what_make_demo_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each table `make demo` loads is, for the projects and days it holds, the same rows in the
    emulator the samples read: the same table names and schemas, row for row in order."""
    from governance.demo import export as demo
    from tests.spend import emulator as shared

    class NoCloud:
        """`load_month`'s emulator, never asked for anything but a client it hands to load_rows."""

        def client(self, project: str | None = None) -> object:
            return object()

    loaded: dict[str, tuple[Any, list[dict[str, Any]]]] = {}

    def record(client: object, table_id: str, schema: Any, rows: Any) -> int:
        loaded[table_id] = (schema, list(rows))
        return len(loaded[table_id][1])

    monkeypatch.setattr(demo, "load_rows", record)
    now = datetime.now(UTC)
    demo.load_month(cast(Any, NoCloud()), shared.PROJECT, now)
    held = {table.id: table for table in shared.billing_export(now)}
    assert list(loaded) == list(demo.table_ids(shared.PROJECT))
    for table_id, (schema, rows) in loaded.items():
        projects = {r["project"]["id"] for r in rows}
        assert shared.PROJECT in projects, table_id  # the dev stack's project: what spend reads
        first = min(r["usage_start_time"] for r in rows)
        same = [
            r
            for r in held[table_id].rows
            if r["project"]["id"] in projects and r["usage_start_time"] >= first
        ]
        assert held[table_id].schema == schema, table_id
        assert same == rows, table_id


PRINTED: dict[str, list[str]] = {}
"""What each sample's command printed: pages quoting the same command are checked against one run."""


def run_sample(args: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What `mlgov ARGS` prints, as the docs quote it (run in this process, once per command)."""
    from governance.cli.main import main

    if args not in PRINTED:
        capsys.readouterr()
        main(args.split())
        PRINTED[args] = capsys.readouterr().out.splitlines()
    return list(PRINTED[args])


@pytest.mark.parametrize("sample", list(pages.samples()), ids=lambda s: s.id)
def test_sample_output_is_real(
    sample: pages.Sample,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    assert sample.args is not None
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("COLUMNS", "110")
    use_shipped_plans(monkeypatch)  # the shipped stacks are planned once (the samples print them)
    if sample.args.startswith("spend"):
        url = request.getfixturevalue("export_endpoint")
        monkeypatch.setenv("MLGOV_API_ENDPOINTS", json.dumps({"bigquery": url}))
    actual = run_sample(sample.args, capsys)
    assert pages.matches(sample.lines, actual), (
        f"{sample.id} is stale; `python -m tests.docs.samples --write` updates it. Now:\n"
        + "\n".join(actual)
    )


def test_the_sample_matcher_can_fail() -> None:
    assert pages.matches(["a", "…", "d"], ["a", "b", "c", "d"])
    assert not pages.matches(["a", "…", "e"], ["a", "b", "c", "d"])
    assert not pages.matches(["a"], ["a", "b"])
    assert pages.found_in(["b", "c"], ["a", "b", "c", "d"])
    assert not pages.found_in(["b", "d"], ["a", "b", "c", "d"])


def test_every_page_quotes_real_output_somewhere() -> None:
    """The guides show output (checked above), not prose alone."""
    quoted = {s.page.relative_to(REPO).as_posix() for s in pages.samples()}
    quoted |= {s.page.relative_to(REPO).as_posix() for s in pages.demo_samples()}
    assert {
        "README.md",
        "docs/demo.md",
        "docs/guides/sre.md",
        "docs/guides/finops.md",
        "docs/reference/policies.md",
    } <= quoted


def test_policy_rule_table_lists_the_rule_index() -> None:
    """The policies page's rule table is `registry.RULES`: same order, level, description, why."""
    from mlgov_policies.registry import RULES

    page = (REPO / "docs" / "reference" / "policies.md").read_text()
    section = page.split("## Rules\n\n", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ") for line in section.splitlines()[2:]]
    table = [
        (name.strip("| `"), level, checks, why.removesuffix(" |"))
        for name, level, checks, why in rows
    ]
    assert table == [(r.name, r.enforcement, r.description, r.why) for r in RULES]


@dataclass(frozen=True)
class Build:
    built: bool
    warnings: str  # what the build logged at WARNING and above, one message a line


def mkdocs(config: Path, monkeypatch: pytest.MonkeyPatch) -> Build:
    """`mkdocs build --strict -f CONFIG -d DIR/site`, in this process.

    What the command runs (mkdocs/__main__.py's build_command: load the config, the plugins'
    startup, build, their shutdown), without a new interpreter per build; strict mode counts the
    warnings on the `mkdocs` logger and aborts the build, as the command does.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    # The theme's end-of-life notice: off, and the variable its import sets is put back after.
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        cfg = load_config(str(config), strict=True, site_dir=str(config.parent / "site"))
        cfg.plugins.on_startup(command="build", dirty=False)
        try:
            build(cfg)
        finally:
            cfg.plugins.on_shutdown()
    except Abort:
        return Build(False, logged.getvalue())
    finally:
        logger.removeHandler(handler)
    return Build(True, logged.getvalue())


def test_the_site_builds_strictly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "mkdocs.yml"
    text = (REPO / "mkdocs.yml").read_text().replace("docs_dir: docs", f"docs_dir: {REPO / 'docs'}")
    config.write_text(text)
    done = mkdocs(config, monkeypatch)
    assert done.built, done.warnings
    assert (tmp_path / "site" / "guides" / "sre.html").is_file()  # opens from disk


@pytest.mark.parametrize(
    ("link", "complaint"),
    [
        ("[x](guides/sre.md#no-such-heading)", "does not contain an anchor"),
        ("[x](guides/nowhere.md)", "not found among documentation files"),
        ("[x](#nothing-here)", "no such anchor on this page"),
    ],
)
def test_a_broken_link_or_anchor_fails_the_build(
    tmp_path: Path, link: str, complaint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The strict build with mkdocs.yml's validation settings refuses each kind of broken link."""
    import shutil

    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs)
    index = docs / "index.md"
    index.write_text(index.read_text() + f"\n{link}\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text((REPO / "mkdocs.yml").read_text())
    done = mkdocs(config, monkeypatch)
    assert not done.built
    assert complaint in done.warnings, done.warnings


def test_code_in_lists_is_indented_as_mkdocs_reads_it() -> None:
    """Python-Markdown nests a block in a list item only at 4 spaces (GitHub takes fewer)."""
    for page in sorted((REPO / "docs").rglob("*.md")):
        for number, line in enumerate(page.read_text().splitlines(), 1):
            assert not re.match(r"^ {1,3}```", line), f"{page.relative_to(REPO)}:{number}"
