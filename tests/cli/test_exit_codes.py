"""Exit codes mean one thing (issue 20 item 5): 0 fine, 1 mandatory finding, 2 bad input, 3 a bug,
4 a cloud API refused; never a traceback unless asked for with --debug / MLGOV_DEBUG=1.

The issue's refusals go through the real stack-file path here (YAML text, as a user writes it);
the settings lines themselves are in tests/config/test_settings_values.py and
test_settings_locations.py. One subprocess checks what only a real process shows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import build_parser, main
from governance.errors import Exit
from governance.review import plan
from tests.cli.test_untrusted import alias_bomb, nested
from tests.conftest import REPO

DEV = (REPO / "stacks" / "Pulumi.dev.yaml").read_text()
PROD = (REPO / "stacks" / "Pulumi.prod.yaml").read_text()
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("MLGOV_DEBUG", raising=False)

    def call(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return call


def stack_file(tmp_path: Path, text: str, old: str, new: str) -> Path:
    assert old in text, old
    path = tmp_path / "Pulumi.edited.yaml"
    path.write_text(text.replace(old, new))
    return path


def one_refusal(result: tuple[int, str, str], key: str) -> str:
    code, out, err = result
    assert code == Exit.INVALID, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert f": {key}: " in lines[0], lines[0]
    return lines[0]


# --------------------------------------------------------------------------- the issue's six
EDITS = [
    (
        "labels: {team: research, cost-center: cc-1234}",
        'labels: {team: research, cost-center: cc-1234, mlgov-exempt: "true"}',
        "mlgov:settings.labels.mlgov-exempt",
        "is reserved",
    ),
    (
        "gcp:project: acme-ml-dev",
        'gcp:project: "Other-Project/locations/us-east1/clusters/victim#acme-ml-prod"',
        "gcp:project",
        "is not a project id",
    ),
    ("gcp:region: us-central1", "gcp:region: mars-central1", "gcp:region", "not a region Google"),
    (
        "zones: [us-central1-a, us-central1-b]",
        "zones: [us-central1-a, us-central1-b, us-central1-z]",
        "mlgov:settings.zones.2",
        "us-central1-a, us-central1-b, us-central1-c, us-central1-f",
    ),
    (
        "timezone: Europe/Berlin",
        "timezone: Mars/Phobos",
        "mlgov:settings.notebooks.alice.office_hours.timezone",
        "not an IANA time zone name",
    ),
    (
        "expires_on: 2026-12-31",
        "expires_on: 2026-02-30",  # unquoted: YAML reads it as a timestamp
        "mlgov:settings.notebooks.bob.expires_on",
        "'2026-02-30' is not a date that exists",
    ),
]


@pytest.mark.parametrize(("old", "new", "key", "says"), EDITS, ids=[e[2] for e in EDITS])
def test_each_refusal_is_one_line_naming_the_key(
    run: Run, tmp_path: Path, old: str, new: str, key: str, says: str
) -> None:
    path = stack_file(tmp_path, DEV, old, new)
    line = one_refusal(run("plan", "--config", str(path)), key)
    assert line.startswith(f"mlgov: error: {path}: {key}: ")
    assert says in line
    # Every subcommand that reads the stack refuses it the same way.
    assert one_refusal(run("policy-config", "--config", str(path)), key) == line


def test_the_injected_project_never_reaches_the_container_api(run: Run, tmp_path: Path) -> None:
    path = stack_file(
        tmp_path,
        PROD,
        "gcp:project: acme-ml-prod",
        'gcp:project: "Other-Project/locations/us-east1/clusters/victim#acme-ml-prod"',
    )
    # An endpoint nothing listens on: a call would be exit 4; the settings stop it first.
    result = run("cap", "status", "--config", str(path), "--endpoint", "http://127.0.0.1:9")
    one_refusal(result, "gcp:project")


# --------------------------------------------------------------------------- hostile input
def test_an_alias_bomb_stack_file_exits_2_naming_the_file(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.bomb.yaml"
    path.write_text(
        "config:\n  mlgov:settings:\n"
        + "".join(f"    {line}\n" for line in alias_bomb().splitlines())
    )
    code, out, err = run("plan", "--config", str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"mlgov: error: {path}: line 8: expands to more than 200,000 values (an alias counts as "
        "the values it repeats)\n"
    )


@pytest.mark.parametrize("command", ["plan", "check", "diff"])
def test_deep_nesting_exits_2_naming_the_file(run: Run, tmp_path: Path, command: str) -> None:
    if command == "plan":
        path = tmp_path / "Pulumi.deep.yaml"
        path.write_text("config:\n  mlgov:settings: " + nested(10_000) + "\n")
        argv = ["plan", "--config", str(path)]
        expected = f"{path}: line 2: nested deeper than 100 levels"
    else:
        path = tmp_path / "deep.json"
        path.write_text('{"stack": "dev", "resources": ' + nested(10_000) + "}")
        argv = [command, str(path)] + ([str(path)] if command == "diff" else [])
        expected = f"{path}: nested deeper than 100 levels"
    code, out, err = run(*argv)
    assert (code, out, err) == (2, "", f"mlgov: error: {expected}\n")


def test_a_repeated_key_in_a_stack_file_exits_2(run: Run, tmp_path: Path) -> None:
    path = stack_file(
        tmp_path, PROD, "      dry_run: false\n", "      dry_run: false\n      dry_run: true\n"
    )
    code, _, err = run("plan", "--config", str(path))
    assert code == 2
    assert err.startswith(f"mlgov: error: {path}: line ") and "'dry_run' appears twice" in err


def test_documents_over_the_size_limit_are_not_read(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("governance.inputs.document.MAX_DOCUMENT_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"stack": "dev", "resources": [], "pad": "x" * 2000}))
    code, _, err = run("check", str(path))
    assert (code, err) == (
        2,
        f"mlgov: error: {path}: larger than 1,000 bytes; refusing to read it\n",
    )


def test_nan_in_a_document_is_bad_input(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "nan.json"
    path.write_text('{"stack": "dev", "resources": [], "cost": {"monthly_usd": NaN}}')
    assert run("check", str(path)) == (2, "", f"mlgov: error: {path}: NaN is not a JSON number\n")


def test_inputs_of_the_wrong_type_are_findings_not_crashes(run: Run, tmp_path: Path) -> None:
    # Found by mutating every input of the shipped plans: the human table assumed numbers.
    doc: dict[str, Any] = {
        "stack": "dev",
        "resources": [
            {
                "type": "gcp:workbench/instance:Instance",
                "name": "nb",
                "inputs": {
                    "location": "us-central1-a",
                    "gceSetup": {
                        "machineType": "e2-standard-4",
                        "metadata": {"idle-timeout-seconds": "soon"},
                    },
                },
            },
            {
                "type": "gcp:container/nodePool:NodePool",
                "name": "pool",
                "inputs": {
                    "location": "us-central1",
                    "autoscaling": {"totalMinNodeCount": "x", "totalMaxNodeCount": 4.0},
                },
            },
        ],
    }
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc))
    code, out, err = run("check", str(path), "--markdown")
    assert code in (0, 1), err
    assert "idle stop 'soon'?" in out and "nodes x-4" in out


# --------------------------------------------------------------------------- 3: a bug
def _boom(*_: Any, **__: Any) -> Any:
    raise KeyError("resources")


# One Google Cloud resource: a document with none is refused before anything runs (issue 30).
ONE = (
    '{"stack": "dev", "resources": [{"type": "gcp:pubsub/topic:Topic", "name": "t", "inputs": {}}]}'
)


def test_an_unexpected_error_is_one_line_and_exit_3(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan, "evaluate_document", _boom)
    path = tmp_path / "doc.json"
    path.write_text(ONE)
    code, out, err = run("check", str(path))
    assert (code, out) == (3, "")
    assert err == (
        "mlgov: error: internal error (KeyError: 'resources'); run again with --debug (or "
        "MLGOV_DEBUG=1) for the traceback\n"
    )


@pytest.mark.parametrize("how", ["--debug first", "--debug last", "MLGOV_DEBUG=1"])
def test_debug_shows_the_traceback(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setattr(plan, "evaluate_document", _boom)
    path = tmp_path / "doc.json"
    path.write_text(ONE)
    argv = ["check", str(path)]
    if how == "--debug first":
        argv.insert(0, "--debug")
    elif how == "--debug last":
        argv.append("--debug")
    else:
        monkeypatch.setenv("MLGOV_DEBUG", "1")
    code, _, err = run(*argv)
    assert code == 3
    assert err.startswith("Traceback (most recent call last):")
    assert err.endswith("mlgov: error: internal error (KeyError: 'resources')\n")


def test_mlgov_debug_0_means_off(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "evaluate_document", _boom)
    monkeypatch.setenv("MLGOV_DEBUG", "0")
    path = tmp_path / "doc.json"
    path.write_text(ONE)
    assert "Traceback" not in run("check", str(path))[2]


def test_a_pulumi_program_refusing_its_config_is_bad_input(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the project is the one here, not the repository's
    (tmp_path / "Pulumi.yaml").write_text("name: t\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(DEV)
    (tmp_path / "__main__.py").write_text(
        "import pulumi\nraise pulumi.errors.RunError('needs a bucket\\nset it')\n"
    )
    code, _, err = run("plan", "--config", str(tmp_path / "Pulumi.dev.yaml"))
    assert (code, err) == (
        2,
        "mlgov: error: the Pulumi program refused the stack: needs a bucket set it\n",
    )
    (tmp_path / "__main__.py").write_text("raise ZeroDivisionError('program bug')\n")
    code, _, err = run("plan", "--config", str(tmp_path / "Pulumi.dev.yaml"))
    assert code == 3 and err.startswith(
        "mlgov: error: internal error (ZeroDivisionError: program bug)"
    )


def test_help_documents_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    for code, meaning in [
        ("0", "fine"),
        ("1", "mandatory policy violation"),
        ("2", "invalid input"),
        ("3", "internal error"),
        ("4", "Google Cloud API refused"),
    ]:
        assert any(line.split()[:1] == [code] and meaning in line for line in out.splitlines()), (
            code
        )
    assert "--debug" in out


def test_every_subcommand_takes_debug(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for argv in (
        ["plan", "--stack", "dev", "--debug"],
        ["check", "x.json", "--debug"],
        ["diff", "a", "b", "--debug"],
        ["jobs", "--stack", "dev", "list", "--debug"],
        ["cap", "status", "--stack", "dev", "--debug"],
        ["spend", "--stack", "dev", "--debug"],
        ["prices", "refresh", "--debug"],
        ["--debug", "policy-config", "--stack", "dev"],
    ):
        assert parser.parse_args(argv).debug is True, argv


def test_a_real_process_exits_3_with_one_line() -> None:
    code = (
        "import sys; import governance.review.plan as p\n"
        "def boom(*a): raise RuntimeError('kaput')\n"
        "p.evaluate_document = boom\n"
        "sys.argv = ['mlgov', 'check', '-']\n"
        "from governance.cli.main import run; run()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        input=ONE,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 3
    assert result.stderr == (
        "mlgov: error: internal error (RuntimeError: kaput); run again with --debug (or "
        "MLGOV_DEBUG=1) for the traceback\n"
    )


@pytest.mark.parametrize("command", ["check", "diff", "comment"])
def test_a_document_with_malformed_violations_is_bad_input(
    run: Run, tmp_path: Path, command: str
) -> None:
    # Found by mutating the top-level keys of the shipped plans: `comment` read them as written.
    path = tmp_path / "doc.json"
    path.write_text('{"stack": "dev", "resources": [], "violations": "none"}')
    argv = {
        "check": ["check", str(path)],
        "diff": ["diff", str(path), str(path)],
        "comment": ["comment", "--stack", "dev", str(path), str(path)],
    }[command]
    code, out, err = run(*argv)
    message = (
        f"{path}: violations: must be a list of {{policy, resource, enforcement, message}} objects"
    )
    if command == "comment":
        # The comment still renders, naming the stack it refused (exit 2, nothing priced).
        assert (code, err) == (2, f"mlgov: error: {message}\n")
        assert "the plan cannot be judged" in out and message in out
        return
    assert (code, out) == (2, "")
    assert err == (
        f"mlgov: error: {path}: violations: must be a list of {{policy, resource, enforcement, "
        "message} objects\n"
    )


def test_deep_json_inside_an_input_string_is_not_a_crash(run: Run, tmp_path: Path) -> None:
    # Policy data and table schemas are JSON strings inside inputs; the rules parse them.
    deep = nested(10_000)
    doc = {
        "stack": "dev",
        "resources": [
            {
                "type": "gcp:projects/iAMPolicy:IAMPolicy",
                "name": "p",
                "inputs": {"policyData": deep},
            },
            {"type": "gcp:bigquery/table:Table", "name": "t", "inputs": {"schema": deep}},
            {
                "type": "gcp:cloudfunctionsv2/function:Function",
                "name": "f",
                "inputs": {"serviceConfig": {"environmentVariables": {"MLGOV_POLICY": deep}}},
            },
        ],
    }
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    code, _, err = run("check", str(path))
    assert code in (0, 1), err
    assert "internal error" not in err
    checked = tmp_path / "checked.json"
    checked.write_text(run("check", str(path), "--json")[1])
    empty = tmp_path / "empty.json"
    empty.write_text('{"stack": "dev", "resources": []}')
    for argv in (
        ["diff", str(empty), str(checked)],
        ["comment", "--stack", "dev", str(empty), str(checked)],
    ):
        code, _, err = run(*argv)
        assert code in (0, 1) and "internal error" not in err, (argv, err)


def test_a_flood_of_problems_prints_100_lines_and_a_count(run: Run, tmp_path: Path) -> None:
    zones = ", ".join(f"nowhere{i}-a" for i in range(300))
    path = stack_file(tmp_path, DEV, "zones: [us-central1-a, us-central1-b]", f"zones: [{zones}]")
    code, _, err = run("plan", "--config", str(path))
    lines = err.splitlines()
    assert code == 2
    assert len(lines) == 101
    assert lines[0].startswith(f"mlgov: error: {path}: mlgov:settings.zones.0: 'nowhere0-a'")
    # 300 zones, and pydantic adding that no valid zone is left.
    assert lines[-1] == "mlgov: error: ... and 201 more problem(s) not shown"


@pytest.mark.parametrize("stack", ["dev\nmlgov: error: forged", "../dev", "dev/x", ".hidden", ""])
def test_stack_names_are_names(run: Run, stack: str) -> None:
    code, _, err = run("plan", "--stack", stack)
    assert code == 2
    assert err.count("\n") == 1 and "is not a stack name" in err


def test_several_documents_with_a_deep_first_one_are_refused_for_the_depth(
    run: Run, tmp_path: Path
) -> None:
    path = tmp_path / "lines.json"
    path.write_text(nested(10_000) + "\n{}\n")  # two documents: not one JSON value either
    assert run("check", str(path)) == (
        2,
        "",
        f"mlgov: error: {path}: nested deeper than 100 levels\n",
    )


PREVIEW = (
    Path(__file__).parent.parent / "formats" / "data" / "preview_gcp_ml-platform_show-sames.json"
)


def test_an_infinite_usage_declaration_exits_2_naming_file_and_key(
    run: Run, tmp_path: Path
) -> None:
    # `.inf` is a YAML float; before, the plan printed `$inf/month` and `saves $nan`.
    usage = tmp_path / "usage.yml"
    usage.write_text(
        "version: 1\nresource_type_default_usage:\n"
        "  gcp:compute/instance:Instance: {monthly_egress_china_gb: .inf}\n"
    )
    assert run("check", str(PREVIEW), "--usage-file", str(usage)) == (
        2,
        "",
        f"mlgov: error: usage file {usage}: resource_type_default_usage.gcp:compute/instance:"
        "Instance.monthly_egress_china_gb: inf is not a finite number\n",
    )


def test_sizes_and_counts_no_api_accepts_are_refused_by_key(run: Run, tmp_path: Path) -> None:
    # Found by mutating the inputs of the real stack exports: a node pool of 1e308 nodes per
    # zone times three zones is inf, and math.ceil(inf) raised OverflowError (exit 3); then they
    # were priced as "too large". No Google API takes such a size or count: exit 2, each named.
    doc: dict[str, Any] = {
        "stack": "dev",
        "resources": [
            {
                "type": "gcp:container/nodePool:NodePool",
                "name": "pool",
                "inputs": {"location": "us-central1", "nodeCount": 1e308},
            },
            {"type": "gcp:compute/disk:Disk", "name": "disk",
             "inputs": {"zone": "us-central1-a", "size": 1e308, "type": "pd-extreme",
                        "provisionedIops": 100000}},
        ],
    }  # fmt: skip
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    assert run("check", str(path), "--json") == (
        2,
        "",
        f"mlgov: error: {path}: resources[0] (pool).inputs.nodeCount: 1e+308 is larger than any "
        "Google Cloud API field holds\n"
        f"mlgov: error: {path}: resources[1] (disk).inputs.size: 1e+308 is larger than any "
        "Google Cloud API field holds\n",
    )


def test_an_input_whose_cost_overflows_is_unpriced_not_an_internal_error(
    run: Run, tmp_path: Path
) -> None:
    # a query quota's worst case (informational) was 1.8e+304 dollars a month: a quota override
    # is not a size, and its price overflowing is an unpriced row, not a crash.
    doc: dict[str, Any] = {
        "stack": "dev",
        "resources": [
            {"type": "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride",
             "name": "quota",
             "inputs": {"service": "bigquery.googleapis.com", "limit": "%2Fd%2Fproject",
                        "metric": "bigquery.googleapis.com%2Fquota%2Fquery%2Fusage",
                        "overrideValue": "1e308"}},
        ],
    }  # fmt: skip
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    code, out, err = run("check", str(path), "--json")
    assert code in (0, 1), err
    assert "Infinity" not in out and "NaN" not in out
    plan = json.loads(out)
    rows = {r["name"]: r for r in plan["resources"]}
    assert rows["quota"]["unpriced"].startswith("an input is too large to price"), rows["quota"]
    assert plan["cost"]["monthly_usd"] == 0


def test_explain_says_why_it_exits_1(run: Run, tmp_path: Path) -> None:
    # Issue 30: `--explain` printed cost lines and exited 1 without a word on why.
    doc = {
        "stack": "dev",
        "resources": [{"type": "gcp:storage/bucket:Bucket", "name": "b",
                       "inputs": {"location": "US-CENTRAL1"}}],
    }  # fmt: skip
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run("check", str(path), "--explain")
    assert code == 1
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("exit 1: ")))
    count = int(lines[at].split()[2])
    assert lines[at] == f"exit 1: {count} mandatory finding(s):"
    listed = lines[at + 1 : at + 1 + count]
    assert any(line.startswith("  [mlgov-labels-required] on b: ") for line in listed), listed
    # the same words as `check --json` gives the findings
    checked = json.loads(run("check", str(path), "--json")[1])
    mandatory = [v for v in checked["violations"] if v["enforcement"] == "mandatory"]
    assert count == len(mandatory)
    assert "exit 0: no mandatory finding (advisory findings do not fail)" not in out
