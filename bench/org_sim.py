"""Simulate organization-wide runs at 10,000 and 50,000 projects from a measured call profile.

Reads a profile written by bench/org_profile.py and runs the discrete-event model
(bench/orgsim/model.py) for:

- `sizing`: the budget alert at 10,000 projects over a grid of worker sizings (max instances x
  concurrency per instance), against issue 29's goals (dispatcher < 10 s, every stop requested
  < 60 s and confirmed < 5 min, never more than 50% of an organization-level quota); the
  recommendation is the smallest sizing that meets them, or, when no sizing does, the smallest
  past which more capacity no longer helps (within 5% of the best), with what bounds it;
- `scale`: every job at 10,000 and 50,000 projects at that sizing;
- `baseline`: today's single invocation (one instance, 540 s) with the same profile, at a fixed
  50 ms per call (to compare with bench/functions_cap.py) and at the lognormal latency.

Each figure is the median over several runs with different random draws (`--seeds` at 10,000
projects and for the baseline, `--seeds-50k` at 50,000, `--sizing-seeds` per grid point). Writes
JSON (`--out`) and prints a summary. Usage:
  .venv/bin/python bench/org_sim.py [--profile bench/profiles/invocation.json]
      [--seeds 3] [--seeds-50k 1] [--sizing-seeds 1] [--accelerated-share 0.1]
      [--out bench/profiles/org_sim.json] [--only sizing|scale|baseline]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

from bench.orgsim import apis  # noqa: E402
from bench.orgsim.model import Results, Scenario, simulate  # noqa: E402
from bench.orgsim.profile import JobProfile, load  # noqa: E402

GOALS = {
    "dispatcher_answer_s": 10.0,
    "last_stop_issued_s": 60.0,
    "last_stop_confirmed_s": 300.0,
    "org_peak_share": 0.5,
}
"""Issue 29's goals at 10,000 projects."""
WINDOWS = {"reap_idle_vms": 3600.0, "reap_idle_gpus": 1800.0, "reap_expired": 86400.0}
"""Each reaper's scheduled window: the time until its next run (governance/settings/automation.py
defaults: hourly, every 30 min, daily)."""
SIZINGS = [(i, c) for i in (50, 100, 300, 1000) for c in (10, 80, 250)]
"""max instances x concurrency per instance (Cloud Run allows up to 1,000 per instance)."""
NUMBERS = (
    "dispatcher_answer_s",
    "last_stop_issued_s",
    "last_stop_confirmed_s",
    "last_operation_done_s",
    "last_item_done_s",
    "last_item_started_s",
    "items_done",
    "items_dead_lettered",
    "deliveries",
    "refused_429",
    "instances",
    "calls",
)


def median_of(runs: list[Results]) -> dict[str, Any]:
    """Median of each number over the runs (None where any run has none), plus the details of
    the median run by last stop requested."""
    out: dict[str, Any] = {}
    for key in NUMBERS:
        values = [getattr(r, key) for r in runs]
        out[key] = None if any(v is None for v in values) else round(statistics.median(values), 2)
    out["org_peak_share"] = {
        s: round(statistics.median(r.org_peak_share.get(s, 0.0) for r in runs), 4)
        for s in sorted(apis.ORGANIZATION_SERVICES)
    }
    out["project_peak_share"] = {
        s: round(max(r.project_peak_share.get(s, 0.0) for r in runs), 4)
        for s in sorted({k for r in runs for k in r.project_peak_share})
    }
    ordered = sorted(runs, key=lambda r: r.last_stop_issued_s or 0.0)
    mid = ordered[len(ordered) // 2]
    out["stops"] = mid.stops
    out["stops_issued"] = mid.stops_issued
    out["stops_confirmed"] = mid.stops_confirmed
    out["confirmable_stops"] = mid.confirmable_stops
    out["last_issued_by_method"] = mid.last_issued_by_method
    out["last_confirmed_by_method"] = mid.last_confirmed_by_method
    out["waits_s"] = mid.waits_s
    out["slowest_stop_path"] = mid.slowest_stop_path
    out["gke_max_concurrent_ops_per_cluster"] = mid.gke_max_concurrent_ops_per_cluster
    out["calls_by_service"] = mid.calls_by_service
    out["runs"] = len(runs)
    out["last_stop_issued_range"] = [
        min(r.last_stop_issued_s or 0.0 for r in runs),
        max(r.last_stop_issued_s or 0.0 for r in runs),
    ]
    return out


def run(job: JobProfile, scenario: Scenario, seeds: int) -> dict[str, Any]:
    """The median over `seeds` runs of one scenario."""
    started = time.perf_counter()
    results = [simulate(job, dataclasses.replace(scenario, seed=s + 1)) for s in range(seeds)]
    out = median_of(results)
    out["simulation_wall_s"] = round(time.perf_counter() - started, 1)
    return out


RESIZE = "container.projects.locations.clusters.nodePools.setSize"


def _last(by_method: dict[str, float], *, resize: bool) -> float:
    values = [v for m, v in by_method.items() if (m == RESIZE) == resize]
    return max(values, default=0.0)


def meets(result: dict[str, Any]) -> dict[str, bool]:
    """Each goal of issue 29: met? GKE pool resizes are judged apart from the other stops
    (VMs, TPU VMs, Workbench, Vertex AI jobs): each cluster's resizes come one after the other,
    behind its other GKE operations, whatever the worker's size."""
    shares = result["org_peak_share"].values()
    issued, confirmed = result["last_issued_by_method"], result["last_confirmed_by_method"]
    return {
        "dispatcher < 10 s": (result["dispatcher_answer_s"] or 1e9) < GOALS["dispatcher_answer_s"],
        "every stop but GKE resizes requested < 60 s": _last(issued, resize=False)
        < GOALS["last_stop_issued_s"],
        "every stop but GKE resizes confirmed < 5 min": _last(confirmed, resize=False)
        < GOALS["last_stop_confirmed_s"],
        "every GKE resize requested < 60 s": _last(issued, resize=True)
        < GOALS["last_stop_issued_s"],
        "every GKE resize confirmed < 5 min": _last(confirmed, resize=True)
        < GOALS["last_stop_confirmed_s"],
        "nothing dead-lettered": not result["items_dead_lettered"],
        "every confirmable stop confirmed": result["stops_confirmed"]
        == result["confirmable_stops"],
        "<= 50% of every org-level quota": all(v <= GOALS["org_peak_share"] for v in shares),
    }


def binding(result: dict[str, Any]) -> str:
    """What held the slowest stop back, from its critical path's largest part."""
    path = result.get("slowest_stop_path") or {}
    parts = {
        k: v
        for k, v in path.items()
        if isinstance(v, float) and k not in ("published_at", "first_delivery_at", "requested_at")
    }
    queued = (path.get("first_delivery_at") or 0.0) - (path.get("published_at") or 0.0)
    redelivered = (path.get("requested_at") or 0.0) - (path.get("first_delivery_at") or 0.0)
    parts["waiting in Pub/Sub for a worker"] = queued
    parts["earlier deliveries and their backoff"] = max(
        0.0,
        redelivered
        - sum(v for k, v in parts.items() if k not in ("waiting in Pub/Sub for a worker",)),
    )
    return max(parts, key=lambda k: parts[k]) if parts else "nothing"


def sizable(row: dict[str, Any]) -> bool:
    """Whether a grid row meets every goal a worker's size can meet: all but the GKE resizes'
    (each cluster's resizes queue behind its other operations whatever the size) and the
    confirmation of every stop (which waits for those resizes)."""
    return all(
        met
        for goal, met in row["goals"].items()
        if not goal.startswith(("every GKE", "every confirmable"))
    )


def recommend(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The smallest sizing (slots, then instances) meeting the goals a sizing can meet; else the
    smallest whose last stop (GKE resizes aside) is requested within 5% of the fastest."""
    meeting = [r for r in rows if sizable(r)]
    if meeting:
        best = min(meeting, key=lambda r: (r["slots"], r["max_instances"]))
        return best, (
            "the smallest sizing that meets every goal a sizing can meet (all but the GKE "
            "resizes', which no sizing changes)"
        )

    def last(r: dict[str, Any]) -> float:
        return _last(r["last_issued_by_method"], resize=False) or 1e9

    fastest = min(last(r) for r in rows)
    near = [r for r in rows if last(r) <= fastest * 1.05]
    best = min(near, key=lambda r: (r["slots"], r["max_instances"]))
    return best, (
        "no sizing meets the goals; the smallest whose last stop (GKE resizes aside) is "
        "requested within 5% of the fastest (more capacity does not help past it)"
    )


def sizing(job: JobProfile, base: Scenario, seeds: int) -> dict[str, Any]:
    """The grid at 10,000 projects, and the recommended sizing."""
    rows = []
    for instances, concurrency in SIZINGS:
        scenario = dataclasses.replace(base, max_instances=instances, concurrency=concurrency)
        result = run(job, scenario, seeds)
        goals = meets(result)
        rows.append(
            {
                "max_instances": instances,
                "concurrency": concurrency,
                "slots": instances * concurrency,
                "goals": goals,
                "binding": binding(result),
                **result,
            }
        )
        print(
            f"  sizing {instances:>5} x {concurrency:>3}: stops requested by "
            f"{result['last_stop_issued_s']} s ({result['last_issued_by_method']}), confirmed by "
            f"{result['last_stop_confirmed_s']} s, {result['refused_429']} refusals, "
            f"{result['items_dead_lettered']} dead letters, goals {sum(goals.values())}/"
            f"{len(goals)}",
            file=sys.stderr,
        )

    best, why = recommend(rows)
    return {
        "grid": rows,
        "recommended": {"max_instances": best["max_instances"], "concurrency": best["concurrency"]},
        "why": why,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--profile", type=Path, default=REPO / "bench/profiles/invocation.json")
    parser.add_argument("--out", type=Path, default=REPO / "bench/profiles/org_sim.json")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seeds-50k", type=int, default=1)
    parser.add_argument("--sizing-seeds", type=int, default=1)
    parser.add_argument("--accelerated-share", type=float, default=0.1)
    parser.add_argument(
        "--push-window", type=int, default=3, help="Pub/Sub's first push window; 0: none"
    )
    parser.add_argument("--max-delivery-attempts", type=int, default=5)
    parser.add_argument("--scale-projects", default="10000,50000")
    parser.add_argument("--jobs", default=None, help="comma-separated jobs for scale")
    parser.add_argument(
        "--op-modes", default="typical,slowest", help="operation durations for the budget jobs"
    )
    parser.add_argument("--only", choices=("sizing", "scale", "baseline"), default=None)
    parser.add_argument("--instances", type=int, default=None, help="skip the sizing search")
    parser.add_argument("--concurrency", type=int, default=None)
    args = parser.parse_args()
    profile = load(args.profile)
    base = Scenario(
        projects=10_000,
        accelerated_share=args.accelerated_share,
        push_window_initial=args.push_window or None,
        max_delivery_attempts=args.max_delivery_attempts,
    )
    out: dict[str, Any] = {
        "command": " ".join(["bench/org_sim.py", *sys.argv[1:]]),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "profile": str(args.profile.relative_to(REPO))
        if args.profile.is_relative_to(REPO)
        else str(args.profile),
        "profile_date": profile.meta.get("date"),
        "profile_commit": profile.meta.get("commit"),
        "goals": GOALS,
        "base_scenario": dataclasses.asdict(base),
    }
    instances, concurrency = args.instances, args.concurrency
    if args.only in (None, "sizing") and instances is None:
        print("sizing: budget alert at 10,000 projects", file=sys.stderr)
        out["sizing"] = sizing(profile.jobs["budget"], base, args.sizing_seeds)
        rec = out["sizing"]["recommended"]
        instances, concurrency = rec["max_instances"], rec["concurrency"]
    instances, concurrency = instances or 100, concurrency or 10
    sized = dataclasses.replace(base, max_instances=instances, concurrency=concurrency)
    if args.only in (None, "scale"):
        out["scale"] = {}
        wanted = args.jobs.split(",") if args.jobs else list(profile.jobs)
        for name, job in profile.jobs.items():
            if name not in wanted:
                continue
            for projects in [int(p) for p in args.scale_projects.split(",")]:
                for op_mode in args.op_modes.split(","):
                    if op_mode != "typical" and not name.startswith("budget"):
                        continue
                    scenario = dataclasses.replace(sized, projects=projects, op_mode=op_mode)
                    seeds = args.seeds if projects <= 10_000 else args.seeds_50k
                    result = run(job, scenario, seeds)
                    result["goals"] = meets(result)
                    result["binding"] = binding(result)
                    if name in WINDOWS:
                        result["window_s"] = WINDOWS[name]
                        done = result["last_item_done_s"]
                        result["in_one_window"] = (
                            done is not None
                            and done < WINDOWS[name]
                            and (result["items_done"] == projects)
                        )
                    out["scale"][f"{name}/{projects}/{op_mode}"] = result
                    _write(args.out, out)  # as it goes: a long run keeps what it finished
                    r = result
                    print(
                        f"  {name} {projects} {op_mode}: dispatcher {r['dispatcher_answer_s']} s, "
                        f"stops requested by {r['last_stop_issued_s']} s, confirmed by "
                        f"{r['last_stop_confirmed_s']} s, all done by {r['last_item_done_s']} s, "
                        f"org {r['org_peak_share']}",
                        file=sys.stderr,
                    )
    if args.only in (None, "baseline"):
        out["baseline"] = {}
        # First the setup the profile's counting runs measured (so the model meets a measured
        # wall time): half of each kind, 50 ms per call, operations done at their first read.
        per_kind = int(profile.meta.get("projects_per_kind", 20))
        checks = [("profile setup, fixed 50 ms", 0.05, 0.05, 2 * per_kind, 0.5)]
        checks += [
            (label, median, p99, projects, 1.0)
            for label, median, p99 in (
                ("fixed 50 ms", 0.05, 0.05),
                ("lognormal 200 ms / 2 s", 0.2, 2.0),
            )
            for projects in (200, 1000)
        ]
        for label, median, p99, projects, share in checks:
            scenario = Scenario(
                projects=projects,
                accelerated_share=share,
                single_invocation=True,
                org_share=None,
                latency_median_s=median,
                latency_p99_s=p99,
                op_mode="instant",
                duplicate_rate=0.0,
                crash_rate=0.0,
            )
            result = run(profile.jobs["budget"], scenario, args.seeds)
            if share < 1.0:
                result["measured_wall_s"] = profile.jobs["budget"].wall_s
            out["baseline"][f"{label}/{projects}"] = result
            print(
                f"  baseline {label} {projects}: all done by {result['last_item_done_s']} s, "
                f"{result['calls']} calls, {result['items_done']} of {projects} projects done",
                file=sys.stderr,
            )
    out["recommended_sizing"] = {"max_instances": instances, "concurrency": concurrency}
    _write(args.out, out)
    print(f"wrote {args.out}", file=sys.stderr)


def _write(path: Path, out: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
