"""`mlgov init`: a minimal, commented stack file that plans cleanly, and never an overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from governance.cli.main import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_init_in_an_empty_folder_plans_cleanly(
    env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["init", "--stack", env, "--environment", env], capsys)
    assert code == 0, err
    assert out.splitlines() == [
        "wrote Pulumi.yaml",
        "wrote __main__.py",
        f"wrote stacks/Pulumi.{env}.yaml",
        f"next: mlgov plan --stack {env}",
    ]
    # Example values are said to be examples, once, naming the options.
    assert "--project, --project-number, --billing-account, --team, --cost-center" in err
    text = (tmp_path / "stacks" / f"Pulumi.{env}.yaml").read_text()
    assert text.count("CHANGE ME: an example") == 4
    settings = yaml.safe_load(text)["config"]["mlgov:settings"]
    assert settings["environment"] == env
    assert set(settings) <= {
        "environment",
        "prefix",
        "project_number",
        "zones",
        "billing_account",
        "labels",
        "budget",
        "bigquery_quotas",  # prod's policies require it
    }
    code, out, err = _run(["plan", "--stack", env, "--json"], capsys)
    # Issue 32: the examples plan, but never "OK" in prod: a finding names each one left.
    assert code == (1 if env == "prod" else 0), err
    doc = json.loads(out)
    (found,) = [v for v in doc["violations"] if v["policy"] == "mlgov-stack-placeholder-values"]
    assert found["enforcement"] == ("mandatory" if env == "prod" else "advisory")
    for value in (f"'my-ml-{env}'", "'000000-000000-000000'", "'100000000000'", "'cc-0000'"):
        assert value in found["message"], value
    others = [v for v in doc["violations"] if v is not found]
    assert [v for v in others if v["enforcement"] == "mandatory"] == []
    assert any(r["type"] == "gcp:billing/budget:Budget" for r in doc["resources"])
    # `check` of the saved plan says the same
    saved = tmp_path / "plan.json"
    saved.write_text(out)
    code, again, _ = _run(["check", str(saved), "--json"], capsys)
    assert code == (1 if env == "prod" else 0)
    assert found in json.loads(again)["violations"]


def test_init_takes_the_values_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [
        "init",
        "--stack",
        "qa",
        "--project",
        "acme-ml-qa",
        "--project-number",
        "987654321098",
        "--billing-account",
        "01D4EE-079462-DFD6EC",
        "--team",
        "vision",
        "--cost-center",
        "cc-77",
        "--region",
        "europe-west4",
        "--budget",
        "750",
    ]
    code, _, err = _run(argv, capsys)
    assert (code, err) == (0, "")
    config = yaml.safe_load((tmp_path / "stacks" / "Pulumi.qa.yaml").read_text())["config"]
    assert (config["gcp:project"], config["gcp:region"]) == ("acme-ml-qa", "europe-west4")
    s = config["mlgov:settings"]
    assert s["prefix"] == "vision-dev"
    assert s["zones"] == ["europe-west4-a", "europe-west4-b"]
    assert s["labels"] == {"team": "vision", "cost-center": "cc-77"}
    assert s["budget"] == {"amount_usd": 750}
    assert "CHANGE ME" not in (tmp_path / "stacks" / "Pulumi.qa.yaml").read_text()
    code, out, _ = _run(["plan", "--stack", "qa", "--json"], capsys)
    assert not any(
        v["policy"] == "mlgov-stack-placeholder-values" for v in json.loads(out)["violations"]
    )


def test_init_refuses_to_overwrite_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "__main__.py").write_text("print('mine')\n")
    code, out, err = _run(["init", "--stack", "dev"], capsys)
    assert (code, out) == (2, "")
    assert err == "mlgov: error: __main__.py: already exists; mlgov init never overwrites\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["__main__.py"]
    assert (tmp_path / "__main__.py").read_text() == "print('mine')\n"


def test_inside_a_project_init_writes_only_the_stack_file_where_the_project_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: shop\nruntime: python\nstackConfigDir: config\n")
    (tmp_path / "infra").mkdir()
    monkeypatch.chdir(tmp_path / "infra")
    code, out, _ = _run(["init", "--stack", "dev"], capsys)
    assert code == 0
    assert out.splitlines()[0] == f"wrote {tmp_path / 'config' / 'Pulumi.dev.yaml'}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.yaml", "config", "infra"]
    code, _, err = _run(["init", "--stack", "dev"], capsys)
    assert code == 2
    assert "config/Pulumi.dev.yaml: already exists; mlgov init never overwrites" in err


def test_an_invalid_label_is_refused_naming_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["init", "--stack", "dev", "--team", "Vision Team"], capsys)
    assert code == 2
    assert err.startswith("mlgov: error: --team: label value 'Vision Team' for 'team' may contain")
    assert list(tmp_path.iterdir()) == []


def test_init_names_the_option_whose_value_is_invalid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["init", "--stack", "dev", "--project", "Shop", "--region", "mars", "--budget", "0"]
    code, out, err = _run(argv, capsys)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert [line.split(": ")[2] for line in lines] == ["--project", "--region", "--budget"]
    assert list(tmp_path.iterdir()) == []


def test_init_refuses_a_stack_name_that_is_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["init", "--stack", "../x"], capsys)
    assert code == 2
    assert "--stack: '../x' is not a stack name" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("region", ["europe-west1", "us-east1", "us-central1"])
def test_init_picks_zones_the_region_has(
    region: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # europe-west1 and us-east1 have no zone -a (Google's regions-and-zones table, zones.json):
    # the stack file names the region's first two zones, and plans.
    from governance.settings.locations import region_zones

    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["init", "--stack", "dev", "--region", region], capsys)
    assert code == 0, err
    config = yaml.safe_load((tmp_path / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    zones = config["mlgov:settings"]["zones"]
    assert zones == list(region_zones(region)[:2]) and len(zones) == 2
    assert region != "us-central1" or zones == ["us-central1-a", "us-central1-b"]
    assert region == "us-central1" or f"{region}-a" not in zones
    code, _, err = _run(["plan", "--stack", "dev"], capsys)
    assert code == 0, err


def test_init_refuses_a_stack_name_longer_than_pulumi_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pulumi refuses stack names over 100 characters ("stack names are limited to 100
    # characters"); `plan --stack` does too, so init must not write a stack nothing can plan.
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["init", "--stack", "a" * 101], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("mlgov: error: --stack: 'aaaa")
    assert "is not a stack name" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
    code, _, err = _run(["init", "--stack", "a" * 100], capsys)
    assert code == 0, err


def test_init_that_cannot_write_every_file_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A file named `stacks` where the stack folder goes: the project files must not be left
    # behind half-made, and the error names the file in the way, not "File exists".
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stacks").write_text("notes\n")
    code, out, err = _run(["init", "--stack", "dev"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "mlgov: error: stacks: is a file, not a folder; mlgov init writes "
        "stacks/Pulumi.dev.yaml there\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stacks"]
    assert (tmp_path / "stacks").read_text() == "notes\n"


def test_init_removes_what_it_wrote_when_a_later_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A failure the checks cannot foresee (disk full, a read-only folder for a non-root user):
    # the files this run created are removed again, nothing else is touched.
    import governance.cli.init as init

    monkeypatch.chdir(tmp_path)
    real = init._write_new  # pyright: ignore[reportPrivateUsage]

    def failing(path: Path, text: str) -> None:
        if path.name.startswith("Pulumi.dev"):
            raise OSError(28, "No space left on device")
        real(path, text)

    monkeypatch.setattr(init, "_write_new", failing)
    code, out, err = _run(["init", "--stack", "dev"], capsys)
    assert (code, out) == (2, "")
    assert err == "mlgov: error: stacks/Pulumi.dev.yaml: cannot write: No space left on device\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        # a colon broke the flow mapping the labels are written in: exit 3 (ParserError)
        ("--team", "a: b", "--team: label value 'a: b' for 'team' may contain only"),
        # a YAML comment was dropped when the file was read back: the value silently changed
        ("--billing-account", "0A0A0A-0A0A0A-0A0A0A # x", "--billing-account: '0A0A0A-0A0A0A"),
        # a newline would start a line of its own, in the comment above project_number too
        ("--project", "acme-ml-dev\n  evil: 1", "--project: 'acme-ml-dev\\n  evil: 1' is not"),
        ("--project", "", "--project: '' is not"),
        ("--billing-account", "true", "--billing-account: 'true' is not"),
        ("--region", "us-central1 # x", "--region: 'us-central1 # x' is not a region name"),
        ("--region", "a: b", "--region: 'a: b' is not a region name"),
    ],
)
def test_init_writes_each_value_as_the_string_given(
    option: str,
    value: str,
    error: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["init", "--stack", "dev", f"{option}={value}"], capsys)
    assert (code, out) == (2, ""), err
    assert err.startswith(f"mlgov: error: {error}"), err
    assert len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_values_yaml_would_read_otherwise_are_written_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `no` is YAML 1.1's false and `0123` could be read as a number: both are label values.
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["init", "--stack", "dev", "--team", "no", "--cost-center", "0123"], capsys)
    assert code == 0, err
    text = (tmp_path / "stacks" / "Pulumi.dev.yaml").read_text()
    labels = yaml.safe_load(text)["config"]["mlgov:settings"]["labels"]
    assert labels == {"team": "no", "cost-center": "0123"}
