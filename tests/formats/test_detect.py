"""Which format a file is, from its content, and the refusals that say what to run instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.errors import CliError
from governance.inputs.document import parse_input
from governance.inputs.plan_input import OWN_FORMAT
from tests.formats.conftest import DATA, GCP_PREVIEW, V4_EXPORT

STREAM = "\n".join(
    json.dumps(event)
    for event in [
        {"sequence": 0, "timestamp": 1700000000, "preludeEvent": {"config": {"gcp:project": "p"}}},
        {
            "sequence": 1,
            "timestamp": 1700000001,
            "resourcePreEvent": {
                "metadata": {"op": "create", "urn": "urn:pulumi:dev::p::gcp:compute/disk:Disk::d",
                             "type": "gcp:compute/disk:Disk", "new": {"inputs": {"size": 10}}}
            },
        },
        {"sequence": 2, "timestamp": 1700000002, "summaryEvent": {"resourceChanges": {"create": 1}}},
    ]
)  # fmt: skip


def problem(text: str, source: str = "in.json") -> str:
    with pytest.raises(CliError) as err:
        parse_input(text, source)
    assert len(err.value.problems) == 1
    return err.value.problems[0]


def test_each_format_is_recognised_from_its_content() -> None:
    own = parse_input(json.dumps({"stack": "dev", "resources": []}), "plan.json")
    assert (own.format, own.before) == (OWN_FORMAT, None)
    preview = parse_input(GCP_PREVIEW.read_text(), "preview.json")
    assert preview.format == "pulumi preview --json" and preview.before is not None
    export = parse_input(V4_EXPORT.read_text(), "stack.json")
    assert export.format == "pulumi stack export v4"
    v3 = parse_input((DATA / "stackexport_gcp_cloudsql_cli3.91.1.json").read_text(), "s.json")
    assert v3.format == "pulumi stack export v3"


def test_a_json_lines_event_stream_says_to_run_preview_without_streaming() -> None:
    message = problem(STREAM, "events.json")
    assert message.startswith("events.json: a JSON-lines stream of Pulumi engine events")
    assert "PULUMI_ENABLE_STREAMING_JSON_PREVIEW" in message
    assert "`pulumi preview --json > preview.json`" in message
    # One event alone is one valid JSON document: still the stream.
    assert "JSON-lines stream" in problem(STREAM.splitlines()[0])


def test_the_output_json_summary_has_no_inputs() -> None:
    summary = {
        "result": "succeeded",
        "duration": 1,
        "summary": {"create": 1},
        "resources": [{"urn": "urn:pulumi:dev::p::gcp:compute/disk:Disk::d", "type":
                       "gcp:compute/disk:Disk", "name": "d", "op": "create", "parent": ""}],
    }  # fmt: skip
    message = problem(json.dumps(summary))
    assert "`pulumi preview --output json` summary" in message
    assert "without their inputs" in message and "run `pulumi preview --json" in message
    # The same list without result/summary is still recognised by its rows.
    assert "--output json" in problem(json.dumps({"resources": summary["resources"]}))


def test_an_empty_object_is_what_a_failed_preview_prints() -> None:
    message = problem("{}", "preview.json")
    assert message.startswith("preview.json: an empty JSON object `{}`")
    assert "fails before planning" in message


def test_a_digest_with_only_diagnostics() -> None:
    failed = {
        "diagnostics": [
            {"message": "\u001b[31merror: \u001b[0mMissing required configuration variable "
             "'gcp:project'\n", "severity": "error"},
            {"message": "second\n", "severity": "error"},
        ],
        "duration": 120000000,
    }  # fmt: skip
    message = problem(json.dumps(failed), "p.json")
    assert message.startswith("p.json: a `pulumi preview --json` digest of a preview that failed")
    assert "error: Missing required configuration variable 'gcp:project' (and 1 more)" in message
    assert "\u001b" not in message
    warned = {"config": {}, "diagnostics": [{"message": "deprecated", "severity": "warning"}]}
    message = problem(json.dumps(warned), "p.json")
    assert "digest with no steps" in message and "only diagnostics (deprecated)" in message
    assert "digest with no steps" in problem(json.dumps({"config": {"a:b": "c"}, "duration": 5}))


def test_a_digest_whose_preview_failed_half_way_is_refused() -> None:
    doc = json.loads(GCP_PREVIEW.read_text())
    doc["diagnostics"].append({"message": "TypeError: x is undefined", "severity": "error"})
    message = problem(json.dumps(doc))
    assert "preview that failed: TypeError: x is undefined" in message
    assert "its steps stop where it failed" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"foo": 1, "bar": 2}', "in.json: not a plan mlgov reads (top-level keys: bar, foo)"),
        ("[]", "in.json: document: must be a JSON object with `stack` and `resources`"),
        ('{"stack": "dev"}', "in.json: resources: required, must be a list of resources"),
        ("{", "in.json: not valid JSON (Expecting property name"),
    ],
)
def test_other_shapes_keep_clear_errors(text: str, expected: str) -> None:
    assert problem(text).startswith(expected)


@pytest.mark.parametrize(
    "content",
    ["{}", STREAM, '{"result": "failed", "summary": {}, "resources": []}', '{"diagnostics": []}'],
)
@pytest.mark.parametrize("command", ["check", "diff"])
def test_the_cli_refuses_them_with_exit_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, command: str
) -> None:
    path = tmp_path / "preview.json"
    path.write_text(content)
    assert main([command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"mlgov: error: {path}: ")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
