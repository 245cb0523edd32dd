"""What `mlgov cap` found and what restore does about it: one `Item` per capped resource.

An item is a node pool, a cluster's NAP limits, or an endpoint's deployments: what it is now,
what it was before the cap (from its marks), what restore sets, and the writes (`Step`s) that
do it, in order. Items are restored independently: one that fails or cannot be read is
reported and the others go on. gke.py and vertex.py build them; cli.py runs and prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from governance.cap.api import Api, ApiError

FRESH_READS = 3
"""How many times a label write refused for a stale fingerprint or etag is tried again."""


@dataclass(frozen=True)
class Step:
    """One write restore makes (waiting for its operation); raises ApiError."""

    what: str
    run: Callable[[Api], None]


@dataclass
class Item:
    """One capped resource: now, before the cap, what restore sets, and how."""

    kind: str  # "node pool" | "NAP limits" | "endpoint"
    target: str  # its REST name, projects/P/locations/L/...
    now: str
    before: str
    restore: str = ""  # what restore sets, in words ("" when nothing)
    steps: list[Step] = field(default_factory=list[Step])
    notes: list[str] = field(default_factory=list[str])
    problems: list[str] = field(default_factory=list[str])  # unreadable marks, left alone
    outcome: str = "capped"  # then: "restored", "would restore", "failed: ...", "left capped"

    @property
    def name(self) -> str:
        """The last segment of its name (the pool, the cluster, the endpoint)."""
        return self.target.rsplit("/", 1)[-1]

    @property
    def failed(self) -> bool:
        """Whether restore left something of it undone (unreadable, or a write failed)."""
        return bool(self.problems) or self.outcome.startswith("failed")

    def apply(self, api: Api) -> None:
        """Run the steps in order; the first failure stops this item (and is its outcome)."""
        if not self.steps:
            self.outcome = "left capped" if self.problems or not self.restore else "restored"
            return
        done: list[str] = []
        for step in self.steps:
            try:
                step.run(api)
            except ApiError as err:
                after = f" (after: {', '.join(done)})" if done else ""
                self.outcome = f"failed: {step.what}: {err}{after}"
                return
            done.append(step.what)
        self.outcome = "restored"

    def as_dict(self) -> dict[str, Any]:
        """The item in `--json` output."""
        return {
            "kind": self.kind,
            "target": self.target,
            "now": self.now,
            "before": self.before,
            "restore": self.restore,
            "writes": [s.what for s in self.steps],
            "notes": list(self.notes),
            "problems": list(self.problems),
            "outcome": self.outcome,
        }


def relabel(
    api: Api,
    read: Callable[[], dict[str, Any]],
    write: Callable[[dict[str, Any]], None],
) -> None:
    """Read the resource fresh and write its labels; again after a stale fingerprint or etag.

    `read` answers the resource as it is now; `write(fresh)` sends the new labels with its
    fingerprint or etag. Raises the last ApiError once FRESH_READS tries were stale.
    """
    for attempt in range(FRESH_READS + 1):
        try:
            write(read())
        except ApiError as err:
            if not err.stale or attempt == FRESH_READS:
                raise
        else:
            return
