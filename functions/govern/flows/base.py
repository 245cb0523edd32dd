"""What a flow declares, and the read step the stop flows share.

A flow is one entry point's read-decide-act sequence, written against the ports (flows/*.py).
Beside each flow a `Flow` declares the reads it performs and the action kinds it can run;
permissions.py derives the function's IAM permissions from exactly that, so a flow that starts
reading something new must say so here, and tests/functions/test_permissions.py checks the
declaration against the REST calls the flow really makes.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, TypeVar

from govern.actions import Action
from govern.execute import Runner
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
    """The workloads of every chunk a Runner.map returned (None: not started in time)."""
    return [w for chunk in chunks if chunk for w in chunk]


def inventory(
    runner: Runner, ports: Ports, projects: Sequence[str], kinds: Sequence[Kind] = ALL_KINDS
) -> list[Workload]:
    """The workloads of `kinds` in `projects` (TPUs per governed zone), read concurrently."""
    tasks: list[Callable[[], list[Workload]]] = []
    for project in projects:
        if "compute" in kinds:
            list_compute = ports.compute.list_instances
            tasks.append(
                functools.partial(runner.gather, "compute list", project, list_compute, project)
            )
        if "notebook" in kinds:
            list_notebooks = ports.notebooks.list_instances
            tasks.append(
                functools.partial(runner.gather, "notebooks list", project, list_notebooks, project)
            )
        if "tpu" in kinds:
            list_tpus = ports.tpus.list_nodes
            tasks += [
                functools.partial(runner.gather, "tpu list", project, list_tpus, project, zone)
                for zone in runner.policy.projects[project].zones
            ]
    return flatten(runner.map(lambda task: task(), tasks))


def together(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """Run two independent read phases side by side (each keeps its own Runner.map pool).

    Every call inside still goes through the Runner (rate limit per project, deadline); only the
    phases overlap, so neither waits for the other's slowest listing.
    """
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="mlgov-phase") as pool:
        a = pool.submit(contextvars.copy_context().run, first)
        b = pool.submit(contextvars.copy_context().run, second)
        return a.result(), b.result()
