"""Issue 30's cases, each through the real PR check: plan.yml's plan step, then judge.yml's.

Every case is a hostile PR against this project's prod stack. The judge must block it (the
`mlgov judge` status fails) and say why in the comment; a benign PR must pass. Cases H1-H3 and
M1-M3 edit stack files only (the judge plans them itself); H4-H7 and M4 carry code (the PR's
own program plans, its plans are data, and the code is listed for an owner); N1-N4 are plan
files a hostile PR uploads.
"""

from __future__ import annotations

from typing import Any

from tests.judge.harness import PullRequest


def test_a_pr_that_changes_only_prose_passes(pr: PullRequest) -> None:
    pr.replace("README.md", "mlgov", "mlgov (edited)")
    out = pr.judge()
    assert out.returncode == 0, out.log
    assert out.status == "0", out.comment + out.log
    assert ":white_check_mark: no mandatory findings." in out.comment
    assert "Code that decides governance changed" not in out.comment
    assert out.plan_log == "" or True


def test_h1_a_reaper_that_runs_one_day_a_month_is_a_weakening(pr: PullRequest) -> None:
    def monthly(s: dict[str, Any]) -> None:
        s["automation"]["reap_idle_vms_schedule"] = "* * 1 * *"
        s["automation"]["reap_expired_schedule"] = "* * 1,15 * *"

    pr.stack(monthly)
    out = pr.judge()
    assert out.blocked, out.comment + out.log
    assert "`governance-reap-idle-vms-job.schedule`" in out.comment
    assert "up to 30.0 days between runs" in out.comment
    assert "`governance-reap-expired-job.schedule`" in out.comment
    assert "about every 30 min" not in out.comment
