"""Acting on an idle-VM recommendation: claim it, stop its VM, then mark it succeeded or failed.

The Recommender's etag is the lock: claiming with the etag we listed fails if anyone changed the
recommendation since, and then the VM is left alone. The claim carries mlgov's metadata (run
id and start, claims.py). After the claim, what happened is written back to the recommendation
so the console shows it, with one exception that keeps claims from being stranded: when the
stop failed transiently (Unavailable, or the time budget ran out) the recommendation stays
CLAIMED by this run, and the next run resumes it (decide.reap_idle). A permanent failure (403,
400...) is marked FAILED with the reason: a person has to look. `ReleaseClaim` closes a stale
mlgov claim whose VM needs no stop any more.

SUCCEEDED is written only once the stop's zonal operation is DONE without an error: Compute
answers a stop with a PENDING operation, which can still fail (then the VM keeps running and
the recommendation is marked FAILED with the operation's error), unless the error is the
service's (`httpErrorStatusCode` 5xx or 429): then the claim is kept like after any transient
failure. A stop still running when the wait runs out, or whose operation answers 404, is not
confirmed: failed for this run (never done), the claim left for the next run, which finds the
VM stopped (and marks it succeeded) or still running (and stops it again).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from govern import claims, clock
from govern import ports as p
from govern.actions.base import Action, Call, Done
from govern.actions.stop import compute_stopper, local_ssd_note
from govern.models import Recommendation, Workload

# markClaimed / markSucceeded / markFailed "require the recommender.*.update IAM permission":
# https://cloud.google.com/recommender/docs/reference/rest/v1/projects.locations.recommenders.recommendations/markClaimed
UPDATE_RECOMMENDATIONS = "recommender.computeInstanceIdleResourceRecommendations.update"


def _mark(
    call: Call,
    project: str,
    fn: Callable[[str, str, Mapping[str, str]], str],
    rec_name: str,
    etag: str,
    meta: Mapping[str, str],
    verb: str,
) -> str:
    """Mark the recommendation; the phrase for the report says whether it went through."""
    try:
        call(project, fn, rec_name, etag, meta)
    except p.Conflict as err:
        # After a lost reply the retry meets the etag our first attempt changed.
        return (
            f"{verb}, unconfirmed (changed meanwhile, by a lost earlier attempt or another: {err})"
        )
    except (p.PortError, clock.OutOfTime) as err:
        return f"NOT {verb} ({err})"
    return verb


@dataclass(frozen=True)
class ReapRecommendation(Action):
    """Claim an idle-VM recommendation, stop its VM, then mark it succeeded (or failed)."""

    recommendation: Recommendation
    workload: Workload
    by: claims.Run
    permissions: ClassVar[tuple[str, ...]] = (
        # instances.stop: https://cloud.google.com/compute/docs/reference/rest/v1/instances/stop
        "compute.instances.stop",
        # https://cloud.google.com/compute/docs/reference/rest/v1/zoneOperations/get
        "compute.zoneOperations.get",
        UPDATE_RECOMMENDATIONS,
    )

    def side_effects(self) -> str:
        """What becomes of the VM's Local SSDs (the idle recommender skips such VMs anyway)."""
        return local_ssd_note(self.workload)

    def _claim(self, ports: p.Ports, call: Call) -> str | None:
        """Claim with the listed etag; the new etag, or None if someone else changed it."""
        rec, w, recommender = self.recommendation, self.workload, ports.recommender
        meta = claims.metadata(claims.CLAIMED, self.by)
        try:
            return call(w.project, recommender.mark_claimed, rec.name, rec.etag, meta)
        except p.Conflict:
            # Our own earlier attempt may have gone through with its reply lost (a reset or a
            # timeout, then a retry with the old etag): then the claim is ours, with a new etag.
            listed = call(w.project, recommender.list_recommendations, w.project, rec.zone)
            for current in listed:
                claim = claims.claim_of(current)
                if current.name == rec.name and claim and claim.run_id == self.by.run_id:
                    return current.etag
            return None

    def run(self, ports: p.Ports, call: Call) -> Done:
        """Claim, stop, mark; a claim lost to a concurrent change is a skip, not a failure."""
        rec, w, recommender = self.recommendation, self.workload, ports.recommender
        try:
            etag = self._claim(ports, call)
        except p.Gone:
            return "skipped", "recommendation no longer exists"
        if etag is None:
            return "skipped", "recommendation changed concurrently, not claimed"

        def mark_failed(reason: str) -> str:
            meta = claims.metadata(claims.FAILED, self.by, reason)
            return _mark(
                call, w.project, recommender.mark_failed, rec.name, etag, meta, "marked failed"
            )

        keep = f"recommendation left CLAIMED by run {self.by.run_id}, the next run resumes it"
        try:
            status = call(w.project, compute_stopper(ports, w), w.project, w.zone, w.name)
        except p.Gone:
            return (
                "skipped",
                f"instance already gone; recommendation {mark_failed('instance not found')}",
            )
        except (p.Unavailable, p.Conflict, clock.OutOfTime) as err:
            # Transient (a 409 is "busy", e.g. another operation on the VM): keep the claim, so
            # the next run resumes it rather than nobody.
            return "failed", f"stop failed: {err}; {keep}"
        except p.PortError as err:
            if isinstance(err, p.OperationFailed) and err.transient:
                return "failed", f"stop failed transiently: {err}; {keep}"
            note = mark_failed(f"stop failed: {err}")
            return "failed", f"stop failed: {err}; recommendation {note}"
        operation = status.split(" ", 1)[0]
        try:
            call(w.project, ports.compute.wait_operation, w.project, w.zone, operation)
        except (p.Gone, p.Unavailable, clock.OutOfTime) as err:
            # Requested, not confirmed (still running, or the operation answered 404): never
            # done. The next run finds the VM stopped (and marks it succeeded) or running (and
            # stops it again); SUCCEEDED now could be untrue, FAILED would strand the claim.
            return "failed", (
                f"{self.reason}: stop requested (operation {status}), not confirmed ({err}); "
                f"{keep}{self.side_effects()}"
            )
        except p.PortError as err:
            if isinstance(err, p.OperationFailed) and err.transient:
                # The operation failed on the service's side (httpErrorStatusCode 5xx): the VM
                # still runs and a later stop may work; FAILED would end the recommendation.
                return "failed", f"stop failed transiently: {err}; {keep}"
            # The operation ended in an error: the VM was not stopped.
            note = mark_failed(f"stop failed: {err}")
            return "failed", f"stop failed: {err}; recommendation {note}"
        meta = claims.metadata(claims.STOPPED, self.by)
        note = _mark(
            call, w.project, recommender.mark_succeeded, rec.name, etag, meta, "marked succeeded"
        )
        # The stop went through either way: a failed markSucceeded leaves the recommendation
        # CLAIMED, and the next run finds the VM stopped and marks it (ReleaseClaim).
        return "done", (
            f"{self.reason}: stopped (operation {operation} DONE); recommendation {note}"
            f"{self.side_effects()}"
        )


@dataclass(frozen=True)
class ReleaseClaim(Action):
    """Close a stale mlgov claim whose VM needs no stop: mark it succeeded, or failed."""

    recommendation: Recommendation
    succeeded: bool
    by: claims.Run
    verb: ClassVar[str] = "release_claim"
    permissions: ClassVar[tuple[str, ...]] = (UPDATE_RECOMMENDATIONS,)

    def run(self, ports: p.Ports, call: Call) -> Done:
        """Mark it succeeded (the VM is stopped) or failed (it cannot be stopped)."""
        rec, recommender = self.recommendation, ports.recommender
        if self.succeeded:
            meta = claims.metadata(claims.STOPPED, self.by)
            call(rec.project, recommender.mark_succeeded, rec.name, rec.etag, meta)
            return "done", f"{self.reason}: recommendation marked succeeded"
        meta = claims.metadata(claims.FAILED, self.by, self.reason)
        call(rec.project, recommender.mark_failed, rec.name, rec.etag, meta)
        return "done", f"{self.reason}: recommendation marked failed"
