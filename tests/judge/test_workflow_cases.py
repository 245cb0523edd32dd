"""Issue 30's cases, each through the real PR check: plan.yml's plan step, then judge.yml's.

Every case is a hostile PR against this project's prod stack. The judge must block it (the
`mlgov/judge` status fails) and say why in the comment; a benign PR must pass. Cases H1-H3 and
M1-M3 edit stack files only (the judge plans them itself); H4-H7 and M4 carry code (the PR's
own program plans, its plans are data, and the code is listed for an owner); N1-N4 are plan
files a hostile PR uploads.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.judge.fake_github import FakeGitHub, serve
from tests.judge.harness import ROOT, PullRequest, make_base_repo, warm

# Each case runs the workflows' real steps in fresh environments (minutes in all): `make e2e`.
pytestmark = pytest.mark.e2e


def _plans(starts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The `plan` processes among a side's starts: (folder, arguments)."""
    return [(cwd, args) for cwd, args in starts if args.startswith("-P -m governance plan ")]


def test_a_pr_that_changes_only_prose_passes(pr: PullRequest) -> None:
    pr.replace("README.md", "mlgov", "mlgov (edited)")
    out = pr.judge()
    assert out.returncode == 0, out.log
    assert out.status == "0", out.comment + out.log
    assert ":white_check_mark: no mandatory findings." in out.comment
    assert "Code that decides governance changed" not in out.comment
    # One planning process per side: the PR's program plans every stack at once (plan.yml);
    # the judge plans the base's stacks at once, and (no governance code changed) the head's.
    ((_, head_args),) = _plans(out.starts["pr"])
    assert head_args.startswith("-P -m governance plan --all --out-dir ")
    assert "--base" not in head_args and "--cache-dir" not in head_args
    (base, head) = _plans(out.starts["judge"])
    assert (
        base[0] == str(pr.tmp / "base") and "--stack=prod" in base[1] and "--cache-dir" in base[1]
    )
    assert head[0] == str(pr.repo) and "--stack=prod" in head[1] and "--cache-dir" not in head[1]


def test_the_judge_reads_no_plan_of_the_prs_program_it_can_make_itself(pr: PullRequest) -> None:
    pr.stack(_dry_run)
    out = pr.judge()
    assert out.blocked and "`policy.dry_run`" in out.comment, out.comment + out.log
    assert len(_plans(out.starts["pr"])) == 1
    assert [cwd for cwd, _ in _plans(out.starts["judge"])] == [str(pr.tmp / "base"), str(pr.repo)]


def test_the_judge_reads_the_base_plans_the_warm_job_made(origin: Path, tmp_path: Path) -> None:
    # warm (a push to the default branch) and the judge (a PR based on that commit) install and
    # plan alike, so the entries' keys match: the judge plans no base stack itself.
    cache = tmp_path / "cache"
    log = warm(origin, tmp_path / "warm", cache)
    assert "mlgov: plan prod: planned (exit 0)" in log and "exited 0" in log
    (tmp_path / "pr").mkdir()
    pr = PullRequest(tmp_path / "pr", origin, cache)
    pr.stack(_dry_run)
    out = pr.judge(produce=False)
    assert out.blocked and "`policy.dry_run`" in out.comment, out.comment + out.log
    assert "mlgov: plan prod: planned (exit 0), from the plan cache" in out.log, out.log
    assert "plan cache:" not in out.log  # no entry refused, none missing


def test_a_poisoned_base_plan_in_the_cache_is_refused_and_planned_again(
    origin: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    (tmp_path / "one").mkdir()
    first = PullRequest(tmp_path / "one", origin, cache)
    first.stack(_dry_run)
    clean = first.judge(produce=False)
    assert clean.blocked and "`policy.dry_run`" in clean.comment, clean.comment + clean.log
    # The base's prod plan, as the judge workflow keeps it. Poisoned: its plan says the base
    # already ran in dry run (the PR's change would read "Unchanged" and pass), and its key is
    # another commit's tree (an entry of another base planted under this one's name).
    (entry,) = cache.glob("plan-*.json")
    data = json.loads(entry.read_text())
    plan = json.loads(data["stdout"])
    poisoned = 0
    for resource in plan["resources"]:
        variables = (resource["inputs"].get("serviceConfig") or {}).get(
            "environmentVariables"
        ) or {}
        if '"dry_run":false' in variables.get("MLGOV_POLICY", ""):
            variables["MLGOV_POLICY"] = variables["MLGOV_POLICY"].replace(
                '"dry_run":false', '"dry_run":true'
            )
            poisoned += 1
    assert poisoned
    data["stdout"] = json.dumps(plan)
    data["key"]["tree"] = "0" * 40
    entry.write_text(json.dumps(data))
    (tmp_path / "two").mkdir()
    second = PullRequest(tmp_path / "two", origin, cache)
    second.stack(_dry_run)
    out = second.judge(produce=False)
    assert f"plan cache: {entry}: its key is not this plan's" in out.log, out.log
    assert "not used, prod is planned again" in out.log
    assert out.blocked and out.comment == clean.comment  # judged on the base's real plan
    assert json.loads(json.loads(entry.read_text())["stdout"]) != plan  # and kept anew


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


def _findings(comment: str) -> list[str]:
    return [line for line in comment.splitlines() if line.startswith("| :x: mandatory")]


def test_h2_a_time_budget_of_zero_is_refused_named(pr: PullRequest) -> None:
    pr.stack(lambda s: s["automation"].update(http_timeout_seconds=60))
    out = pr.judge(produce=False)
    assert out.blocked, out.comment + out.log
    assert "### :x: `prod`: the stack could not be planned" in out.comment
    assert "time_budget_seconds is 0 s, below the 30 s" in out.comment


def test_h3_two_halves_of_ipv4_open_the_control_plane(pr: PullRequest) -> None:
    halves = [{"cidr_block": "0.0.0.0/1"}, {"cidr_block": "128.0.0.0/1"}]
    pr.stack(
        lambda s: s["gke"].update(
            control_plane={"public_endpoint": True, "authorized_networks": halves}
        )
    )
    out = pr.judge(produce=False)
    assert out.blocked, out.comment + out.log
    assert "`mlgov-gke-control-plane-private`" in out.comment
    assert "`gke-cluster.controlPlane.authorizedShare`" in out.comment
    assert "100% of IPv4" in out.comment
    assert "Unchanged" not in out.comment


H100 = {"kind": "gpu", "machine_type": "a3-highgpu-8g", "accelerator": "nvidia-h100-80gb",
        "accelerator_count": 8, "max_nodes": 1}  # fmt: skip


def test_m1_a_new_prod_stack_is_judged_on_its_own(pr: PullRequest) -> None:
    source = pr.repo / "stacks" / "Pulumi.prod.yaml"
    pr.write("stacks/Pulumi.prod-eu.yaml", source.read_text())

    def weak(s: dict[str, Any]) -> None:
        s["prefix"] = "acme-prod-eu"
        s["automation"]["dry_run"] = True
        s["training_pools"]["h100"] = {**H100, "exempt": True}

    pr.stack(weak, "prod-eu")
    out = pr.judge(produce=False)
    assert out.blocked, out.comment + out.log
    assert "A new stack: judged on its own" in out.comment
    section = out.comment.split("`prod-eu`", 1)[1]
    assert "`policy.dry_run`" in section
    assert "`training-h100.labels.mlgov-exempt`" in section
    assert ":x: mandatory (`mlgov-governance-weakened`)" in section


def test_m2_a_usage_assumption_that_hides_a_new_pool_moves_the_headline(pr: PullRequest) -> None:
    def hide(s: dict[str, Any]) -> None:
        s["training_pools"]["h100"] = dict(H100)
        s["usage"]["training_pool_average_nodes"] = 0.01

    pr.stack(hide)
    out = pr.judge(produce=False)
    assert out.blocked, out.comment + out.log
    assert "`assumptions.training_pool_average_nodes`" in out.comment
    header = next(
        line for line in out.comment.splitlines() if line.startswith("### ") and "prod" in line
    )
    assert "usage assumptions changed: +$" in header, header
    assert "with the base's assumptions" in header and "with the head's" in header


def test_m3_lookalike_labels_on_every_resource_are_flagged(pr: PullRequest) -> None:
    pr.stack(
        lambda s: s.update(labels={"team": "ml-pl\u0430tform", "cost-center": "\u0441\u0441-9000"})
    )
    out = pr.judge(produce=False)
    assert out.blocked, out.comment + out.log
    assert "`labels.team.lookalike`" in out.comment
    assert "`labels.cost-center.lookalike`" in out.comment
    assert "\\u0430" in out.comment  # the lookalike is shown for what it is
    assert "Unchanged (same governance" not in out.comment


# ---------------------------------------------------------------- code the PR carries
@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    state = FakeGitHub(teams={"mlgov/maintainers": {"alice"}})
    with serve(state) as running:
        yield running


def _dry_run(s: dict[str, Any]) -> None:
    s["automation"]["dry_run"] = True


def _code_section(comment: str) -> str:
    """The comment's code section, up to the first stack's section."""
    assert "**Code that decides governance changed**" in comment, comment
    return comment.split("**Code that decides governance changed**", 1)[1].split("\n### ", 1)[0]


def test_h4_a_pr_that_breaks_the_base_under_its_own_code_is_still_compared(
    pr: PullRequest, github: FakeGitHub
) -> None:
    # The PR renames a helper every rule uses: under the PR's environment the base would not
    # plan, and read as "no base", exit 0. The judge plans the base with the base's own code.
    for path in [*pr.repo.glob("policies/**/*.py"), *pr.repo.glob("governance/**/*.py")]:
        text = path.read_text()
        if "as_mapping" in text:
            path.write_text(text.replace("as_mapping", "as_mapping_v2"))
    pr.stack(_dry_run)
    out = pr.judge(github=github)
    assert out.blocked, out.comment + out.log
    assert "No base plan" not in out.comment and "could not be planned" not in out.comment
    assert "`policy.dry_run`" in out.comment
    assert "`policies/mlgov_policies/props.py`" in out.comment
    assert "wait for an owner's approval of this commit" in _code_section(out.comment)


def test_h5_one_line_in_the_functions_is_listed_and_blocks_until_an_owner_approves(
    pr: PullRequest, github: FakeGitHub
) -> None:
    pr.replace(
        "functions/govern/parse/policy.py",
        'dry_run=_bool(top.get("dry_run", True), f"{root}.dry_run"),',
        'dry_run=bool(__import__("os").environ.get("K_SERVICE"))\n'
        '        or _bool(top.get("dry_run", True), f"{root}.dry_run"),',
    )
    out = pr.judge(github=github)
    assert out.blocked, out.comment + out.log
    assert "`functions/govern/parse/policy.py`" in out.comment
    assert "1 file(s) wait for an owner's approval of this commit" in out.comment
    assert "`mlgov-governance-code-changed`" in out.comment


def test_h5_an_owners_approval_of_the_head_commit_lets_it_through(
    pr: PullRequest, github: FakeGitHub
) -> None:
    pr.replace("functions/govern/parse/policy.py", "simulate unless told", "simulate unless told.")
    github.author = "mallory"
    # the author's own approval never counts, bob is no owner, a comment approves nothing
    out = pr.judge(github=github, approve=["mallory", "bob", ("alice", "COMMENTED"), "alice"])
    assert out.status == "0", out.comment + out.log
    assert "an owner approved every file on this commit" in out.comment
    # the approver, by the team that owns the file (an @mention is never made: no ping)
    assert "alice \\(@&#8203;mlgov/maintainers\\)" in _code_section(out.comment)
    assert all(auth == "Bearer ghs_fake-token" for _, auth in out.requests)


def test_h6_a_pth_planted_by_the_prs_tests_cannot_reach_the_judge(
    pr: PullRequest, github: FakeGitHub, tmp_path: Path
) -> None:
    seen = tmp_path / "pth-ran-in"
    # Rewrites `\"dry_run\":true` (the policy inside the plan's JSON) to false in every dump.
    hide = (
        f"import sys, json; open({str(seen)!r}, 'a').write(sys.executable + chr(10)); "
        "_d = json.dumps; _q = chr(92) + chr(34); "
        "json.dumps = lambda *a, _d=_d, _q=_q, **k: _d(*a, **k).replace("
        "_q + 'dry_run' + _q + ':true', _q + 'dry_run' + _q + ':false')\n"
    )
    pr.write(
        "tests/conftest.py",
        (pr.repo / "tests" / "conftest.py").read_text()
        + "\n\ndef pytest_configure(config):  # plants a .pth in the environment\n    pass\n",
    )
    pr.stack(_dry_run)
    out = pr.judge(github=github, plant=[("zz_hide.pth", hide)])
    assert out.blocked, out.comment + out.log
    assert "`tests/conftest.py`" in _code_section(out.comment)
    ran = set(seen.read_text().split())
    assert ran and all("pr-env" in python for python in ran), ran  # never the judge's python
    # The untrusted plan did hide the dry run (so no weakening shows); what blocks is the code.
    head = json.loads((out.work / "head" / "prod.json").read_text())
    policies = [
        json.loads(r["inputs"]["serviceConfig"]["environmentVariables"]["MLGOV_POLICY"])
        for r in head["resources"]
        if "MLGOV_POLICY" in str(r["inputs"].get("serviceConfig"))
    ]
    assert policies and not any(p["dry_run"] for p in policies)
    assert "`policy.dry_run`" not in out.comment


def test_h7_a_root_module_that_shadows_the_standard_library_is_listed(
    pr: PullRequest, github: FakeGitHub
) -> None:
    pr.write("textwrap.py", "raise SystemExit('shadowed')\n")
    pr.stack(_dry_run)
    out = pr.judge(github=github)
    assert out.blocked, out.comment + out.log
    assert "`textwrap.py`" in _code_section(out.comment)
    # `-P`: the PR's own plan ran with the standard library's textwrap, so it still shows the
    # dry run it turns on
    assert "`policy.dry_run`" in out.comment


def test_m4_a_program_that_switches_on_dry_run_only_when_deployed_is_listed(
    pr: PullRequest, github: FakeGitHub
) -> None:
    pr.replace(
        "__main__.py",
        "settings = read_settings()\n",
        "settings = read_settings()\n"
        "import os\n"
        "if os.environ.get('GOOGLE_APPLICATION_CREDENTIALS'):\n"
        "    settings = settings.model_copy(update={'automation': settings.automation.model_copy("
        "update={'dry_run': True})})\n",
    )
    out = pr.judge(github=github)
    assert out.blocked, out.comment + out.log
    assert "`__main__.py`" in _code_section(out.comment)
    assert "`policy.dry_run`" not in out.comment  # invisible under mocks: only the owner can see it


# ---------------------------------------------------------------- inputs that passed or crashed
DATA = ROOT / "tests" / "formats" / "data"
GOLDEN = ROOT / "tests" / "golden" / "plan.prod.json"


def _uploaded(text: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / "prod.json").write_text(text)
        (folder / "status.tsv").write_text("prod\t0\tplanned\n")  # as `plan --out-dir` writes
        (folder / "prod.err").write_text("")

    return write


def _with_disk(size: str) -> str:
    doc = GOLDEN.read_text()
    disk = (
        '{"type": "gcp:compute/disk:Disk", "name": "scratch", "inputs": {"zone": '
        f'"europe-west4-a", "type": "pd-balanced", "size": {size}}}}}'
    )
    return doc.replace('"resources": [', f'"resources": [{disk}, ', 1)


@pytest.mark.parametrize(
    ("case", "upload", "named"),
    [
        ("N1", (DATA / "preview_aws_same-and-create_cli3.3x.json").read_text(),
         "no Google Cloud resource to judge"),
        ("N2", (DATA / "preview_gcp_no-sames_unlisted-provider.json").read_text(),
         "a preview without its unchanged resources"),
        ("N3", _with_disk("1" + "0" * 400),
         "resources[0] (scratch).inputs.size: 100000000000...(401 digits) is larger than any "
         "Google Cloud API field holds"),
        ("N4", _with_disk("-100"),
         "resources[0] (scratch).inputs.size: -100 is negative: a size or count cannot be"),
    ],
)  # fmt: skip
def test_plans_that_cannot_be_judged_are_refused_named(
    pr: PullRequest, github: FakeGitHub, case: str, upload: str, named: str
) -> None:
    # The PR carries code (so its own uploads are read), and an owner approved it: what blocks
    # is the refusal alone.
    pr.replace("__main__.py", "Thin on purpose", "Thin, on purpose")
    out = pr.judge(head_plans=_uploaded(upload), github=github, approve=["alice"])
    assert out.blocked, (case, out.comment + out.log)
    assert "an owner approved every file on this commit" in out.comment
    assert "### :x: `prod`: the plan cannot be judged" in out.comment
    assert named in out.comment, out.comment
    assert "$0.00/month" not in out.comment
    assert "Traceback" not in out.log and "internal error" not in out.log


def test_a_base_that_cannot_be_planned_blocks_and_is_named(tmp_path: Path) -> None:
    # H4's other half: whatever breaks the base, it never reads as "no base plan", exit 0.
    origin = make_base_repo(tmp_path / "broken")
    stack = origin / "stacks" / "Pulumi.prod.yaml"
    stack.write_text(stack.read_text().replace("environment: prod", "environment: prd"))
    subprocess.run(["git", "-C", str(origin), "commit", "-qam", "broken base"], check=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})  # fmt: skip
    (tmp_path / "case").mkdir()
    pr = PullRequest(tmp_path / "case", origin, tmp_path / "cache")
    pr.stack(lambda s: s.update(environment="prod"))  # the PR fixes it, and turns on dry run
    pr.stack(_dry_run)
    out = pr.judge(produce=False)
    assert out.blocked, out.comment + out.log
    assert "### :x: `prod`: the PR base could not be planned" in out.comment
    assert "mlgov:settings.environment" in out.comment
    assert "No base plan" not in out.comment
