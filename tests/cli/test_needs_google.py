"""The commands that talk to Google Cloud say what they need, offline, and never a traceback.

`spend`, `jobs`, `cap` and `prices refresh` read or change the cloud; everything else runs
offline. Without credentials each names the command to run (exit 2: the caller's setup); with
credentials Google's token endpoint refuses (an expired login), `spend` and `cap` say to log in
again. The fake is the cloud only: no Application Default Credentials anywhere (an empty gcloud
config folder, no metadata server check), or governance/fakecloud/token.py's refusing token endpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.fakecloud import token

REPO = Path(__file__).resolve().parents[2]

COMMANDS = {
    "spend": ["spend", "--stack", "dev", "--no-plan"],
    "jobs": ["jobs", "--stack", "dev", "list"],
    "cap status": ["cap", "status", "--stack", "dev"],
    "cap restore": ["cap", "restore", "--stack", "dev", "--dry-run"],
    "prices refresh": ["prices", "refresh", "--output", "{tmp}/prices.json"],
}


@pytest.fixture
def no_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(REPO)
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "MLGOV_API_ENDPOINTS", "MLGOV_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    gcloud = tmp_path / "gcloud"
    gcloud.mkdir()
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(gcloud))  # no `gcloud auth` login here
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # and no metadata server to ask
    return tmp_path


@pytest.fixture
def refused_credentials(no_credentials: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with token.refusing_token_endpoint() as url:
        key = token.service_account_key(no_credentials, url, "acme-ml-dev")
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
        yield no_credentials


def _argv(name: str, tmp: Path) -> list[str]:
    return [a.format(tmp=tmp) for a in COMMANDS[name]]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_without_credentials_each_says_what_to_run(name, no_credentials, capsys):
    code = main(_argv(name, no_credentials))
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith("mlgov: error: no Google credentials")
    assert "run `gcloud auth application-default login`" in line


REFUSED = (
    "Google refused the credentials (invalid_grant: Invalid JWT Signature.): run `gcloud auth "
    "application-default login` again (or set GOOGLE_APPLICATION_CREDENTIALS)"
)


def test_spend_with_refused_credentials_says_to_log_in_again(refused_credentials, capsys):
    code = main(_argv("spend", refused_credentials))
    assert code == 2  # spend's contract: every failure is 2
    assert capsys.readouterr().err == f"mlgov: error: {REFUSED}\n"


def test_cap_with_refused_credentials_says_to_log_in_again(refused_credentials, capsys):
    code = main(_argv("cap status", refused_credentials))
    out, err = capsys.readouterr()
    assert code == 4  # a Google endpoint refused
    lines = err.splitlines()
    assert lines and all(REFUSED in line for line in lines), err
    assert "nothing capped found, but 2 read(s) failed" in out


@pytest.mark.parametrize(
    "argv",
    [["spend"], ["jobs"], ["cap"], ["prices", "refresh"]],
)
def test_their_help_says_they_need_google_cloud_before_they_run(argv, capsys):
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "Talks to Google Cloud: needs Application Default Credentials (`gcloud auth "
        "application-default login`) and the network, or a local server (" in text
    )


def test_the_top_help_tells_offline_commands_from_cloud_ones(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "offline (no account, no credentials, no Pulumi CLI): plan, check, policy-config, diff, "
        "comment, init, stacks, report --no-spend." in text
    )
    assert "spend, jobs, cap, prices refresh;" in text
