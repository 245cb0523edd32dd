# Raw REST JSON from the container API is handled as Any at this boundary.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""`mlgov cap`: see what the budget cap changed in a stack's GKE cluster, and put it back.

    mlgov cap status --stack NAME [--json]
    mlgov cap restore --stack NAME [--dry-run] [--json]

At the cap, the budget function scales GPU/TPU node pools to zero (autoscaling off) and sets node
auto-provisioning's accelerator limits to zero, keeping what they were in resource labels:
`mlgov-cap-prev` on a pool (`autoscale-total-0-16-any`, `autoscale-zone-1-4`, `fixed-3`) and
`mlgov-cap-nap-<type>: <min>-<max>` on the cluster (written by functions/govern/gke.py; the
formats are pinned by tests/contract/test_cap_labels.py). `restore` puts autoscaling, sizes and
limits back and removes the labels; the next `pulumi up` would restore the declared sizes too.

The stack file gives the project, region and cluster name. `--endpoint URL` or
`MLGOV_API_ENDPOINTS={"container": URL}` points at another container API base URL (a local
fake), with anonymous access. Exit codes: 0 done; 4 (`Exit.CLOUD`) the API refused or could not
be reached;
2 invalid input (unknown stack, no GKE cluster in it, bad endpoint, no credentials, a label
value this version cannot read). GKE runs one operation per cluster at a time: each write waits
for its operation before the next.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from governance.deadlines import HTTP_TIMEOUT, Endpoint, http_session
from governance.tools.errors import CliError, Exit

POOL_LABEL = "mlgov-cap-prev"
NAP_PREFIX = "mlgov-cap-nap-"
GOOGLE = "https://container.googleapis.com"
CALL_TIMEOUT_S = HTTP_TIMEOUT  # (connect, read): an endpoint that never answers fails in seconds
OPERATION_TIMEOUT_S = 900.0
_AUTOSCALE = re.compile(r"autoscale-(total|zone)-(\d+)-(\d+)(?:-(any|balanced))?")
_FIXED = re.compile(r"fixed-(\d+)")
_LIMIT = re.compile(r"(\d+)-(\d+)")


# --------------------------------------------------------------------------- the label values
@dataclass(frozen=True)
class PoolBefore:
    """A node pool's settings before the cap, decoded from its `mlgov-cap-prev` label."""

    autoscaling: dict[str, Any] | None  # NodePoolAutoscaling JSON to restore, None: fixed size
    size: int  # node count to set back (per zone); 0: leave it to the autoscaler

    def describe(self) -> str:
        """What it was, in words."""
        if self.autoscaling is None:
            return f"fixed size, {self.size} node(s)"
        a = self.autoscaling
        total = "totalMinNodeCount" in a
        low = a["totalMinNodeCount" if total else "minNodeCount"]
        high = a["totalMaxNodeCount" if total else "maxNodeCount"]
        where = "in total" if total else "per zone"
        policy = f", location policy {a['locationPolicy']}" if "locationPolicy" in a else ""
        return f"autoscaling {low}-{high} nodes {where}{policy}"


def decode_pool(value: str, zones: int) -> PoolBefore:
    """The settings a `mlgov-cap-prev` value records; `zones` = the pool's zone count.

    Raises:
        ValueError: the value is not one the budget function writes.
    """
    if m := _FIXED.fullmatch(value):
        return PoolBefore(None, int(m[1]))
    m = _AUTOSCALE.fullmatch(value)
    if m is None:
        raise ValueError(f"unreadable {POOL_LABEL} value {value!r}")
    total, low, high = m[1] == "total", int(m[2]), int(m[3])
    prefix = "total" if total else ""
    autoscaling: dict[str, Any] = {
        "enabled": True,
        f"{prefix}MinNodeCount" if total else "minNodeCount": low,
        f"{prefix}MaxNodeCount" if total else "maxNodeCount": high,
    }
    if m[4]:
        autoscaling["locationPolicy"] = m[4].upper()
    # setSize counts nodes per zone; bring the pool back to its minimum, the autoscaler adds
    # what pending pods need.
    size = math.ceil(low / max(zones, 1)) if total else low
    return PoolBefore(autoscaling, size)


def decode_nap(labels: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    """{accelerator resource type: (min, max)} from a cluster's `mlgov-cap-nap-*` labels.

    Raises:
        ValueError: a value is not `<min>-<max>`.
    """
    found: dict[str, tuple[int, int]] = {}
    for key, value in labels.items():
        if key.startswith(NAP_PREFIX):
            m = _LIMIT.fullmatch(value)
            if m is None:
                raise ValueError(f"unreadable {key} value {value!r}")
            found[key.removeprefix(NAP_PREFIX)] = (int(m[1]), int(m[2]))
    return found


# --------------------------------------------------------------------------- registration
def register(subparsers: Any) -> None:
    """Add the `cap` subcommand to the CLI's subparsers."""
    from governance.tools.cli import stack_flags

    p = subparsers.add_parser(
        "cap",
        help="show or undo what the budget cap changed in the stack's GKE cluster",
        description="See and restore the GKE node pools and NAP limits the budget cap changed.",
        epilog=(
            "examples:\n  mlgov cap status --stack prod\n  mlgov cap restore --stack prod --dry-run"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", choices=("status", "restore"), help="what to do")
    stack_flags(p)
    p.add_argument("--endpoint", help="container API base URL (http(s)://...); anonymous access")
    p.add_argument("--dry-run", action="store_true", help="restore: print the plan, change nothing")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=handler)


# --------------------------------------------------------------------------- the API
class _Gke:
    """The few container v1 calls `cap` makes, with errors as CliError."""

    def __init__(self, session: Any, base: str) -> None:
        self._session = session
        self._base = base.rstrip("/")

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        import requests

        url = f"{self._base}/v1/{path}"
        try:
            response = self._session.request(method, url, json=body, timeout=CALL_TIMEOUT_S)
        except requests.RequestException as err:
            raise CliError(
                f"gke: {method} {path}: {type(err).__name__}: {err}", Exit.CLOUD
            ) from None
        if response.status_code >= 400:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text[:200]
            hint = (
                " (needs roles/container.clusterAdmin on the project)"
                if response.status_code == 403
                else ""
            )
            raise CliError(
                f"gke: {method} {path}: HTTP {response.status_code}: {message}{hint}", Exit.CLOUD
            )
        try:
            answer: Any = response.json() if response.content else {}
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise CliError(f"gke: {method} {path}: the answer is not a JSON object", Exit.CLOUD)
        return cast(dict[str, Any], answer)

    def write(self, method: str, path: str, body: dict[str, Any], location: str) -> None:
        """A write, then wait until its operation is DONE (GKE: one per cluster at a time)."""
        op = self.call(method, path, body)
        project = path.split("/")[1]
        started, pause = time.monotonic(), 0.0
        while op.get("status") != "DONE":
            if time.monotonic() - started > OPERATION_TIMEOUT_S:
                raise CliError(
                    f"gke: operation {op.get('name')} still {op.get('status')}", Exit.CLOUD
                )
            time.sleep(pause)
            op = self.call(
                "GET", f"projects/{project}/locations/{location}/operations/{op['name']}"
            )
            pause = min(max(pause * 2, 1.0), 10.0)
        error = op.get("error") or {}
        if error.get("code"):
            raise CliError(
                f"gke: operation {op.get('name')} failed: {error.get('message')}", Exit.CLOUD
            )


def _session(url: str | None) -> Any:
    """A requests session for the container API that fails fast (deadlines.http_session)."""
    if url is not None:
        return http_session(Endpoint("container", url, "--endpoint"))
    import google.auth
    import google.auth.exceptions
    from google.auth.transport.requests import AuthorizedSession

    try:
        credentials, _ = google.auth.default(
            scopes=["https://www.googleapis.com/auth/cloud-platform"]
        )
    except google.auth.exceptions.DefaultCredentialsError:
        raise CliError(
            "no Google credentials: run `gcloud auth application-default login` "
            "(or pass --endpoint for a local server)"
        ) from None
    return http_session(Endpoint("container"), AuthorizedSession(credentials))


# --------------------------------------------------------------------------- the command
@dataclass(frozen=True)
class _Target:
    project: str
    location: str
    cluster: str

    @property
    def path(self) -> str:
        return f"projects/{self.project}/locations/{self.location}/clusters/{self.cluster}"


def _target(args: argparse.Namespace) -> _Target:
    from governance.naming import cluster_name
    from governance.tools.project import read_stack_config, settings_of, stack_file_of

    name, path = stack_file_of(args.stack, args.config)
    s = settings_of(read_stack_config(path), path)
    if s.gke is None:
        raise CliError(f"stack {name}: no `gke:` section, so no cluster for the cap to change")
    return _Target(s.project, s.region, cluster_name(s.prefix))


def _plan(cluster: Mapping[str, Any], path: str) -> dict[str, Any]:
    """What the cap changed and how restore puts it back (also the `--json` document)."""
    pools: list[dict[str, Any]] = []
    for pool in cluster.get("nodePools") or []:
        labels = (pool.get("config") or {}).get("resourceLabels") or {}
        if POOL_LABEL not in labels:
            continue
        try:
            before = decode_pool(labels[POOL_LABEL], len(pool.get("locations") or []))
        except ValueError as err:
            raise CliError(f"{path}/nodePools/{pool['name']}: {err}") from None
        pools.append(
            {
                "pool": pool["name"],
                "label": labels[POOL_LABEL],
                "before": before.describe(),
                "autoscaling_now": pool.get("autoscaling") or {"enabled": False},
                "restore_autoscaling": before.autoscaling,
                "restore_size": before.size,
            }
        )
    try:
        before_nap = decode_nap(cluster.get("resourceLabels") or {})
    except ValueError as err:
        raise CliError(f"{path}: {err}") from None
    limits = {
        lim.get("resourceType"): (int(lim.get("minimum", 0)), int(lim.get("maximum", 0)))
        for lim in (cluster.get("autoscaling") or {}).get("resourceLimits") or []
    }
    nap = [
        {"resource_type": rtype, "now": list(limits.get(rtype, (0, 0))), "before": list(value)}
        for rtype, value in sorted(before_nap.items())
    ]
    return {"cluster": path, "pools": pools, "nap": nap}


def _print_plan(plan: Mapping[str, Any], verb: str) -> None:
    print(plan["cluster"])
    if not plan["pools"] and not plan["nap"]:
        print("  nothing capped")
        return
    for p in plan["pools"]:
        print(f"  node pool {p['pool']}: capped; {verb} {p['before']}")
    for n in plan["nap"]:
        (low, high), now = n["before"], "-".join(map(str, n["now"]))
        print(f"  NAP limit {n['resource_type']}: now {now}; {verb} {low}-{high}")


def _restore(
    gke: _Gke, target: _Target, cluster: Mapping[str, Any], plan: Mapping[str, Any]
) -> None:
    by_name = {p["name"]: p for p in cluster.get("nodePools") or []}
    for item in plan["pools"]:
        pool = by_name[item["pool"]]
        path = f"{target.path}/nodePools/{item['pool']}"
        if item["restore_autoscaling"] is not None:
            body = {"name": path, "autoscaling": item["restore_autoscaling"]}
            gke.write("POST", f"{path}:setAutoscaling", body, target.location)
        if item["restore_size"] > 0:
            body = {"name": path, "nodeCount": item["restore_size"]}
            gke.write("POST", f"{path}:setSize", body, target.location)
        labels = dict((pool.get("config") or {}).get("resourceLabels") or {})
        labels.pop(POOL_LABEL, None)
        body = {"name": path, "resourceLabels": {"labels": labels}}
        gke.write("PUT", path, body, target.location)
    if plan["nap"]:
        before = {n["resource_type"]: n["before"] for n in plan["nap"]}
        autoscaling = dict(cluster.get("autoscaling") or {})
        autoscaling["resourceLimits"] = [
            {**lim, "minimum": str(before[t][0]), "maximum": str(before[t][1])}
            if (t := lim.get("resourceType")) in before
            else lim
            for lim in autoscaling.get("resourceLimits") or []
        ]
        body = {"name": target.path, "update": {"desiredClusterAutoscaling": autoscaling}}
        gke.write("PUT", target.path, body, target.location)
        fresh = gke.call("GET", target.path)
        labels = {
            k: v
            for k, v in (fresh.get("resourceLabels") or {}).items()
            if not k.startswith(NAP_PREFIX)
        }
        body = {
            "name": target.path,
            "resourceLabels": labels,
            "labelFingerprint": fresh.get("labelFingerprint", ""),
        }
        gke.write("POST", f"{target.path}:setResourceLabels", body, target.location)


def handler(args: argparse.Namespace) -> int:
    """Run `cap`; returns the exit code (problems are raised as CliError)."""
    from governance.tools.jobs import endpoint

    target = _target(args)
    if args.dry_run and args.action != "restore":
        raise CliError("--dry-run: only with `restore`")
    url = endpoint(args.endpoint, "container")
    gke = _Gke(_session(url), url or GOOGLE)
    cluster = gke.call("GET", target.path)
    plan = _plan(cluster, target.path)
    if args.action == "restore" and not args.dry_run:
        _restore(gke, target, cluster, plan)
    verb = {"status": "before the cap:", "restore": "restored to"}[args.action]
    if args.action == "restore" and args.dry_run:
        verb = "would restore to"
    if args.json:
        print(json.dumps({"action": args.action, "dry_run": args.dry_run, **plan}, indent=2))
    else:
        _print_plan(plan, verb)
    return Exit.OK
