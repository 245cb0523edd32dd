"""Run the real Pulumi program offline, under mocks, and record what it would create.

No Pulumi CLI, engine or cloud is involved: `pulumi.runtime.set_mocks` answers every resource
registration, and `GcpMocks` records each one's type token, logical name and inputs exactly as the
engine (and CrossGuard) would see them. Outputs echo the inputs plus the few computed values
other resources read (ids, emails, names), so dependent inputs keep their values. The plan
document is assembled in plan.py; this module only runs the program.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import runpy
import sys
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pulumi
import pulumi.log
import pulumi.runtime
import pulumi.runtime.resource
import pulumi.runtime.settings
from pulumi.runtime.proto import source_pb2

SECRET_FIELDS = frozenset({"password", "secretData", "privateKey"})
REDACTED = "[secret]"
# A dynamic resource's pickled provider (pulumi.dynamic): code, not an input of the resource.
DYNAMIC_PROVIDER = "__provider"

# Where the mock engine sends the program's `pulumi.log` messages. Without it they reach the root
# logger and stderr as bare lines; `plan` reports the settings warnings (read_settings logs them
# for `pulumi up`) itself, as `mlgov: warning: <key>: ...` and in the plan document.
ENGINE_LOG = logging.getLogger("mlgov.offline.engine")
ENGINE_LOG.addHandler(logging.NullHandler())
ENGINE_LOG.propagate = False


# The SDK function that walks the Python stack at every resource registration, to send the engine
# the source position of the program line that made it (the real engine shows it in errors).
STACK_TRACE_HOOK = "_get_stack_trace"


@contextmanager
def no_stack_traces() -> Generator[None]:
    """Registrations under mocks skip the SDK's per-resource stack walk; restored after.

    The mock monitor answers a registration from its type, name and inputs and never reads the
    stack trace or source position the request carries, so the walk (every frame's file turned
    into a URI: about a sixth of a plan, more under a deep caller such as a test runner) buys
    nothing here and the recorded resources are the same without it. If an SDK release renames
    the function, nothing is replaced and plans are only slower (tests/golden/test_mock_runs.py
    notices the rename).
    """
    module = pulumi.runtime.resource
    original = getattr(module, STACK_TRACE_HOOK, None)
    if original is None:
        yield
        return
    setattr(module, STACK_TRACE_HOOK, source_pb2.StackTrace)  # an empty trace, no frames
    try:
        yield
    finally:
        setattr(module, STACK_TRACE_HOOK, original)


# The SDK function every internal debug message goes through (`log.debug(...)` at each step of
# each registration).
DEBUG_HOOK = "debug"


def _unread_debug(
    msg: str, resource: object = None, stream_id: int | None = None, ephemeral: bool | None = None
) -> None:
    """Stands in for the SDK's `pulumi.log.debug` while nothing reads debug messages."""


@contextmanager
def no_unread_debug_messages() -> Generator[None]:
    """The SDK's debug messages are not built while nobody would read them; restored after.

    Under mocks every debug message (several per registration) becomes a log request for the
    mock engine, which hands it to ENGINE_LOG at DEBUG, where it is dropped unless that logger
    is enabled for DEBUG (its own handler is a NullHandler and it does not propagate). When it
    is not, building the message's request is all the message costs (a few percent of a plan),
    so the SDK's `pulumi.log.debug` is replaced for the run; warnings and errors take their own
    path and reach ENGINE_LOG as before. If an SDK release renames the function, nothing is
    replaced and plans are only slower (tests/golden/test_mock_runs.py notices the rename).
    """
    original = getattr(pulumi.log, DEBUG_HOOK, None)
    if original is None or ENGINE_LOG.isEnabledFor(logging.DEBUG):
        yield
        return
    setattr(pulumi.log, DEBUG_HOOK, _unread_debug)
    try:
        yield
    finally:
        setattr(pulumi.log, DEBUG_HOOK, original)


class _MonitorThreads(concurrent.futures.ThreadPoolExecutor):
    """The threads the SDK runs the mock monitor's calls on, kept from one run to the next.

    Each run has an event loop of its own, and a loop starts its default executor's threads
    afresh and shuts them down when it closes; each new thread also opens an event loop of its
    own for the monitor's calls (the SDK's `_ensure_event_loop`). `mlgov plan --all` and the
    tests plan many stacks in one process: with these threads kept, they start the threads and
    their loops once. A run's loop asks its default executor to shut down when it closes; this
    one stays up for the next run (its idle threads are joined at interpreter exit, as every
    executor's are).
    """

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Outlive the loop that closes (see the class)."""


MONITOR_THREADS = _MonitorThreads(thread_name_prefix="mlgov-mock-monitor")


@dataclass(frozen=True)
class RecordedResource:
    """One resource the program registered."""

    type: str
    name: str
    inputs: dict[str, Any]


def _plain(value: Any) -> Any:
    """JSON-ready inputs: secrets dropped (plans are posted in pull requests), assets described."""
    if isinstance(value, dict):
        items = cast(dict[str, Any], value)
        return {k: REDACTED if k in SECRET_FIELDS else _plain(v) for k, v in items.items()}
    if isinstance(value, list):
        return [_plain(v) for v in cast(list[Any], value)]
    if isinstance(value, pulumi.Archive | pulumi.Asset):
        described: dict[str, Any] = {"kind": type(value).__name__}
        if isinstance(path := getattr(value, "path", None), str):
            described["path"] = path
        if isinstance(assets := getattr(value, "assets", None), dict):
            described["assets"] = sorted(cast(dict[str, Any], assets))
        return described
    return value


def _computed(typ: str, inputs: Mapping[str, Any], name: str, project: str) -> dict[str, Any]:
    """The outputs a real provider computes that other resources of ours consume."""
    gcp_name = str(inputs.get("name") or name)
    region = inputs.get("region") or inputs.get("location") or "us-central1"
    out: dict[str, Any] = {"name": gcp_name}
    match typ:
        case "gcp:serviceaccount/account:Account":
            account = inputs.get("accountId", name)
            out["email"] = f"{account}@{project}.iam.gserviceaccount.com"
            out["member"] = f"serviceAccount:{out['email']}"
        case "gcp:pubsub/topic:Topic":
            out["id"] = f"projects/{project}/topics/{gcp_name}"
        case "gcp:billing/budget:Budget":
            # Deterministic stand-in for the server-assigned budget id.
            out["name"] = f"billingAccounts/{inputs.get('billingAccount')}/budgets/mock-{name}"
        case "pulumi-python:dynamic/mlgov:SpendCapBudget":
            out["name"] = f"{inputs.get('parent')}/budgets/mock-{name}"
            out["outputState"] = "CONFIGURED"
        case "gcp:bigquery/dataset:Dataset":
            out["id"] = f"projects/{project}/datasets/{inputs.get('datasetId')}"
        case "gcp:projects/iAMCustomRole:IAMCustomRole":
            out["name"] = f"projects/{project}/roles/{inputs.get('roleId')}"
        case "gcp:sql/databaseInstance:DatabaseInstance":
            out["connectionName"] = f"{project}:{region}:{gcp_name}"
            out["privateIpAddress"] = "10.100.0.3"
        case "gcp:cloudfunctionsv2/function:Function":
            out["url"] = f"https://{region}-{project}.cloudfunctions.net/{gcp_name}"
            out["serviceConfig"] = {
                **dict(inputs.get("serviceConfig") or {}),
                "uri": f"https://{gcp_name}-mock-{region}.a.run.app",
                "service": f"projects/{project}/locations/{region}/services/{gcp_name}",
            }
        case "random:index/randomPassword:RandomPassword":
            out["result"] = "mock-password-not-a-secret"
        case "gcp:storage/bucket:Bucket":
            out["url"] = f"gs://{gcp_name}"
        case _:
            pass
    return out


class GcpMocks(pulumi.runtime.Mocks):
    """Mocks that record every registered resource and echo plausible outputs."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.resources: list[RecordedResource] = []

    def new_resource(
        self, args: pulumi.runtime.MockResourceArgs
    ) -> tuple[str | None, dict[str, Any]]:
        """Record the resource; answer with its inputs plus computed outputs."""
        inputs = dict(cast(dict[str, Any], args.inputs))  # pyright: ignore[reportUnknownMemberType]
        inputs.pop(DYNAMIC_PROVIDER, None)
        self.resources.append(RecordedResource(args.typ, args.name, _plain(inputs)))
        project = str(inputs.get("project") or self.project)
        outputs = {**inputs, **_computed(args.typ, inputs, args.name, project)}
        resource_id = str(outputs.get("id") or f"projects/{project}/{args.name}")
        outputs.setdefault("id", resource_id)
        outputs.setdefault("selfLink", f"https://www.googleapis.com/mock/{resource_id}")
        return resource_id, outputs

    def call(
        self, args: pulumi.runtime.MockCallArgs
    ) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        """No invokes are used by the program; answer empty."""
        return {}, None


def pulumi_config(config: Mapping[str, Any]) -> dict[str, str]:
    """Stack-file config as the CLI passes it: structured values as JSON strings."""
    # default=str: YAML reads 2026-12-31 as a date; the Pulumi CLI passes it as a string.
    return {k: v if isinstance(v, str) else json.dumps(v, default=str) for k, v in config.items()}


def run_under_mocks(
    build: Callable[[], object],
    config: Mapping[str, Any],
    stack: str = "test",
    project_name: str = "mlgov",
) -> list[RecordedResource]:
    """Run `build` (a program body) under mocks with `config`; return what it registered.

    `project_name` is the Pulumi project's name, as `pulumi up` gives it to the program:
    `pulumi.Config()` without a namespace reads `<project name>:<key>`, so a program of the
    user's own reads the same keys offline as it does deployed.

    Raises whatever `build` raises (SettingsError for invalid config).
    """
    project = str(config.get("gcp:project") or "mock-project")
    mocks = GcpMocks(project)
    # A fresh root stack and event loop per run, so runs in one process don't share state.
    pulumi.runtime.settings.ROOT.set(None)
    loop = asyncio.new_event_loop()
    loop.set_default_executor(MONITOR_THREADS)
    asyncio.set_event_loop(loop)
    try:
        # set_mocks registers the root stack: inside both too
        with no_stack_traces(), no_unread_debug_messages():
            pulumi.runtime.set_mocks(
                mocks, project=project_name, stack=stack, preview=False, logger=ENGINE_LOG
            )
            pulumi.runtime.set_all_config(pulumi_config(config))

            def _run() -> None:
                build()

            # pulumi.runtime.test awaits every outstanding RPC before returning.
            test: Any = getattr(pulumi.runtime, "test")  # noqa: B009 - untyped in the SDK
            cast(Callable[[], None], test(_run))()
    finally:
        # The root stack holds every resource of the run, and through them their outputs and
        # the SDK's tasks: let them go now, while they are still young objects that the
        # collection after the run frees cheaply. Kept until the next run's reset, they outlive
        # that collection and are only freed by later, older-generation ones, which walk far
        # more (tests/golden/test_mock_runs.py).
        pulumi.runtime.settings.ROOT.set(None)
        asyncio.set_event_loop(None)
        loop.close()
    return mocks.resources


def run_program(
    config: Mapping[str, Any], stack: str, program: Path, project_name: str = "mlgov"
) -> list[RecordedResource]:
    """Run a Pulumi program file under mocks; return the resources it registered, in order.

    The program's folder is on `sys.path` while it runs, as the Pulumi language host puts it, so
    a project's own modules import.
    """
    folder = str(program.resolve().parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    loaded = set(sys.modules)
    try:
        return run_under_mocks(
            lambda: runpy.run_path(str(program), run_name="__main__"), config, stack, project_name
        )
    finally:
        if added:
            sys.path.remove(folder)
        forget_project_modules(loaded, Path(folder))


def forget_project_modules(loaded: set[str], folder: Path) -> list[str]:
    """Drop the modules a program run imported from its own project folder; return their names.

    `pulumi up` runs each stack in a fresh process. Planning several stacks in one process must
    not let a project module that read one stack's config at import (`region =
    pulumi.Config().require("region")` at module level) hand that value to the next stack: the
    next run imports it again. Kept: modules of packages that were loaded before the run (mlgov's
    own `governance`, which is the planner itself and keeps no stack's state: the one-process
    tests prove it), and anything installed in the interpreter's environment, even where a
    virtualenv lives inside the project folder.
    """
    installed = tuple(
        Path(p).resolve() for p in {sys.prefix, sys.exec_prefix, sys.base_prefix} if p
    )
    tops = {name.partition(".")[0] for name in loaded}
    forgotten: list[str] = []
    for name in sorted(set(sys.modules) - loaded):
        if name.partition(".")[0] in tops:
            continue
        module = sys.modules.get(name)
        where = _module_location(module)
        if where is None or not where.is_relative_to(folder.resolve()):
            continue
        if any(where.is_relative_to(root) for root in installed):
            continue
        del sys.modules[name]
        forgotten.append(name)
    return forgotten


def _module_location(module: object) -> Path | None:
    """Where a module was loaded from: its file, or a namespace package's first folder."""
    file = getattr(module, "__file__", None)
    if isinstance(file, str):
        return Path(file).resolve()
    paths = getattr(module, "__path__", None)
    for path in list(cast(Any, paths) or []):
        if isinstance(path, str):
            return Path(path).resolve()
    return None
