"""Benchmark: `mlgov check` on a generated 5,000-resource `pulumi preview --json` (issue 21).

Writes a preview digest in the engine's shapes (FORMAT §1, tests/formats/data/FORMAT.md): the
root stack, components, an explicit gcp provider, and RESOURCES custom resources cycling through
check_bench.py's complete, schema-valid GCP templates, with a mix of ops (create 60%, update
15%, same 10%, replace 10%, delete 5%; update/replace/same/delete carry an `oldState` with id and
outputs), `__defaults` at every object level, an unknown value and a `[secret]` in some, and
every 10th resource through the explicit provider with no location of its own. Then times, as a
user runs it, the whole process `python -m governance check PREVIEW` (start-up, read, convert,
policies, prices), and `python -m governance diff PREVIEW` (both sides priced), median of RUNS;
and in-process, the reader alone and `evaluate_document` alone. Target: check < 3 s.

    .venv/bin/python bench/preview_bench.py [--resources 5000] [--runs 7] [--keep PATH]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "policies"), str(ROOT / "bench")]

from check_bench import TEMPLATES  # noqa: E402

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
P = "urn:pulumi:dev::bench::"
STACK = P + "pulumi:pulumi:Stack::bench-dev"
DEFAULT_REF = P + "pulumi:providers:gcp::default_8_10_0::5f1d2c3b-8a4e-4d6f-9b0a-1c2d3e4f5a6b"
EU = P + "pulumi:providers:gcp::eu"
OPS = ["create"] * 12 + ["update"] * 3 + ["same"] * 2 + ["replace"] * 2 + ["delete"]


def _with_defaults(value: Any) -> Any:
    """The provider's `__defaults` bookkeeping at every object level, as Check returns it."""
    if isinstance(value, dict):
        return {"__defaults": [], **{k: _with_defaults(v) for k, v in value.items()}}
    if isinstance(value, list):
        return [_with_defaults(v) for v in value]
    return value


def _state(
    urn: str, type_: str, inputs: dict[str, Any], provider: str, old: bool
) -> dict[str, Any]:
    state: dict[str, Any] = {"urn": urn, "custom": True, "type": type_, "inputs": inputs}
    if old:
        state["id"] = f"projects/p/resources/{urn.rsplit('::', 1)[1]}"
        state["outputs"] = {"id": state["id"], "__meta": '{"schema_version":"1"}'}
    state["parent"] = STACK
    state["provider"] = provider
    return state


def generate(count: int) -> dict[str, Any]:
    """A preview digest with `count` custom resources (plus stack, provider and components)."""
    steps: list[dict[str, Any]] = [
        {
            "op": "same",
            "urn": STACK,
            "oldState": {"urn": STACK, "custom": False, "type": "pulumi:pulumi:Stack"},
            "newState": {"urn": STACK, "custom": False, "type": "pulumi:pulumi:Stack"},
            "detailedDiff": None,
        },
        {
            "op": "create",
            "urn": EU,
            "newState": {
                "urn": EU,
                "custom": True,
                "type": "pulumi:providers:gcp",
                "inputs": {"project": "p-eu", "region": "europe-west4", "zone": "europe-west4-a"},
                "parent": STACK,
            },
            "detailedDiff": None,
        },
    ]
    summary: dict[str, int] = {"same": 1, "create": 1}
    for c in range(count // 50):
        urn = f"{P}acme:ml:Team::team-{c}"
        steps.append(
            {
                "op": "create",
                "urn": urn,
                "newState": {"urn": urn, "custom": False, "type": "acme:ml:Team", "parent": STACK},
                "detailedDiff": None,
            }
        )
        summary["create"] += 1
    for i in range(count):
        template = TEMPLATES[i % len(TEMPLATES)]
        type_ = str(template["type"])
        if type_.startswith("mlgov:"):
            type_ = "gcp:compute/network:Network"  # a free custom resource instead of ours
        inputs = copy.deepcopy(template["inputs"])
        provider = DEFAULT_REF
        if i % 10 == 3:  # through the explicit provider, location inherited from it
            provider = f"{EU}::{UNKNOWN}"
            inputs.pop("zone", None)
            inputs.pop("region", None)
        if i % 7 == 0 and isinstance(inputs.get("labels"), dict):
            inputs["labels"] = {**inputs["labels"], "workload": UNKNOWN}  # from another output
        if type_ == "gcp:sql/databaseInstance:DatabaseInstance":
            inputs["rootPassword"] = "[secret]"
        new_inputs = _with_defaults(inputs)
        op = OPS[i % len(OPS)]
        urn = f"{P}acme:ml:Team${type_}::r{i}"
        step: dict[str, Any] = {"op": op, "urn": urn, "provider": provider}
        if op != "create":
            old_inputs = copy.deepcopy(new_inputs)
            step["oldState"] = _state(urn, type_, old_inputs, provider, old=True)
        if op != "delete":
            step["newState"] = _state(urn, type_, new_inputs, provider, old=False)
        if op in ("update", "replace"):
            step["diffReasons"] = ["labels"]
        if op == "replace":
            step["replaceReasons"] = ["labels"]
        step["detailedDiff"] = None
        steps.append(step)
        summary[op] = summary.get(op, 0) + 1
    return {
        "config": {
            "gcp:project": "p-dev",
            "gcp:region": "us-central1",
            "gcp:zone": "us-central1-a",
        },
        "steps": steps,
        "duration": 61_000_000_000,
        "changeSummary": summary,
    }


def _median(times: list[float]) -> str:
    return f"median {statistics.median(times):.3f}s (min {min(times):.3f}s, max {max(times):.3f}s)"


CPU: dict[str, list[float]] = {}
"""CPU seconds (user + system) of each child process, by label: less sensitive than wall time
to other work on a shared machine."""


def _process(args: list[str], runs: int, cwd: Path = ROOT) -> tuple[list[float], int]:
    times: list[float] = []
    label = f"{args[0]} {'PLAN' if args[-1].endswith('plan.json') else 'PREVIEW'} {cwd.name}"
    code = 0
    env = {**os.environ, "COLUMNS": "120"}
    if cwd != ROOT:  # the other tree's policies too (the venv's .pth names this tree's)
        env["PYTHONPATH"] = str(cwd / "policies")
    for _ in range(runs):
        start = time.perf_counter()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            [sys.executable, "-m", "governance", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime
        CPU.setdefault(label, []).append(cpu)
        code = proc.returncode
        if code not in (0, 1):
            raise SystemExit(f"mlgov {' '.join(args)} exited {code}: {proc.stderr[-800:]}")
    return times, code


def _compare(baseline: Path, plan: Any, tmp: Path, runs: int) -> None:
    """`check` of the preview's resources as a plan document, in the baseline tree and here."""
    own = {k: v for k, v in plan.items() if k != "source"}
    own["resources"] = [
        {k: v for k, v in r.items() if k in ("type", "name", "inputs")} for r in plan["resources"]
    ]
    path = tmp / "plan.json"
    path.write_text(json.dumps(own))
    times: dict[str, list[float]] = {"baseline": [], "this tree": []}
    for _ in range(runs):  # interleaved, so both see the same load
        for label, cwd in (("baseline", baseline), ("this tree", ROOT)):
            times[label] += _process(["check", str(path)], 1, cwd)[0]
    for label, found in times.items():
        print(f"python -m governance check PLAN ({label}, same resources): {_median(found)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resources", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", help="also write the generated preview here")
    parser.add_argument(
        "--baseline",
        help="a copy of another tree (e.g. `git archive main | tar -x -C DIR`): also time "
        "`check` of the same resources as a plan document there and here, interleaved",
    )
    args = parser.parse_args()

    digest = generate(args.resources)
    text = json.dumps(digest, indent=4)  # as the CLI writes it (json.MarshalIndent, 4 spaces)
    if args.keep:
        Path(args.keep).write_text(text)
    print(
        f"preview: {len(digest['steps'])} steps ({args.resources} custom resources), "
        f"{len(text) / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f}"
    )

    from governance.inputs.document import parse_input
    from governance.review.plan import evaluate_document

    doc: Any

    read_times: list[float] = []
    eval_times: list[float] = []
    for _ in range(args.runs):
        start = time.perf_counter()
        read = parse_input(text, "preview.json")
        read_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        doc = evaluate_document(read.plan)
        eval_times.append(time.perf_counter() - start)
    print(
        f"in-process read (JSON + convert): {_median(read_times)}; "
        f"{len(read.plan['resources'])} resources after, "
        f"{len(read.before['resources']) if read.before else 0} before"
    )
    print(
        f"in-process evaluate_document (policies + prices): {_median(eval_times)}; "
        f"{len(doc['violations'])} findings, ${doc['cost']['monthly_usd']:,.2f}/month"
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "preview.json"
        path.write_text(text)
        for command in (["check", str(path)], ["diff", str(path)]):
            times, code = _process(command, args.runs)
            print(f"python -m governance {command[0]} PREVIEW: exit {code}, {_median(times)}")
        if args.baseline:
            _compare(Path(args.baseline), read.plan, Path(tmp), args.runs)
    for label, found in CPU.items():
        print(f"CPU time (user+system) of `{label}`: median {statistics.median(found):.3f}s")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
