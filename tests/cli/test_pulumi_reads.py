"""mlgov reads a stack's config from the files `pulumi up` reads, as Pulumi reads them.

An attacker's review: a pull request that leaves `stacks/Pulumi.prod.yaml` alone but
makes `pulumi up` read other values. Each edit below made `mlgov plan` exit 0 with the unchanged
plan before stack_config.py; each now plans what Pulumi deploys (so the governance diff shows it)
or is refused with exit 2 naming the file and key. Pulumi's behaviour is from its source
(pulumi/pulumi sdk/go/common: resource/config/key.go ParseKey; workspace/config.go mergeConfig;
workspace/project.go RewriteShorthandConfigValues and RewriteConfigPathIntoStackConfigDir;
encoding.Exts and paths.go for the project and stack file names).
"""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.errors import Exit
from governance.inputs.project import find_project, read_stack
from governance.review.comment import StackPlans, build_comment
from governance.review.govdiff.review import review
from governance.review.plan import ESC_FINDING
from tests.conftest import PROGRAM, REPO

PROD = (REPO / "stacks" / "Pulumi.prod.yaml").read_text()
DEV = (REPO / "stacks" / "Pulumi.dev.yaml").read_text()
PROJECT = "name: mlgov\nruntime: python\nmain: infra/\nstackConfigDir: stacks\n"


def _project(root: Path, project: str = PROJECT, prod: str = PROD) -> Path:
    """This repository's layout in `root`: the program in infra/, stack files in stacks/."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text(project)
    (root / "infra").mkdir()
    shutil.copy(PROGRAM, root / "infra" / "__main__.py")
    (root / "stacks").mkdir()
    (root / "stacks" / "Pulumi.prod.yaml").write_text(prod)
    (root / "stacks" / "Pulumi.dev.yaml").write_text(DEV)
    return root


@pytest.fixture
def plan(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """`mlgov plan --stack NAME --json` in a folder: (exit code, document or None, stderr)."""
    monkeypatch.delenv("MLGOV_DEBUG", raising=False)

    def call(root: Path, stack: str = "prod") -> tuple[int, dict[str, Any] | None, str]:
        monkeypatch.chdir(root)
        capsys.readouterr()
        code = main(["plan", "--stack", stack, "--json"])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, (json.loads(out) if out else None), err

    return call


@pytest.fixture(scope="module")
def _unedited_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """`plan --stack prod --json` of this layout with the shipped stack files, planned once.

    The tests that compare an edited stack's plan with the unedited one share it: the unedited
    plan is the reference, not what they check. Each gets its own parse (`unedited_prod`).
    """
    root = _project(tmp_path_factory.mktemp("unedited"))
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MLGOV_DEBUG", raising=False)
        mp.chdir(root)
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["plan", "--stack", "prod", "--json"])
    assert code == Exit.OK and "Traceback" not in err.getvalue(), err.getvalue()
    return out.getvalue()


@pytest.fixture
def unedited_prod(_unedited_text: str) -> dict[str, Any]:
    """The unedited prod stack's plan in this layout (a fresh copy per test)."""
    return json.loads(_unedited_text)


def _refused(result: tuple[int, dict[str, Any] | None, str], *parts: str) -> str:
    code, doc, err = result
    assert (code, doc) == (Exit.INVALID, None), err
    for part in parts:
        assert part in err, err
    return err


# --------------------------------------------------------------------------- keys as Pulumi reads them
def test_the_old_key_form_is_the_same_key_and_is_checked(tmp_path: Path, plan) -> None:
    # `gcp:config:defaultLabels` IS `gcp:defaultLabels` to Pulumi (ParseKey): before, mlgov did not
    # see it, and the provider would have labelled every resource mlgov-exempt.
    edited = PROD.replace(
        "  gcp:region: europe-west4\n",
        '  gcp:region: europe-west4\n  gcp:config:defaultLabels: {mlgov-exempt: "true"}\n',
    )
    _refused(plan(_project(tmp_path, prod=edited)), "gcp:defaultLabels.mlgov-exempt", "reserved")


def test_the_same_key_twice_in_two_spellings_is_refused(tmp_path: Path, plan) -> None:
    edited = PROD.replace(
        "  gcp:region: europe-west4\n",
        "  gcp:region: europe-west4\n  mlgov:config:settings: {environment: dev}\n",
    )
    err = _refused(plan(_project(tmp_path, prod=edited)), "stacks/Pulumi.prod.yaml: config.")
    # the first one written is kept, the second named (here the old spelling came first)
    assert "config.mlgov:settings: the same key as mlgov:config:settings" in err


@pytest.mark.parametrize("key", ["settings", "mlgov:settings:extra", "a:b:c"])
def test_a_key_pulumi_cannot_parse_is_refused(tmp_path: Path, plan, key: str) -> None:
    edited = PROD.replace(
        "  gcp:region: europe-west4\n", f"  gcp:region: europe-west4\n  {key}: 1\n"
    )
    _refused(plan(_project(tmp_path, prod=edited)), f"config.{key}: not a Pulumi config key")


# --------------------------------------------------------------------------- which files
def test_a_pulumi_json_beside_pulumi_yaml_is_the_project_file(tmp_path: Path, plan) -> None:
    # Pulumi tries Pulumi.json first; its stack files are Pulumi.<stack>.json, here in another
    # folder with dry run on. Before, mlgov read Pulumi.yaml and stacks/Pulumi.prod.yaml.
    root = _project(tmp_path)
    (root / "Pulumi.json").write_text(
        json.dumps({"name": "mlgov", "runtime": "python", "main": "infra/", "stackConfigDir": "x"})
    )
    (root / "x").mkdir()
    config = read_stack(root / "stacks" / "Pulumi.prod.yaml").config
    config["mlgov:settings"].setdefault("automation", {})["dry_run"] = True
    (root / "x" / "Pulumi.prod.json").write_text(json.dumps({"config": config}))
    project = find_project(root)
    assert project.file == root / "Pulumi.json"
    assert project.stack_file("prod") == root / "x" / "Pulumi.prod.json"
    code, doc, _ = plan(root)
    assert code in (Exit.OK, Exit.FAILED) and doc is not None
    policies = [
        json.loads(r["inputs"]["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"])
        for r in doc["resources"]
        if r["type"] == "gcp:cloudfunctionsv2/function:Function"
    ]
    assert policies and all(p["dry_run"] is True for p in policies)


def test_a_pulumi_yml_project_reads_yml_stack_files(tmp_path: Path, plan) -> None:
    root = _project(tmp_path)
    (root / "Pulumi.yaml").rename(root / "Pulumi.yml")
    # What Pulumi reads is Pulumi.prod.yml: with only the .yaml file, there is no stack file.
    result = plan(root)
    _refused(result, "no stack file stacks/Pulumi.prod.yml")
    (root / "stacks" / "Pulumi.prod.yaml").rename(root / "stacks" / "Pulumi.prod.yml")
    assert find_project(root).stacks() == ["prod"]
    assert plan(root)[0] == Exit.OK


def test_the_old_config_folder_spelling_moves_the_stack_files(tmp_path: Path) -> None:
    root = _project(tmp_path, "name: mlgov\nruntime: python\nmain: infra/\nconfig: other\n")
    assert find_project(root).stack_dir == root / "other"


def test_config_folder_and_stack_config_dir_together_are_refused(tmp_path: Path, plan) -> None:
    root = _project(tmp_path, PROJECT + "config: other\n")
    _refused(plan(root), "Pulumi.yaml: config: a folder name beside stackConfigDir")


@pytest.mark.parametrize(
    "runtime", ["yaml", "{name: nodejs, options: {typescript: false}}", "{options: {}}"]
)
def test_a_runtime_other_than_python_is_refused(tmp_path: Path, plan, runtime: str) -> None:
    # `runtime: yaml` deploys the resources written in Pulumi.yaml, not __main__.py.
    root = _project(tmp_path, PROJECT.replace("runtime: python", f"runtime: {runtime}"))
    _refused(plan(root), "Pulumi.yaml: runtime: ")


# --------------------------------------------------------------------------- the project's config
def test_project_config_reaches_every_stack_and_is_checked(tmp_path: Path, plan) -> None:
    # Pulumi.yaml `config:` applies to every stack that leaves the key out: before, mlgov never
    # read it, and `gcp:defaultLabels` exempted every resource of every stack.
    root = _project(
        tmp_path, PROJECT + 'config:\n  gcp:defaultLabels:\n    value: {mlgov-exempt: "true"}\n'
    )
    _refused(plan(root), "gcp:defaultLabels.mlgov-exempt", "reserved")
    # the short-hand form is a value for another namespace's key
    root = tmp_path / "short"
    root.mkdir()
    _project(root, PROJECT + "config:\n  gcp:zone: us-central1-z\n")
    _refused(plan(root), "gcp:zone")


def test_a_stack_value_wins_over_the_project_default(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        PROJECT
        + "config:\n  settings:\n    default: {environment: dev}\n  gcp:zone: europe-west4-a\n",
    )
    read = read_stack(root / "stacks" / "Pulumi.prod.yaml")
    assert read.config["mlgov:settings"]["environment"] == "prod"  # the stack's, not the default
    assert read.config["gcp:zone"] == "europe-west4-a"
    assert read.from_project == ("gcp:zone",)
    assert read.shown == {"gcp:zone": "europe-west4-a"}


def test_default_wins_over_value_as_in_pulumi(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        PROJECT + "config:\n  gcp:zone:\n    value: europe-west4-b\n    default: europe-west4-a\n",
    )
    assert read_stack(root / "stacks" / "Pulumi.prod.yaml").config["gcp:zone"] == "europe-west4-a"


def test_a_required_project_key_the_stack_leaves_out_is_refused(tmp_path: Path, plan) -> None:
    root = _project(tmp_path, PROJECT + "config:\n  owner:\n    type: string\n")
    _refused(plan(root), "config.mlgov:owner: required by the project's config")


def test_a_stack_file_elsewhere_gets_no_project_config(tmp_path: Path) -> None:
    root = _project(tmp_path, PROJECT + "config:\n  gcp:zone: europe-west4-a\n")
    elsewhere = tmp_path / "Pulumi.copy.yaml"
    elsewhere.write_text(PROD)
    assert "gcp:zone" not in read_stack(elsewhere).config
    assert read_stack(root / "stacks" / "Pulumi.prod.yaml").config["gcp:zone"] == "europe-west4-a"


# --------------------------------------------------------------------------- encrypted values
def test_an_encrypted_governance_value_is_refused_naming_its_key(tmp_path: Path, plan) -> None:
    edited = PROD.replace("      dry_run: false\n", "      dry_run: {secure: v1:Zm9vYmFy:YmF6}\n")
    _refused(
        plan(_project(tmp_path, prod=edited)),
        "mlgov:settings.automation.dry_run: an encrypted (secure:) value",
    )


def test_encrypted_provider_credentials_plan_and_a_new_one_shows(tmp_path: Path, plan) -> None:
    secret = "  gcp:credentials:\n    secure: v1:AAAA:{}\n"
    line = "  gcp:region: europe-west4\n"
    one = _project(tmp_path / "a", prod=PROD.replace(line, line + secret.format("b25l")))
    two = _project(tmp_path / "b", prod=PROD.replace(line, line + secret.format("dHdv")))
    code, before, _ = plan(one)
    assert code == Exit.OK and before is not None
    shown = before["stack_config"]["keys"]["gcp:credentials"]
    assert shown.startswith("(encrypted, sha256 ") and "b25l" not in shown
    after = plan(two)[1]
    assert after is not None
    r = review(before, after)
    assert [c.id for c in r.blocking] == ["config.gcp:credentials"]


# --------------------------------------------------------------------------- provider keys and ESC
def test_a_provider_endpoint_added_in_prod_is_a_blocking_weakening(
    tmp_path: Path, plan, unedited_prod: dict[str, Any]
) -> None:
    # Before: "Unchanged". The billing API endpoint decides where the budget is created.
    line = "  gcp:region: europe-west4\n"
    base = unedited_prod
    edited = PROD.replace(line, line + "  gcp:billingCustomEndpoint: https://billing.example/\n")
    head = plan(_project(tmp_path / "head", prod=edited))[1]
    assert base is not None and head is not None
    r = review(base, head)
    assert [c.id for c in r.blocking] == ["config.gcp:billingCustomEndpoint"]
    text = build_comment([StackPlans("prod", head, base)]).text
    assert "**Governance weakened**" in text
    assert "`config.gcp:billingCustomEndpoint`" in text


def test_an_esc_import_is_mandatory_in_prod_and_a_weakening(
    tmp_path: Path, plan, unedited_prod: dict[str, Any]
) -> None:
    base = unedited_prod
    edited = PROD + "environment:\n  - acme/prod-overrides\n"
    code, head, err = plan(_project(tmp_path / "head", prod=edited))
    assert code == Exit.FAILED, err
    assert base is not None and head is not None
    assert head["stack_config"]["esc_environments"] == ["acme/prod-overrides"]
    found = [v for v in head["violations"] if v["policy"] == ESC_FINDING]
    assert [(v["enforcement"], v["resource"]) for v in found] == [("mandatory", "prod")]
    assert "acme/prod-overrides" in found[0]["message"]
    r = review(base, head)
    assert "stack.esc_environments" in {c.id for c in r.blocking}


def test_an_esc_import_outside_prod_is_advisory(tmp_path: Path, plan) -> None:
    root = _project(tmp_path)
    (root / "stacks" / "Pulumi.dev.yaml").write_text(
        DEV + "environment:\n  imports: [acme/dev]\n  values: {pulumiConfig: {x: 1}}\n"
    )
    code, doc, err = plan(root, "dev")
    assert code == Exit.OK, err
    assert doc is not None
    assert doc["stack_config"]["esc_environments"] == ["acme/dev", "(inline values)"]
    found = [v for v in doc["violations"] if v["policy"] == ESC_FINDING]
    assert [v["enforcement"] for v in found] == ["advisory"]


def test_the_shipped_stacks_import_nothing_and_set_no_other_key() -> None:
    for stack in ("dev", "staging", "prod"):
        read = read_stack(REPO / "stacks" / f"Pulumi.{stack}.yaml")
        assert (read.environments, read.from_project, read.shown) == ((), (), {}), stack


# --------------------------------------------------------------------------- the program's namespace
def test_a_program_of_ones_own_reads_its_project_namespace(tmp_path: Path, plan) -> None:
    # `pulumi.Config()` reads `<project name>:<key>`; offline the mocks named every project
    # "mlgov", so this program failed offline while `pulumi up` deployed it.
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi\nimport pulumi_gcp as gcp\n"
        "cfg = pulumi.Config()\n"
        "gcp.storage.Bucket('b', location='US', name=cfg.require('bucket'),\n"
        "                   labels={'team': 'shop', 'cost-center': 'cc-1'})\n"
    )
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "config:\n  gcp:project: shop-ml-dev\n  shop:bucket: shop-data\n"
    )
    code, doc, err = plan(tmp_path, "dev")
    assert code in (Exit.OK, Exit.FAILED), err
    assert doc is not None
    buckets = [r for r in doc["resources"] if r["type"] == "gcp:storage/bucket:Bucket"]
    assert [b["inputs"]["name"] for b in buckets] == ["shop-data"]


def test_init_writes_the_stack_file_pulumi_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Pulumi.yml").write_text("name: shop\nruntime: python\n")
    monkeypatch.chdir(tmp_path)
    args = ["init", "--stack", "qa", "--project", "shop-ml-qa"]
    assert main(args) == Exit.OK, capsys.readouterr().err
    assert (tmp_path / "Pulumi.qa.yml").is_file()
    assert not (tmp_path / "Pulumi.qa.yaml").exists()
    (tmp_path / "Pulumi.yml").rename(tmp_path / "Pulumi.json")
    (tmp_path / "Pulumi.json").write_text('{"name": "shop", "runtime": "python"}')
    assert main([*args[:2], "qa2", *args[3:]]) == Exit.INVALID
    assert "Pulumi.json" in capsys.readouterr().err


# --------------------------------------------------------------------------- YAML Pulumi reads otherwise
@pytest.mark.parametrize(
    ("old", "new", "tag"),
    [
        # a Python set here (planned fine), a mapping of nulls to Pulumi's reader
        ("zones: [europe-west4-a, europe-west4-b]", "zones: !!set {europe-west4-a, europe-west4-b}",
         "!!set"),
        # the billing account hidden from a reviewer reading the diff as base64
        ("billing_account: 01D4EE-079462-DFD6EC", "billing_account: !!binary MDFENEVFLTA3OTQ2Mi1ERkQ2RUM=",
         "!!binary"),
    ],
)  # fmt: skip
def test_python_only_yaml_tags_are_refused(
    tmp_path: Path, plan, old: str, new: str, tag: str
) -> None:
    assert old in PROD
    err = _refused(plan(_project(tmp_path, prod=PROD.replace(old, new))), f"tag {tag} is not read")
    assert "stacks/Pulumi.prod.yaml: not valid YAML (line " in err


def test_operator_tools_warn_that_esc_values_are_not_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from governance.inputs.project import read_stack_config

    root = _project(tmp_path, prod=PROD + "environment: [acme/prod]\n")
    config = read_stack_config(root / "stacks" / "Pulumi.prod.yaml")
    assert config["gcp:project"] == "acme-ml-prod"
    err = capsys.readouterr().err
    assert "mlgov: warning: " in err and "(acme/prod)" in err and "not applied here" in err


@pytest.mark.parametrize("key", ["dry_run ", "dry\u200brun", "dr\u0443_run"])
def test_a_look_alike_settings_key_is_refused(tmp_path: Path, plan, key: str) -> None:
    # trailing space, zero-width space, Cyrillic "u": a key the reviewer reads as dry_run
    edited = PROD.replace("      dry_run: false\n", f'      dry_run: false\n      "{key}": true\n')
    _refused(plan(_project(tmp_path, prod=edited)), "mlgov:settings.automation.")


def test_a_look_alike_config_key_shows_in_the_governance_diff(
    tmp_path: Path, plan, unedited_prod: dict[str, Any]
) -> None:
    # `mlg\u043ev:settings` (Cyrillic o) is another key to Pulumi: the program never reads it, but
    # a reviewer may believe it does; it is listed, never silent.
    line = "  gcp:region: europe-west4\n"
    base = unedited_prod
    edited = PROD.replace(line, line + "  mlg\u043ev:settings: {automation: {dry_run: true}}\n")
    head = plan(_project(tmp_path / "head", prod=edited))[1]
    assert base is not None and head is not None
    assert [c.id for c in review(base, head).changes] == ["config.mlg\u043ev:settings"]


def test_the_esc_finding_survives_check_re_evaluating_the_plan(
    tmp_path: Path, plan, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, _ = plan(_project(tmp_path, prod=PROD + "environment: [acme/prod]\n"))
    assert code == Exit.FAILED and doc is not None
    saved = tmp_path / "prod.json"
    saved.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["check", str(saved), "--json"]) == Exit.FAILED
    again = json.loads(capsys.readouterr().out)
    found = [v for v in again["violations"] if v["policy"] == ESC_FINDING]
    assert [v["enforcement"] for v in found] == ["mandatory"]


def test_settings_moved_into_the_project_config_are_what_is_planned(
    tmp_path: Path, plan, unedited_prod: dict[str, Any]
) -> None:
    # The prod stack file drops `mlgov:settings`; Pulumi.yaml's `settings` (project `mlgov`:
    # the key mlgov:settings) supplies them with dry run on. Before, the plan refused the stack
    # (no mlgov:settings) while `pulumi up` deployed the project's settings.
    import yaml

    base = unedited_prod
    config = yaml.safe_load(PROD)["config"]
    settings = config.pop("mlgov:settings")
    settings["automation"]["dry_run"] = True
    project = PROJECT + yaml.safe_dump({"config": {"settings": {"default": settings}}})
    root = _project(tmp_path / "head", project, yaml.safe_dump({"config": config}))
    code, head, err = plan(root)
    assert code in (Exit.OK, Exit.FAILED), err
    assert base is not None and head is not None
    assert head["stack_config"]["from_project"] == ["mlgov:settings"]
    r = review(base, head)
    assert "policy.dry_run" in {c.id for c in r.blocking}


def test_a_hostile_key_cannot_forge_a_line(tmp_path: Path, plan) -> None:
    key = "x\\nmlgov: error: all good " + "a" * 500
    edited = PROD.replace(
        "  gcp:region: europe-west4\n", f'  gcp:region: europe-west4\n  "{key}": 1\n'
    )
    err = _refused(plan(_project(tmp_path, prod=edited)), "not a Pulumi config key")
    assert len(err.splitlines()) == 1 and len(err) < 400, err
