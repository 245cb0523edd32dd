"""How long the operation behind a write runs before its confirmation reads it done, and how the
functions wait for it.

Bases (each an assumption where no measurement exists here; the fake cloud finishes every
operation at its first read, so nothing in this repository measures them):

- Compute `instances.stop`: the guest gets up to 90 s to shut down, then Compute powers it off
  (functions/govern/gcp/compute.py, and Compute Engine's "graceful shutdown" overview: without
  graceful shutdown the guest has "a short time"). Typical: uniform 20-90 s (a guest that shuts
  down cleanly takes tens of seconds: an assumption); slowest: 90 s.
- TPU VM `nodes.stop`: a VM whose guest shuts down the same way (functions/govern/gcp/tpu.py);
  the same numbers as Compute (assumption).
- Workbench `instances.stop`: a VM plus its agent; typical uniform 30-120 s, slowest 180 s
  (assumption).
- GKE `nodePools.setSize` to 0: GKE drains the nodes (each pod gets its termination grace
  period, 30 s by Kubernetes' default) and the instance groups delete the VMs
  (functions/govern/gcp/container.py: "setSize drains nodes, which can take minutes"); typical
  uniform 60-300 s, slowest 600 s (the functions' wait cap for one GKE operation).
- Other GKE writes (labels, autoscaling, NAP limits): control-plane operations; typical uniform
  10-60 s, slowest 120 s (assumption).

The wait itself is the functions' (functions/govern/operations.py): read at once, then after
pauses of 1 s doubling to 10 s, each wait capped per API (WAIT_CAPS) and by the invocation's
deadline plus the continuation grace. Standard library only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final, Literal

Mode = Literal["typical", "slowest", "instant"]
"""instant: done at the first read, as the fake cloud answers (to compare with the benches)."""


@dataclass(frozen=True)
class Duration:
    """Uniform between `low` and `high` seconds (typical); `slowest` in the slowest mode."""

    low: float
    high: float
    slowest: float

    def draw(self, rng: random.Random, mode: Mode) -> float:
        """One operation's duration."""
        if mode == "instant":
            return 0.0
        return self.slowest if mode == "slowest" else rng.uniform(self.low, self.high)


VM_STOP: Final = Duration(20.0, 90.0, 90.0)
DURATIONS: Final = {
    "compute.instances.stop": VM_STOP,
    "tpu.projects.locations.nodes.stop": VM_STOP,
    "notebooks.projects.locations.instances.stop": Duration(30.0, 120.0, 180.0),
    "container.projects.locations.clusters.nodePools.setSize": Duration(60.0, 300.0, 600.0),
}
GKE_OTHER: Final = Duration(10.0, 60.0, 120.0)
QUICK: Final = Duration(1.0, 5.0, 10.0)
"""Any other write answered with an operation (none in today's profiles)."""

WAIT_CAPS: Final = {
    "compute": 180.0,  # functions/govern/gcp/compute.py WAIT_CAP_SECONDS
    "tpu": 300.0,  # functions/govern/gcp/tpu.py
    "notebooks": 300.0,  # functions/govern/gcp/notebooks.py (same helper as TPU)
    "container": 600.0,  # functions/govern/gcp/container.py
}
FIRST_PAUSE: Final = 1.0
MAX_PAUSE: Final = 10.0


def duration(method: str) -> Duration:
    """The operation duration of a write `method`."""
    if method in DURATIONS:
        return DURATIONS[method]
    return GKE_OTHER if method.startswith("container.") else QUICK


def next_pause(pause: float) -> float:
    """functions/govern/operations.py next_pause: 1 s after none, then doubled, at most 10 s."""
    return min(max(pause * 2, FIRST_PAUSE), MAX_PAUSE)
