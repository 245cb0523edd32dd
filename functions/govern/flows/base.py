"""What a flow declares, and the read step the stop flows share.

A flow is one entry point's read-decide-act sequence, written against the ports (flows/*.py).
Beside each flow a `Flow` declares the reads it performs and the action kinds it can run;
permissions.py derives the function's IAM permissions from exactly that, so a flow that starts
reading something new must say so here, and tests/functions/test_permissions.py checks the
declaration against the REST calls the flow really makes.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, TypeVar

from govern import scopes
from govern.actions import Action
from govern.execute import ReadCall, Runner
from govern.models import Kind, Workload
from govern.ports import LIST_INSTANCES, LIST_NOTEBOOKS, LIST_TPU_NODES, Ports, Read

A = TypeVar("A")
B = TypeVar("B")


@dataclass(frozen=True)
class Flow:
    """One entry point's capabilities: the reads its flow performs, the action kinds it runs."""

    entry_point: str
    reads: tuple[Read, ...]
    actions: tuple[type[Action], ...]

    @property
    def permissions(self) -> tuple[str, ...]:
        """Sorted union of the permissions of its reads and its action kinds."""
        perms = {p for read in self.reads for p in read.permissions}
        perms |= {p for action in self.actions for p in action.permissions}
        return tuple(sorted(perms))


ALL_KINDS: Final[tuple[Kind, ...]] = ("compute", "notebook", "tpu")
INVENTORY_READS: Final[dict[Kind, Read]] = {
    "compute": LIST_INSTANCES,
    "notebook": LIST_NOTEBOOKS,
    "tpu": LIST_TPU_NODES,
}
"""The read `inventory` performs for each kind of workload."""


def flatten(chunks: Iterable[list[Workload] | None]) -> list[Workload]:
    """The workloads of every chunk (None or empty: a read that failed or never started)."""
    return [w for chunk in chunks if chunk for w in chunk]


def inventory(
    runner: Runner, ports: Ports, projects: Sequence[str], kinds: Sequence[Kind] = ALL_KINDS
) -> list[Workload]:
    """The workloads of `kinds` in `projects` (TPUs per governed zone or `-`), read concurrently."""
    reads: list[ReadCall[Workload]] = []
    for project in projects:
        if "compute" in kinds:
            reads.append(
                ReadCall("compute list", project, ports.compute.list_instances, (project,))
            )
        if "notebook" in kinds:
            reads.append(
                ReadCall("notebooks list", project, ports.notebooks.list_instances, (project,))
            )
        if "tpu" in kinds:
            # Per governed zone; `-` (every zone) for a project found through a scope.
            reads += [
                ReadCall("tpu list", project, ports.tpus.list_nodes, (project, zone))
                for zone in scopes.zones_to_list(runner.policy, project)
            ]
    return flatten(runner.gather_all(reads))


def together(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """Run two independent read phases side by side (each keeps its own Runner.map pool).

    Every call inside still goes through the Runner (rate limit per project, deadline); only the
    phases overlap, so neither waits for the other's slowest listing.
    """
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="mlgov-phase") as pool:
        a = pool.submit(contextvars.copy_context().run, first)
        b = pool.submit(contextvars.copy_context().run, second)
        return a.result(), b.result()
