"""Acting on an idle-VM recommendation: claim it, stop its VM, then mark it succeeded or failed.

The Recommender's etag is the lock: claiming with the etag we listed fails if anyone changed the
recommendation since, and then the VM is left alone. After the claim, what happened to the stop
is written back to the recommendation, so the console shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from govern import ports as p
from govern.actions.base import Action, Call, Done
from govern.models import Recommendation, Workload


@dataclass(frozen=True)
class ReapRecommendation(Action):
    """Claim an idle-VM recommendation, stop its VM, then mark it succeeded (or failed)."""

    recommendation: Recommendation
    workload: Workload
    permissions: ClassVar[tuple[str, ...]] = (
        # instances.stop: https://cloud.google.com/compute/docs/reference/rest/v1/instances/stop
        "compute.instances.stop",
        # markClaimed / markSucceeded / markFailed "require the recommender.*.update IAM
        # permission": https://cloud.google.com/recommender/docs/reference/rest/v1/projects.locations.recommenders.recommendations/markClaimed
        "recommender.computeInstanceIdleResourceRecommendations.update",
    )

    def run(self, ports: p.Ports, call: Call) -> Done:
        """Claim, stop, mark; a claim lost to a concurrent change is a skip, not a failure."""
        rec, w, recommender = self.recommendation, self.workload, ports.recommender
        try:
            etag = call(w.project, recommender.mark_claimed, rec.name, rec.etag)
        except p.Conflict as err:
            return "skipped", f"recommendation changed concurrently, not claimed ({err})"
        except p.Gone:
            return "skipped", "recommendation no longer exists"

        def mark(verb: str, fn: Callable[..., str], *args: str) -> str:
            try:
                call(w.project, fn, rec.name, etag, *args)
            except (p.PortError, TimeoutError) as err:
                return f"NOT {verb} ({err})"
            return verb

        try:
            status = call(w.project, ports.compute.stop, w.project, w.zone, w.name)
        except p.Gone:
            note = mark("marked failed", recommender.mark_failed, "instance not found")
            return "skipped", f"instance already gone; recommendation {note}"
        except (p.PortError, TimeoutError) as err:
            note = mark("marked failed", recommender.mark_failed, f"stop failed: {err}")
            return "failed", f"stop failed: {err}; recommendation {note}"
        note = mark("marked succeeded", recommender.mark_succeeded)
        # The stop went through either way: a failed markSucceeded leaves the recommendation
        # CLAIMED, and the recommender refreshes it; it does not make the stop a failure.
        return "done", f"{self.reason}: stop requested (operation {status}); recommendation {note}"
