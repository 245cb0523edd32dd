"""`mlgov cap status|restore|lift`: find what the budget cap changed, show it, put it back.

    mlgov cap status --stack NAME [--json]
    mlgov cap restore --stack NAME [--dry-run] [--json]
    mlgov cap lift --stack NAME --service KEY --reason TEXT [--dry-run] [--json]

`status` also lists the stack's spend caps (Cloud Billing) and their state, and `lift` lifts an
enforced one: governance/cli/spend_caps.py, which this module calls. For a stack with fan-out,
`status` shows each run of the last `--hours` (24 by default): projects done, failed, still
pending and dead-lettered, from the functions' log lines in Cloud Logging (runs.py; endpoint key
`logging`).

Reads every governed project of the stack (stack.py): each project's GKE clusters (all
locations) and, in each governed region, its Vertex AI endpoints; every pool, cluster and
endpoint the cap marked is an item (plan.py). `restore` runs each item's writes; items are
independent, so one that cannot be read or fails is reported and the rest restored. What the
cap does that restore cannot undo is said each time (NOT_UNDONE, UNLINKED).

Exit codes: 0 everything found is restored (or, for status, readable); 4 (`Exit.CLOUD`) something
was left: an unreadable mark, a write or a read that failed, a governed zone an API could not
reach (exit 1 means a mandatory policy finding, and nothing else); 2 invalid input (unknown stack,
bad settings or endpoint, --dry-run without restore, no credentials). `--endpoint URL` (or
MLGOV_API_ENDPOINTS {"container": URL, "aiplatform": URL}) talks to another base URL with
anonymous access. Adding a kind of cap to show (a spend-cap budget): a module that returns Items,
one entry in `_read`.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from governance.endpoints import ENDPOINTS_ENV, needs_google
from governance.errors import CliError, Exit, report

if TYPE_CHECKING:
    from governance.cap.api import Api
    from governance.cap.plan import Item
    from governance.cap.stack import Stack

SERVICES = ("container", "aiplatform")
NOT_UNDONE = (
    "VMs, Workbench instances and TPU VMs the cap stopped stay stopped: the cap keeps no mark "
    "on them, so restore starts none; start the ones still needed (e.g. `gcloud compute tpus "
    "tpu-vm start NAME --zone ZONE`). The budget function's log names each "
    '(jsonPayload.action="stop" jsonPayload.outcome="done").',
    "Vertex AI training jobs the cap cancelled are not resumed: a cancelled job cannot run "
    "again; submit it anew. The log names each "
    '(jsonPayload.action="cancel" jsonPayload.outcome="done").',
)
UNLINKED = (
    "Billing the cap unlinked is not linked again (allow_billing_disable): link it in the "
    "console or with `gcloud billing projects link PROJECT --billing-account ACCOUNT`."
)


def register(subparsers: Any) -> None:
    """Add the `cap` subcommand to the CLI's subparsers."""
    from governance.cli import spend_caps
    from governance.cli.flags import quiet_flag, stack_flags

    p = subparsers.add_parser(
        "cap",
        help="show or undo what the budget cap changed (GKE, Vertex AI); show and lift spend caps",
        description=(
            "See and restore what the budget cap changed in the stack's governed projects: "
            "GKE node pools and NAP limits, Vertex AI endpoint deployments.\n"
            + textwrap.fill(needs_google(f"--endpoint, or {ENDPOINTS_ENV}"), 80)
        ),
        epilog=(
            "examples:\n  mlgov cap status --stack prod\n  mlgov cap restore --stack prod --dry-run"
            "\n  mlgov cap lift --stack prod --service vertex_ai --reason 'launch day'"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", choices=("status", "restore", *spend_caps.ACTIONS), help="what to do")
    stack_flags(p)
    p.add_argument(
        "--endpoint",
        help="base URL for the container, aiplatform and logging APIs (http(s)://...)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="restore, lift: print the plan, change nothing"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--hours",
        type=_hours,
        default=24.0,
        help="status, fan-out stacks: read the runs of the last N hours (default 24)",
    )
    spend_caps.add_arguments(p)
    quiet_flag(p)
    p.set_defaults(func=handler)


def _hours(text: str) -> float:
    try:
        hours = float(text)
    except ValueError:
        hours = -1.0
    if not 0 < hours <= 24 * 30:  # Cloud Logging keeps _Default logs 30 days unless extended
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of hours from 0 to 720")
    return hours


@dataclass
class Findings:
    """What reading the governed projects found."""

    items: list[Item] = field(default_factory=list["Item"])
    errors: list[str] = field(default_factory=list[str])  # reads that failed
    unreachable: list[str] = field(default_factory=list[str])  # governed zones not read
    skipped: int = 0  # reads not sent because their service gave no answer earlier


def handler(args: argparse.Namespace) -> int:
    """Run `cap`; returns the exit code (invalid input is raised as CliError)."""
    from governance.cap.api import Api, sessions
    from governance.cli import spend_caps
    from governance.cli.jobs import endpoint
    from governance.text import progress

    if args.action in spend_caps.ACTIONS:
        return spend_caps.lift(args)
    if args.dry_run and args.action != "restore":
        raise CliError("--dry-run: only with `restore` or `lift`")
    stack = _stack(args)
    bases = {service: endpoint(args.endpoint, service) for service in SERVICES}
    api = Api(sessions(anonymous=all(bases.values()), bases=bases), bases)
    # The spend caps (Budget API) are read beside GKE and Vertex AI: an endpoint that does not
    # answer costs its few seconds once, not after the others.
    reading = f"reading what the budget cap changed in {args.stack or args.config}"
    with (
        progress.shown(reading, quiet=args.quiet),
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="mlgov-caps") as pool,
    ):
        caps_read = (
            pool.submit(spend_caps.status, args, show=False)
            if args.action == "status" and spend_caps.declares_spend_caps(args)
            else None
        )
        found = _read(api, stack)
    if args.action == "restore":
        for item in found.items:
            if args.dry_run:
                item.outcome = "would restore" if item.steps else "left capped"
            else:
                item.apply(api)
    doc = _document(args, stack, found)
    runs_failed: list[str] = []
    if args.action == "status" and stack.fans_out:
        runs_failed = _runs(args, stack, doc)
    caps_failed: list[str] = []
    caps: dict[str, Any] | None = None
    if caps_read is not None:
        try:
            caps = doc["spend_caps"] = caps_read.result()
        except CliError as err:
            # Not read (no answer, refused, no credentials for Google's Budget API while GKE
            # and Vertex AI were given endpoints): reported with the rest, not fatal.
            caps_failed = [f"spend caps: {p}" for p in err.problems]
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        _print(doc)
        if doc.get("runs") is not None:
            from governance.cap.runs import lines

            for line in lines(doc["runs"], args.hours, doc.get("runs_truncated", False)):
                print(line)
        if caps is not None:
            spend_caps.print_section(caps)
    problems = [*found.errors, *found.unreachable, *caps_failed, *runs_failed]
    problems += [f"{i.target}: {p}" for i in found.items for p in i.problems]
    problems += [f"{i.target}: {i.outcome}" for i in found.items if i.outcome.startswith("failed")]
    report(problems, sys.stderr)
    return Exit.CLOUD if problems else Exit.OK


def _runs(args: argparse.Namespace, stack: Stack, doc: dict[str, Any]) -> list[str]:
    """Add the fan-out runs to the document; the problem (a failed read), if any."""
    from datetime import UTC, datetime

    from governance.cap.api import Api, ApiError, sessions
    from governance.cap.runs import read_entries, runs_of, since
    from governance.cli.jobs import endpoint

    base = endpoint(args.endpoint, "logging")
    start = since(datetime.now(UTC), args.hours)
    where = f"fan-out runs (Cloud Logging entries.list in {stack.project})"
    doc["runs"] = None  # not read: the problem says why
    try:
        api = Api(sessions(anonymous=base is not None, bases={"logging": base}), {"logging": base})
        read = read_entries(api, stack.project, stack.function_services, start)
    except CliError as err:  # no credentials for Google's Logging API
        return [f"{where}: {p}" for p in err.problems]
    except ApiError as err:
        return [f"{where}: {err}"]
    doc["runs"] = [r.as_dict() for r in runs_of(read.entries)]
    doc["runs_since"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["runs_truncated"] = read.truncated
    return []


def _stack(args: argparse.Namespace) -> Stack:
    from governance.cap.stack import stack_of
    from governance.inputs.project import read_stack_config, settings_of, stack_file_of

    name, path = stack_file_of(args.stack, args.config)
    return stack_of(name, settings_of(read_stack_config(path), path))


def _read(api: Api, stack: Stack) -> Findings:
    """Every capped item of the stack's governed projects; failed reads are noted, not fatal."""
    from governance.cap import gke, vertex
    from governance.cap.api import ApiError

    found = Findings()

    def attempt(what: str, read: Callable[[], None]) -> None:
        try:
            read()
        except ApiError as err:
            if err.disabled:
                return  # the API is off in the project: nothing of it can have been capped
            if err.repeated:
                found.skipped += 1  # the service gave no answer before: named once, not per call
                return
            found.errors.append(f"{what}: {err}")

    for project, zones in stack.governed.items():

        def clusters(project: str = project, zones: tuple[str, ...] = zones) -> None:
            body = api.call("GET", "container", f"projects/{project}/locations/-/clusters")
            listed: list[dict[str, Any]] = body.get("clusters") or []
            for cluster in listed:
                found.items += gke.cluster_items(project, cluster, stack)
            governed = {*zones, *stack.regions(project)}
            missing: list[str] = body.get("missingZones") or []
            found.unreachable += [
                f"gke clusters.list {project}: {zone} unreachable (missingZones); what the cap "
                "changed there is not shown"
                for zone in missing
                if zone in governed
            ]

        attempt(f"gke clusters.list {project}", clusters)
        for region in stack.regions(project):

            def endpoints(project: str = project, region: str = region) -> None:
                path = f"projects/{project}/locations/{region}/endpoints"
                found.items += vertex.endpoint_items(
                    project, region, list(api.pages("aiplatform", path, "endpoints", region))
                )

            attempt(f"vertex endpoints.list {project}/{region}", endpoints)
    if found.skipped:
        found.errors.append(
            f"{found.skipped} more read(s) not sent: their API gave no answer earlier in this run"
        )
    return found


def _document(args: argparse.Namespace, stack: Stack, found: Findings) -> dict[str, Any]:
    """The `--json` document (the text output prints the same)."""
    return {
        "action": args.action,
        "dry_run": bool(args.dry_run),
        "stack": stack.name,
        "projects": {p: list(z) for p, z in stack.governed.items()},
        "scopes": list(stack.scopes),
        "items": [i.as_dict() for i in found.items],
        "errors": list(found.errors),
        "unreachable": list(found.unreachable),
        "not_undone": [*NOT_UNDONE, *([UNLINKED] if stack.unlinks_billing else [])],
    }


def _print(doc: dict[str, Any]) -> None:
    projects = ", ".join(f"{p} ({', '.join(z)})" for p, z in doc["projects"].items())
    print(f"stack {doc['stack']}: governed {projects}")
    if doc.get("scopes"):
        # Their projects are found by the functions at run time; restore reads only the above.
        print(f"  and scopes {', '.join(doc['scopes'])}: their projects are not read here")
    if not doc["items"]:
        # "nothing capped" only when every read answered: a failed read proves nothing
        failed = len(doc["errors"]) + len(doc["unreachable"])
        print(
            f"  nothing capped found, but {failed} read(s) failed (listed on stderr): what the "
            "cap changed there is not shown"
            if failed
            else "  nothing capped"
        )
    restore = doc["action"] == "restore"
    for item in doc["items"]:
        print(f"{item['kind']} {item['target']}")
        print(f"  now: {item['now']}")
        print(f"  before the cap: {item['before']}")
        if restore or item["restore"]:
            verb = "restore sets" if not restore else item["outcome"]
            print(f"  {verb}: {item['restore'] or '-'}")
        for note in item["notes"]:
            print(f"  note: {note}")
        for problem in item["problems"]:
            print(f"  unreadable: {problem}")
    if not doc["items"]:
        return  # nothing capped: nothing for restore to do, so nothing it leaves undone
    print("not undone by restore:")
    for line in doc["not_undone"]:
        print(f"  - {line}")
