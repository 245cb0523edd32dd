"""`mlgov cap` with credentials Google's sign-in endpoint refuses, or cannot be reached.

An authorized session trades the credentials for an access token before the API call; offline,
or with an expired login, that exchange fails first. The fake here is the cloud's token endpoint
only (governance/fakecloud/token.py): the CLI, google-auth and requests
run for real. Both ends must be exit 4 with a sentence saying what to do, never an internal
error, and `status` must not claim "nothing capped" when it read nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.fakecloud import token
from tests.cap.conftest import REPO
from tests.short_deadlines import use_short_budget


@pytest.fixture
def refusing_token_endpoint() -> Iterator[str]:
    with token.refusing_token_endpoint() as url:
        yield url


def _status(monkeypatch: pytest.MonkeyPatch, key: Path) -> int:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
    return main(["cap", "status", "--stack", "prod"])


def test_refused_credentials_say_to_log_in_again(
    refusing_token_endpoint, tmp_path, monkeypatch, capsys
):
    code = _status(monkeypatch, token.service_account_key(tmp_path, refusing_token_endpoint))
    out, err = capsys.readouterr()
    assert code == 4
    assert "internal error" not in err
    first = err.splitlines()[0]
    assert first.startswith("mlgov: error: gke clusters.list acme-ml-prod: GET projects/")
    assert "Google refused the credentials (" in first
    assert "run `gcloud auth application-default login` again" in first
    assert "  nothing capped found, but " in out
    assert "  nothing capped\n" not in out
    # the spend caps (Budget API, read beside GKE and Vertex AI) say the same, not a traceback
    [caps] = [line for line in err.splitlines() if line.startswith("mlgov: error: spend caps: ")]
    assert "Google refused the credentials (" in caps


def test_no_sign_in_endpoint_says_check_the_network(tmp_path, monkeypatch, capsys):
    closed = "http://127.0.0.1:9/token"  # discard port: nothing listens
    code = _status(monkeypatch, token.service_account_key(tmp_path, closed))
    out, err = capsys.readouterr()
    assert code == 4
    assert "internal error" not in err
    assert (
        "no access token: Google's sign-in endpoint did not answer (connection refused); "
        "check the network (and any proxy settings)"
    ) in err
    assert "  nothing capped found, but " in out


def test_an_unreachable_api_is_not_nothing_capped(monkeypatch, capsys):
    use_short_budget(monkeypatch)  # refused connections are retried: briefly, not for seconds
    monkeypatch.chdir(REPO)
    assert main(["cap", "status", "--stack", "prod", "--endpoint", "http://127.0.0.1:9"]) == 4
    out = capsys.readouterr().out
    assert "read(s) failed (listed on stderr): what the cap changed there is not shown" in out
    assert "  nothing capped\n" not in out
