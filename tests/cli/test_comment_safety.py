"""The PR comment is safe and fits: hostile names render as text, huge stacks fold, none is lost.

Rendering is checked with cmark-gfm (GitHub's own Markdown renderer, through cmarkgfm) with raw
HTML allowed, as GitHub allows `<details>` and `<img>`: what it turns into headings, images,
links or HTML is what a reader would see. Mentions are linked by GitHub after rendering, so the
check is that no `@name` survives as plain text outside code.
"""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from bench.comment_plans import golden, weaken, with_notebooks
from governance.cli.main import main
from governance.review.comment import MARKER, Comment, StackPlans, build_comment
from governance.text import escape
from governance.text.docs_links import DEFAULT_DOCS_URL
from governance.text.fit import GITHUB_LIMIT, size

HOSTILE_STACK = "# Pwned **stack** @owner [x](https://evil.example) <img src=x onerror=alert(1)>"
HOSTILE_NAME = "notebooks-# Heading @owner ![i](https://evil.example/i.png) | x ` y <b>z</b>"
HOSTILE_OWNER = "@acme/admins <script>alert(1)</script> www.evil.example :x:"


def to_html(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def text_outside_code(rendered: str) -> str:
    without_code = re.sub(r"<code>.*?</code>", "", rendered, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", "", without_code))


def hostile_plans() -> tuple[dict[str, Any], dict[str, Any]]:
    base = golden("dev")
    head = copy.deepcopy(base)
    nb = next(r for r in head["resources"] if r["type"] == "gcp:workbench/instance:Instance")
    nb["name"] = HOSTILE_NAME
    nb["inputs"]["instanceOwners"] = [HOSTILE_OWNER]
    nb["inputs"]["labels"]["mlgov-exempt"] = "true"
    head["violations"] = [
        {"policy": "mlgov-workbench-idle-shutdown", "resource": HOSTILE_NAME,
         "type": nb["type"], "enforcement": "mandatory",
         "message": f"owner {HOSTILE_OWNER} has no idle stop\n## injected heading",
         "remediation": "[click](javascript:alert(1))"},
    ]  # fmt: skip
    return base, head


def assert_only_docs_links(rendered: str) -> None:
    """Every link of the rendered comment is one of mlgov's own, into its docs site."""
    links = re.findall(r"<a [^>]*>", rendered)
    assert links, "the comment links its cited docs pages"
    for link in links:
        assert re.fullmatch(
            rf'<a href="{re.escape(DEFAULT_DOCS_URL)}[a-z0-9/-]+\.html(#[a-z0-9-]+)?">', link
        ), link


def test_hostile_names_owners_and_messages_render_as_plain_text() -> None:
    base, head = hostile_plans()
    text = build_comment([StackPlans(HOSTILE_STACK, head, base)]).text
    rendered = to_html(text)
    # our own headings only: the title and one per shown stack
    assert re.findall(r"<h(\d)>", rendered) == ["2", "3"]
    assert "<img" not in rendered and "<script" not in rendered and "<b>" not in rendered
    # No link of the plan's (not the markdown ones, not autolinked URLs): only mlgov's own, to
    # the docs pages it cites (docs_links.py).
    assert_only_docs_links(rendered)
    assert not re.search(r"@\w", text_outside_code(rendered)), "an @mention survived"
    # ... and the hostile values are still there, as text a reader can see
    visible = html.unescape(re.sub(r"<[^>]+>", "", rendered)).replace("\u200b", "")
    assert HOSTILE_STACK in visible
    assert "owner @acme/admins <script>alert(1)</script> www.evil.example :x: has no idle stop" in (
        visible
    )
    # the finding is one table row of five cells: the pipe and the newline did not break it
    row = next(r for r in re.findall(r"<tr>.*?</tr>", rendered, re.DOTALL) if "no idle stop" in r)
    assert row.count("<td") == 5
    # the exempt label on the renamed notebook is a governance change with the hostile id intact
    assert f"{HOSTILE_NAME}.labels.mlgov-exempt" in visible


@pytest.mark.parametrize(
    "value",
    ["@owner", "#123", "https://x.example", "www.x.example", "<img src=x>", "![a](b)", "*a*",
     "a|b", "1. item", "- item", "> quote", "`code`", "\u202etxt", "line\nbreak", ":x:", "$x$"],
)  # fmt: skip
def test_escaped_text_is_one_plain_paragraph(value: str) -> None:
    rendered = to_html(escape.text(value))
    assert rendered.startswith("<p>") and rendered.count("<p>") == 1, rendered
    inner = rendered[3:-5]
    assert "<" not in inner.replace("&lt;", ""), rendered  # no element inside the paragraph
    assert not re.search(r"@\w", html.unescape(inner)), rendered


def test_code_spans_survive_backticks_and_pipes_in_tables() -> None:
    cell = escape.code("a`b|c")
    rendered = to_html(f"| h |\n|---|\n| {cell} |\n")
    assert "<code>a`b|c</code>" in rendered


def test_a_failed_plans_error_cannot_close_its_code_block() -> None:
    error = "mlgov: error: bad\n```\n# injected\n@owner"
    text = build_comment([StackPlans("qa", {"stack": "qa", "resources": []}, error=error)]).text
    rendered = to_html(text)
    assert "<h1>" not in rendered
    assert "# injected" in html.unescape(rendered)


# ----------------------------------------------------------------------------- size
@pytest.fixture(scope="module")
def big() -> list[StackPlans]:
    prod = golden("prod")
    # weakened before it grows: the same document (the clones are notebooks and their jobs,
    # which carry no policy) without deep-copying the grown one a second time
    head = with_notebooks(weaken(prod), 3000)
    head["violations"] = [
        *head["violations"],
        {"policy": "mlgov-cost-budget-exceeded", "resource": "prod", "type": "stack",
         "enforcement": "mandatory", "message": "estimated $205,254.13/month is 513% of budget"},
        *({"policy": "mlgov-workbench-gpu-driver", "resource": f"notebooks-nb-{i:04d}",
           "type": "gcp:workbench/instance:Instance", "enforcement": "advisory",
           "message": f"notebook nb-{i:04d} has no GPU driver setting"} for i in range(3000)),
    ]  # fmt: skip
    dev = golden("dev")
    dev_head = copy.deepcopy(dev)
    pool = next(r for r in dev_head["resources"] if r["name"] == "training-t4-spot")
    pool["inputs"]["autoscaling"]["totalMaxNodeCount"] = 64.0
    staging = golden("staging")
    return [StackPlans("dev", dev_head, dev), StackPlans("prod", head, prod),
            StackPlans("staging", weaken(staging), staging)]  # fmt: skip


@pytest.fixture(scope="module")
def big_comment(big: list[StackPlans]) -> Comment:
    """The comment on `big`, built once: its text and its full report are both read below."""
    return build_comment(big, report_url="https://github.com/o/r/actions/runs/1/artifacts/2")


def test_a_3000_notebook_stack_fits_and_keeps_every_header_finding_and_change(
    big_comment: Comment,
) -> None:
    comment = big_comment
    assert size(comment.text) <= GITHUB_LIMIT
    assert comment.folded and size(comment.full) > 10 * GITHUB_LIMIT
    text = comment.text
    assert text.startswith(MARKER)
    for stack in ("dev", "prod", "staging"):
        assert re.search(rf"^### :(x|warning|white_check_mark): `{stack}`: ", text, re.M), stack
    # every governance change of every stack: the weakenings row by row, with their ids
    assert "| `training-t4-spot.autoscaling.totalMaxNodeCount` |" in text
    assert text.count("| `policy.dry_run` |") == 2  # prod (mandatory) and staging (advisory)
    assert "| :x: mandatory (`mlgov-governance-weakened`) | `policy.dry_run` |" in text
    # every finding: mandatory ones by row, the 3,000 advisories by policy with their count
    assert "`mlgov-cost-budget-exceeded`" in text
    assert "| advisory | `mlgov-workbench-gpu-driver` | 3000 resource(s): " in text
    # the other (non-weakening) governance changes are still counted, and the report is linked
    assert "Other governance changes" in text
    assert "[workflow artifact](https://github.com/o/r/actions/runs/1/artifacts/2)" in text
    assert "Details were folded to fit GitHub's comment limit" in text
    assert comment.blocking == 2  # prod: the budget finding and the unacknowledged dry run


def test_the_full_report_has_every_row(big_comment: Comment) -> None:
    full = big_comment.full
    assert "artifacts/2" not in full  # the link to the report is the fitted comment's alone
    assert full.count("| added | `notebooks-nb-") == 6000  # notebooks and their jobs
    assert full.count("`mlgov-workbench-gpu-driver`") == 3000


def test_a_small_comment_is_not_folded() -> None:
    dev = golden("dev")
    comment = build_comment([StackPlans("dev", weaken(dev), dev)])
    assert not comment.folded and comment.text == comment.full


def test_only_an_https_report_url_becomes_a_link() -> None:
    dev = golden("dev")
    plans = [StackPlans("dev", weaken(dev), dev)]
    text = build_comment(plans, report_url="javascript:alert(1)").text
    assert_only_docs_links(to_html(text))
    assert "Full report: javascript\\:alert" in text


@pytest.fixture(scope="module")
def folded_prod() -> StackPlans:
    """prod grown by 300 notebooks and weakened: enough for its comment to fold to fit.

    The CLI test below checks what the command does with a folded comment (writes the whole
    report, prints the fitted comment, exits by the verdict); the 3,000-notebook stack above
    checks the folding itself, through build_comment, at ten times the size.
    """
    prod = golden("prod")
    return StackPlans("prod", with_notebooks(weaken(prod), 300), prod)


def test_comment_cli_writes_the_full_report(
    tmp_path: Path, capsys: pytest.CaptureFixture, folded_prod: StackPlans
) -> None:
    base, head = tmp_path / "b.json", tmp_path / "h.json"
    base.write_text(json.dumps(folded_prod.base))
    head.write_text(json.dumps(folded_prod.head))
    report = tmp_path / "report.md"
    code = main(["comment", "--stack", "prod", str(base), str(head), "--full-report", str(report),
                 "--report-url", "https://example.test/a"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 1
    assert "Details were folded to fit GitHub's comment limit" in printed
    assert "[workflow artifact](https://example.test/a)" in printed
    rows = report.read_text().count("| added | `notebooks-nb-")
    assert rows == 600 > printed.count("| added | `notebooks-nb-")  # notebooks and their jobs
