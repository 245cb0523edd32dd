# pyright: basic
"""The demo's story, step by step (`make demo`, or `.venv/bin/python -m governance.demo`).

Each step says what it is about to show, runs it, and checks what it claims against the fake
cloud's state or the command's answer: a step that does not turn out as narrated stops the demo
with exit 1 (so CI notices when the story goes stale). Exit 0 when every step ran; 1 when one
failed; 130 on Ctrl-C; 143 on SIGTERM. Whatever the ending, the servers are stopped and the
temporary directory removed before the demo exits.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from governance.demo import cloud as fake_cloud
from governance.demo import export, function
from governance.demo.lifecycle import Stopped, Teardown, describe
from governance.demo.narrate import Narrator, StepFailed

STACK = "dev"
STEPS = 9
# The notification: this month's actual spend has crossed the budget (105% of it).
OVERSPEND = 1.05


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _pools(c: fake_cloud.Cloud, seeded: fake_cloud.Seeded) -> dict[str, tuple[int, bool]]:
    """{pool: (nodes, autoscaling on)} as the fake holds them now."""
    state: dict[str, tuple[int, bool]] = {}
    for pool in seeded.pools:
        body = c.container.pool(seeded.project, seeded.region, seeded.cluster, pool)
        size = c.container.sizes[(seeded.project, seeded.region, seeded.cluster, pool)]
        state[pool] = (size, bool((body.get("autoscaling") or {}).get("enabled")))
    return state


def _now() -> datetime:
    """The demo's clock: every time it shows (export rows, schedules, alerts) is relative to it."""
    return datetime.now(UTC)


def _next_run(table: str, job: str) -> datetime:
    """A job's NEXT RUN in `jobs list`'s table: the first time on its row."""
    row = next(line for line in table.splitlines() if line.split()[:1] == [job])
    found = re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z", row)
    if found is None:
        raise StepFailed(f"jobs list shows no next run for {job}:\n{row}")
    return datetime.fromisoformat(found.group().replace("Z", "+00:00"))


def _short(target: str) -> str:
    """`compute zones/Z/instances/N` for `//compute.googleapis.com/projects/P/zones/Z/...`."""
    service, _, path = target.removeprefix("//").partition("/")
    parts = path.split("/")
    rest = "/".join(parts[2:]) if parts[:1] == ["projects"] else path
    return f"{service.removesuffix('.googleapis.com')} {rest}"


def _check(condition: bool, claim: str) -> None:
    if not condition:
        raise StepFailed(f"the fake cloud does not show what the demo expected: {claim}")


def _function_run(
    n: Narrator,
    fn: function.BudgetFunction,
    message: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """Deliver the message, then print what the function did, resource by resource."""
    status = fn.deliver(message)
    lines = fn.log_lines()
    if status != 200:
        raise StepFailed(f"on_budget_alert answered HTTP {status}:\n{fn.child.output()[-3000:]}")
    acted = function.actions(lines)
    skipped: dict[str, int] = {}
    for line in acted:
        if line["outcome"] == "skipped":
            skipped[str(line["reason"])] = skipped.get(str(line["reason"]), 0) + 1
            continue
        n.point(f"{line['action']} {_short(str(line['target']))}: {line['outcome']}")
        n.detail(str(line["reason"]))
    for reason, count in skipped.items():
        n.point(f"left alone: {count} resource(s): {reason}")
    done = function.summary(lines)
    if done:
        n.point(f"summary: {done.get('message')}")
    return acted


def story(n: Narrator, workdir: Path, teardown: Teardown) -> None:
    """The demo proper; every server it starts is registered with `teardown`."""
    from governance.fakecloud.bqemulator import Emulator
    from governance.fakecloud.scheduler import FakeScheduler
    from governance.fakecloud.server import FakeGcp

    # -- 1. what the stack deploys ---------------------------------------------------------
    n.step(f"What the {STACK} stack deploys")
    n.say(
        f"mlgov plans the {STACK} stack offline, under Pulumi mocks. The demo's fake Google "
        "Cloud is filled from that plan document, so what you see below is what this stack "
        "would run."
    )
    plan: dict[str, Any] = json.loads(n.mlgov(["plan", "--stack", STACK, "--json"], show=False).out)
    n.say(
        f"The plan holds {len(plan['resources'])} resources, estimated at "
        f"{_money(plan['cost']['monthly_usd'])} a month."
    )

    # -- 2. the billing export ---------------------------------------------------------------
    n.step("A month of billing export in a local BigQuery")
    n.say(
        "Google writes every charge to a BigQuery dataset you choose (the billing export). "
        "Here a BigQuery emulator (bqemulator, DuckDB inside) plays that dataset, with 30 days "
        "of rows shaped as Google documents the standard and the detailed export tables."
    )
    emulator = Emulator(plan["project"])
    teardown.callback(emulator.stop)
    emulator.start()
    n.point(f"bqemulator listening on {emulator.url} (pid {emulator.pid})")
    loaded = export.load_month(emulator, plan["project"], _now())
    n.point(f"{loaded.rows:,} rows in {loaded.standard}")
    n.point(f"the same rows with resource names in {loaded.detailed}")
    n.point(
        f"the {plan['project']} project's net cost over the last {export.DAYS} whole days, "
        f"summed from those rows: {_money(loaded.net_cost)}"
    )

    # -- 3. the fake cloud -------------------------------------------------------------------
    n.step(f"The {STACK} stack, running in a fake Google Cloud")
    server = FakeGcp()
    teardown.callback(server.stop)
    server.start()
    # The scheduler's times (next run, last attempt) follow the demo's clock, as the export does.
    c = fake_cloud.Cloud(server, scheduler=FakeScheduler(now=_now))
    seeded = fake_cloud.seed(c, plan)
    n.say(
        f"A local server answers the Compute Engine, Workbench, GKE, Cloud Scheduler and Cloud "
        f"Billing REST APIs at {server.url}, with the JSON Google answers with. It holds:"
    )
    for zone, name in seeded.notebooks:
        n.point(f"Workbench notebook {name} in {zone}: ACTIVE")
    for pool, (nodes, _) in _pools(c, seeded).items():
        n.point(f"GKE cluster {seeded.cluster}, node pool {pool}: {nodes} node(s) per zone running")
    n.point(f"{len(seeded.jobs)} Cloud Scheduler jobs calling the cleanup functions")
    endpoints = {service: server.url for service in fake_cloud.SERVICES}
    endpoints["bigquery"] = emulator.url
    n.env["MLGOV_API_ENDPOINTS"] = json.dumps(endpoints)
    n.say(
        "Every mlgov command below talks to these servers because MLGOV_API_ENDPOINTS names "
        "them (a JSON map from Google API to base URL); without it they talk to Google."
    )

    # -- 4. spend ----------------------------------------------------------------------------
    n.step("Where the money went: mlgov spend")
    n.say(
        "spend reads the stack's billing export: net cost by team, cost center, workload and "
        "service, GPU and TPU spend, what carries no team label, and the plan's estimate "
        "against what each resource was billed."
    )
    spent = n.mlgov(["spend", "--stack", STACK])
    _check(
        f"net cost        {loaded.net_cost:,.2f} {'USD'}" in spent.out,
        f"spend reports the net cost the rows add up to ({loaded.net_cost:,.2f} USD)",
    )

    # -- 5. jobs -----------------------------------------------------------------------------
    n.step("The cleanup schedules: mlgov jobs list")
    n.say(
        "Cloud Scheduler calls the cleanup functions (idle VMs, idle GPUs, expired resources). "
        "jobs lists them, and can run, pause or resume one."
    )
    listed = n.mlgov(["jobs", "--stack", STACK, "list"])
    _check(all(job in listed.out for job in seeded.jobs), "jobs list names every job")
    now = _now()
    _check(
        all(_next_run(listed.out, job) > now for job in seeded.jobs),
        "every job's next run is after the demo's now",
    )

    # -- 6. cap status before ----------------------------------------------------------------
    n.step("Before any budget alert: mlgov cap status")
    n.say("cap status shows what the budget cap changed in the stack's GKE cluster. Nothing yet:")
    n.mlgov(["cap", "status", "--stack", STACK])

    # -- 7. the budget notification, dry run -------------------------------------------------
    policy = json.loads(fake_cloud.function_policy(plan, "on_budget_alert"))
    (budget_id, budget), *_ = policy["budgets"].items()
    amount = float(budget["amount"])
    message = function.notification(
        budget_id=budget_id,
        account=budget["billing_account"],
        name=f"{plan['stack']} budget",
        amount=amount,
        cost=round(amount * OVERSPEND, 2),
        now=_now(),
    )
    n.step("A budget alert, in dry run")
    n.say(
        f"Suppose a runaway job has spent {_money(amount * OVERSPEND)} of this month's "
        f"{_money(amount)} budget. Cloud Billing publishes a notification to the budget's "
        "Pub/Sub topic, and Eventarc delivers it to the on_budget_alert function. Here the "
        "function runs under functions-framework (as Cloud Run runs it) with the policy the "
        f"plan deploys: stop workloads at {budget['stop_at']:.0%} of the budget, unlink "
        f"billing at {budget['disable_billing_at']:.0%}, and dry_run "
        f"{str(policy['dry_run']).lower()} (the {STACK} stack's automation.dry_run). The "
        f"notification names the budget by its id, here {budget_id}, the id the plan gives "
        "it under mocks (a deployed stack renders the real one)."
    )
    before = _pools(c, seeded)
    dry = {**policy, "dry_run": True}
    writes = c.writes()
    fn = function.BudgetFunction(json.dumps(dry), endpoints, workdir, "dry-run")
    teardown.callback(fn.stop)
    fn.wait()
    n.point(f"on_budget_alert served by functions-framework at {fn.url} (pid {fn.child.pid})")
    n.say("What the function would do:")
    simulated = _function_run(n, fn, message)
    fn.stop()
    _check(any(a["outcome"] == "simulated" for a in simulated), "dry run simulates actions")
    _check(c.writes() == writes, "a dry run changes nothing")
    n.say("It only read: the fake cloud saw no write, and everything is still running.")

    # -- 8. the budget notification, for real ------------------------------------------------
    n.step("The same alert, for real")
    n.say(
        "Now with dry_run false, as a stack with automation.dry_run: false deploys it. "
        "Notebooks stop, GPU node pools scale to zero with autoscaling off, and node "
        "auto-provisioning may add no more GPUs; each pool's and limit's previous settings "
        "are kept in labels, so they can be put back. Billing stays linked: "
        f"{OVERSPEND:.0%} is below {budget['disable_billing_at']:.0%}."
    )
    fn = function.BudgetFunction(
        json.dumps({**policy, "dry_run": False}), endpoints, workdir, "real"
    )
    teardown.callback(fn.stop)
    fn.wait()
    n.point(f"on_budget_alert served by functions-framework at {fn.url} (pid {fn.child.pid})")
    message = {**message, "messageId": f"{message['messageId']}-2"}
    n.say("What the function did:")
    _function_run(n, fn, message)
    fn.stop()
    for zone, name in seeded.notebooks:
        _check(c.notebooks.state(seeded.project, zone, name) == "STOPPED", f"{name} is stopped")
    after = _pools(c, seeded)
    for pool in seeded.accelerator_pools:
        _check(after[pool] == (0, False), f"GPU pool {pool} is at 0 nodes, autoscaling off")
    limits = c.container.limits(seeded.project, seeded.region, seeded.cluster)
    gpu_limits = {k: v for k, v in limits.items() if k not in ("cpu", "memory")}
    _check(all(v == (0, 0) for v in gpu_limits.values()), "NAP GPU limits are 0")
    _check(bool(c.billing.info(seeded.project)["billingEnabled"]), "billing is still linked")
    n.say("The fake cloud now shows:")
    for zone, name in seeded.notebooks:
        n.point(f"{name}: {c.notebooks.state(seeded.project, zone, name)}")
    for pool, (nodes, on) in after.items():
        n.point(f"node pool {pool}: {nodes} node(s) per zone, autoscaling {'on' if on else 'off'}")
    for rtype, (low, high) in gpu_limits.items():
        n.point(f"NAP limit {rtype}: {low}-{high}")
    n.mlgov(["cap", "status", "--stack", STACK])

    # -- 9. restore --------------------------------------------------------------------------
    n.step("Back to normal: mlgov cap restore")
    n.say(
        "Once the budget is raised or the month is over, cap restore reads those labels and puts "
        "each pool back to its autoscaling and its size at the cap, and the limits back. It also "
        "says what it cannot undo. --dry-run first shows what it would do."
    )
    n.mlgov(["cap", "restore", "--stack", STACK, "--dry-run"])
    n.mlgov(["cap", "restore", "--stack", STACK])
    restored = _pools(c, seeded)
    for pool in seeded.accelerator_pools:
        _check(
            restored[pool] == before[pool],
            f"{pool} is back to {before[pool][0]} node(s), autoscaling on",
        )
    limits = c.container.limits(seeded.project, seeded.region, seeded.cluster)
    _check(all(limits[k] == v for k, v in seeded.nap.items()), "NAP limits are what the plan says")
    n.mlgov(["cap", "status", "--stack", STACK])
    n.say(
        "The GPU pool runs its training nodes again. The notebooks stay stopped: restore starts "
        "nothing the cap stopped, and their owners start them when they need them."
    )


def main(argv: list[str] | None = None) -> int:
    """Run the demo; the exit code (0 done, 1 a step failed, 130 Ctrl-C, 143 SIGTERM)."""
    parser = argparse.ArgumentParser(prog="python -m governance.demo", description=__doc__)
    parser.parse_args(argv)
    env = {"COLUMNS": str(shutil.get_terminal_size((110, 24)).columns)}
    n = Narrator(STEPS, env)
    n.say(
        "mlgov demo: the dev stack's spend, cleanup jobs and budget cap, on this machine only. "
        "Nothing here talks to Google and nothing needs an account: a local BigQuery and a "
        "fake Google Cloud stand in. It takes a minute or two, and cleans up after itself, "
        "also on Ctrl-C."
    )
    workdir = Path(tempfile.mkdtemp(prefix="mlgov-demo-"))
    code = 0
    try:
        with Teardown() as teardown:
            teardown.callback(shutil.rmtree, workdir, ignore_errors=True)
            story(n, workdir, teardown)
    except StepFailed as err:
        print(f"\ndemo: a step did not turn out as narrated: {err}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        print("\ndemo: interrupted (Ctrl-C)", file=sys.stderr)
        code = 130
    except Stopped as err:
        print(f"\ndemo: stopped by {err}", file=sys.stderr)
        code = 143
    except Exception as err:  # say what broke, after cleaning up
        print(f"\ndemo: failed: {describe(err)}", file=sys.stderr)
        code = 1
    print(
        f"\ndemo: stopped every server it started and removed {workdir} "
        f"({n.elapsed():.0f} s in all)",
        flush=True,
    )
    return code
