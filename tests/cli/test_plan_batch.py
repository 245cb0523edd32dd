"""`mlgov plan --all | --stack A --stack B --out-dir DIR`: several stacks in one process.

Each stack's files must be what `plan --stack NAME --json` alone prints, whatever was planned
before it in the process: Pulumi's root stack, config and event loop are reset per run, and the
project modules a program imported are imported again for the next stack (offline.py).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from governance.cli.main import main
from governance.errors import Exit
from tests.conftest import PROGRAM, REPO, STACKS, stack_config


def _run(
    root: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _status(folder: Path) -> list[list[str]]:
    return [line.split("\t") for line in (folder / "status.tsv").read_text().splitlines()]


def _mlgov_project(root: Path, stacks: dict[str, dict[str, Any]]) -> Path:
    """A project running mlgov's own program with the given stack configs."""
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    shutil.copy(PROGRAM, root / "__main__.py")
    (root / "stacks").mkdir()
    for name, config in stacks.items():
        (root / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))
    return root


def test_every_stack_in_one_process_is_what_each_plan_prints_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "plans"
    code, stdout, err = _run(REPO, ["plan", "--all", "--out-dir", str(out)], monkeypatch, capsys)
    assert code == Exit.OK, err
    assert stdout == ""  # the plans are in files; stdout stays empty
    assert _status(out) == [[s, "0", "planned"] for s in STACKS]
    assert err.splitlines() == [f"mlgov: plan {s}: planned (exit 0)" for s in STACKS]
    for stack in STACKS:
        _, alone, alone_err = _run(REPO, ["plan", "--stack", stack, "--json"], monkeypatch, capsys)
        assert (out / f"{stack}.json").read_text() == alone
        assert (out / f"{stack}.err").read_text() == alone_err == ""


def test_a_setting_of_one_stack_never_reaches_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    dev = stack_config("dev")
    leaky = copy.deepcopy(dev)
    settings = leaky["mlgov:settings"]
    settings["labels"]["team"] = "leak-team"
    settings["notebooks"]["leaky"] = {
        "owner": "leaky@acme.example",
        "machine_type": "n2-standard-4",
        "zone": "us-central1-a",
        "idle_minutes": 45,
    }
    leaky["gcp:project"] = "leaky-project"
    leaky["gcp:defaultLabels"] = {"leak-label": "from-a"}  # a key b's file does not set
    root = _mlgov_project(tmp_path, {"a": leaky, "b": dev})
    together, alone = tmp_path / "together", tmp_path / "alone"
    args = ["plan", "--stack", "a", "--stack", "b", "--out-dir", str(together)]
    code, _, err = _run(root, args, monkeypatch, capsys)
    assert code == Exit.OK, err
    code, _, err = _run(
        root, ["plan", "--stack", "b", "--out-dir", str(alone)], monkeypatch, capsys
    )
    assert code == Exit.OK, err
    after_a = (together / "b.json").read_text()
    assert after_a == (alone / "b.json").read_text()
    for trace in ("leak-team", "leaky-project", "leaky@acme.example", "from-a"):
        assert trace in (together / "a.json").read_text()  # a's settings did apply to a
        assert trace not in after_a
    # ... and the other way round: b's plan leaves nothing in a's
    code, _, _ = _run(
        root, ["plan", "--stack", "b", "--stack", "a", "--out-dir", str(tmp_path / "ba")],
        monkeypatch, capsys,
    )  # fmt: skip
    assert (tmp_path / "ba" / "a.json").read_text() == (together / "a.json").read_text()


BUCKETS = """\
import pulumi
import pulumi_gcp as gcp

gcp.storage.Bucket("data", location="US")
extra = pulumi.Config().get("extra")  # set in one stack's file only
if extra:
    gcp.storage.Bucket(f"extra-{extra}", location="US")
"""


def test_a_config_key_of_one_stack_is_unset_in_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(BUCKETS)
    (tmp_path / "Pulumi.one.yaml").write_text("config:\n  gcp:project: shop-one\n  shop:extra: x\n")
    (tmp_path / "Pulumi.two.yaml").write_text("config:\n  gcp:project: shop-two\n")
    out = tmp_path / "plans"
    args = ["plan", "--stack", "one", "--stack", "two", "--out-dir", str(out)]
    code, _, err = _run(tmp_path, args, monkeypatch, capsys)
    assert code in (Exit.OK, Exit.FAILED), err
    names = {
        stack: sorted(
            r["name"] for r in json.loads((out / f"{stack}.json").read_text())["resources"]
        )
        for stack in ("one", "two")
    }
    assert names == {"one": ["data", "extra-x"], "two": ["data"]}


INFRA = """\
import pulumi

# Read once, at import: in `pulumi up` every stack is a process of its own.
PROJECT = pulumi.Config("gcp").require("project")
"""

FLEET = """\
import pulumi

from governance.components import Notebook, NotebookFleet, NotebookFleetArgs, base_labels
from infra import PROJECT

fleet = NotebookFleet(
    "notebooks",
    NotebookFleetArgs(
        prefix="shop",
        project=PROJECT,
        region="us-central1",
        labels=base_labels("dev", {"team": "vision", "cost-center": "cc-42"}),
        notebooks={"ana": Notebook(zone="us-central1-a", machine_type="e2-standard-4")},
        network_id=f"projects/{PROJECT}/global/networks/default",
        subnet_id=f"projects/{PROJECT}/regions/us-central1/subnetworks/default",
    ),
)
"""


def test_a_project_module_reading_config_at_import_reads_each_stacks_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(FLEET)
    (tmp_path / "infra.py").write_text(INFRA)
    for name in ("one", "two"):
        (tmp_path / f"Pulumi.{name}.yaml").write_text(f"config:\n  gcp:project: shop-{name}\n")
    out = tmp_path / "plans"
    code, _, err = _run(tmp_path, ["plan", "--all", "--out-dir", str(out)], monkeypatch, capsys)
    assert code == Exit.OK, err
    for name in ("one", "two"):
        doc = json.loads((out / f"{name}.json").read_text())
        (notebook,) = [r for r in doc["resources"] if r["name"] == "notebooks-ana"]
        assert notebook["inputs"]["project"] == f"shop-{name}"


def test_each_stack_ends_on_its_own_and_the_exit_code_is_the_worst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    dev = stack_config("dev")
    refused = copy.deepcopy(dev)
    refused["mlgov:settings"]["notebooks"]["alice"]["idle_minutes"] = "soon"
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        FLEET.replace("from infra import PROJECT", "PROJECT = 'p'")
    )
    (tmp_path / "Pulumi.fine.yaml").write_text("config:\n  gcp:project: shop-fine\n")
    (tmp_path / "Pulumi.strict.yaml").write_text(
        "config:\n  gcp:project: shop-strict\n  mlgov:plan: {budget_required: true}\n"
    )
    (tmp_path / "Pulumi.broken.yaml").write_text("config: [not, a, mapping]\n")
    out = tmp_path / "plans"
    (out).mkdir()
    (out / "broken.json").write_text("{}")  # from an earlier run: must not read as this one's
    args = ["plan", "--stack", "strict", "--stack", "broken", "--stack", "fine", "--out-dir"]
    code, stdout, err = _run(tmp_path, [*args, str(out)], monkeypatch, capsys)
    assert code == Exit.INVALID
    assert stdout == ""
    assert _status(out) == [
        ["strict", "1", "mandatory"],
        ["broken", "2", "failed"],
        ["fine", "0", "planned"],
    ]
    assert not (out / "broken.json").exists()
    assert (
        "mlgov: error: Pulumi.broken.yaml: a Pulumi stack file needs a top-level `config:`"
        in (out / "broken.err").read_text()
    )
    strict = json.loads((out / "strict.json").read_text())
    assert [v["policy"] for v in strict["violations"]] == ["mlgov-budget-required"]
    assert json.loads((out / "fine.json").read_text())["stack"] == "fine"
    assert "mlgov: plan broken: failed (see plans/broken.err) (exit 2)" in err
    assert "mlgov: plan strict: planned, with a mandatory finding (exit 1)" in err


def test_each_stack_gets_its_own_policy_config_from_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "plans"
    args = ["plan", "--stack", "dev", "--stack", "prod", "--out-dir", str(out)]
    code, _, err = _run(REPO, [*args, "--policy-config-dir", "policies"], monkeypatch, capsys)
    assert code == Exit.OK, err
    for stack in ("dev", "prod"):
        pack = f"policies/config.{stack}.json"
        _, alone, _ = _run(
            REPO, ["plan", "--stack", stack, "--json", "--policy-config", pack], monkeypatch, capsys
        )
        assert (out / f"{stack}.json").read_text() == alone
        assert "policy_pack_config" in json.loads(alone)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--all"], "several stacks (--all, or --stack more than once) need --out-dir DIR"),
        (["--stack", "dev", "--stack", "prod"], "need --out-dir DIR"),
        (["--all", "--out-dir", "x", "--json"], "--out-dir writes each stack's plan document"),
        (["--config", "stacks/Pulumi.dev.yaml", "--out-dir", "x"], "not --config"),
        (["--all", "--out-dir", "x", "--base", "y"], "--base and --base-out-dir go together"),
        (["--stack", "dev", "--cache-dir", "c"], "--cache-dir: only with --out-dir"),
        (["--stack", "dev", "--out-dir", "x", "--stack", "../../etc"], "is not a stack name"),
    ],
)
def test_arguments_that_do_not_go_together_are_refused(
    args: list[str],
    problem: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    args = [str(tmp_path / a) if a in ("x", "y", "c") else a for a in args]
    code, _, err = _run(REPO, ["plan", *args], monkeypatch, capsys)
    assert code == Exit.INVALID
    assert problem in err
    assert "Traceback" not in err
    assert not (tmp_path / "x").exists()
    assert not (REPO.parent / "etc.err").exists()


def test_all_with_no_stack_files_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    args = ["plan", "--all", "--out-dir", str(tmp_path / "plans")]
    code, _, err = _run(tmp_path, args, monkeypatch, capsys)
    assert code == Exit.INVALID
    assert "--all: no stack files in . (Pulumi.<stack>.yaml); nothing to plan" in err


def test_all_refuses_a_stack_file_whose_name_no_stack_can_have(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: shop-dev\n")
    (tmp_path / "Pulumi.a\tb.yaml").write_text("config:\n  gcp:project: shop-ab\n")
    out = tmp_path / "plans"
    code, _, err = _run(tmp_path, ["plan", "--all", "--out-dir", str(out)], monkeypatch, capsys)
    assert code == Exit.INVALID
    assert "'a\\tb' is not a stack name Pulumi accepts" in err
    assert not out.exists()  # refused before anything is planned or written
