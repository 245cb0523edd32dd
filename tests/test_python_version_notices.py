"""google-api-core's "Google will stop supporting this Python" notice stays out of our output.

On Python 3.11 (supported by mlgov), every google-cloud-* library prints a FutureWarning at
import from 2026-10-24 on. The CLI (governance/cli/main.py) and the functions (functions/main.py)
filter exactly that notice, with a comment saying why; the notices for a Python already past its
end of life still show. Each case runs a fresh interpreter (pytest's own filter would hide the
warning in-process), after a control run that shows the notice does appear without our filter.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

NOTICE = "which Google will stop supporting"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module", autouse=True)
def _notice_appears_without_the_filter() -> None:
    control = _python("import google.api_core")
    if NOTICE not in control.stderr:
        pytest.skip(f"google-api-core prints no support notice for Python {sys.version[:4]} today")


def test_the_cli_prints_no_support_notice(closed_url: str) -> None:
    # A closed port: `jobs run` fails at once (it is never retried).
    argv = ["jobs", "--stack", "dev", "--endpoint", closed_url, "run", "reap-expired"]
    result = subprocess.run(
        [sys.executable, "-m", "governance", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 4  # Exit.CLOUD: the API could not be reached
    assert "FutureWarning" not in result.stderr and NOTICE not in result.stderr
    assert result.stderr.startswith("mlgov: error: cloud scheduler: run acme-dev-reap-expired:")


def test_the_functions_print_no_support_notice_but_keep_the_others() -> None:
    result = _python(
        "import sys, warnings; sys.path.insert(0, 'functions'); import main\n"
        "import google.api_core, google.cloud.billing_v1\n"
        "warnings.warn('You are using a Python version (3.11.7) past its end of life.', "
        "FutureWarning)\n"
    )
    assert result.returncode == 0, result.stderr
    assert NOTICE not in result.stderr
    assert "past its end of life" in result.stderr  # the filter is that narrow
