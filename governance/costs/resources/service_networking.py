"""Private services access (`gcp.servicenetworking.Connection`): a free connection.

The connection peers the VPC with the service producer's network (Cloud SQL, Memorystore, Vertex
AI, ...) and costs nothing itself. Traffic across it is billed as traffic within Google Cloud,
by where it goes: between zones of one region, or between regions at the VM-VM inter-region
rates of https://cloud.google.com/vpc/network-pricing. mlgov has no price it could cite for
those (no stored copy of the page shows its inter-region table: tests/costs/peer/differences.yaml,
transfer-by-destination, lists where the search looked), so the estimate says so on a line of
its own rather than stay silent. The baseline is the same.
"""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.context import PlanContext
from governance.costs.model import Resource

TRANSFER_NOT_ESTIMATED = (
    "traffic across it is not estimated: Google bills it as data transfer within Google Cloud "
    "(between zones, or at the VM-VM inter-region rates of "
    "https://cloud.google.com/vpc/network-pricing), a table no source mlgov reads shows"
)


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """$0 for the connection, and a line naming the transfer it leaves out."""
    del res, ctx  # the connection's inputs change nothing it bills
    q = Quote()
    for b in (q.governed, q.baseline):
        b.note("private services access: the connection itself has no charge")
        b.note(TRANSFER_NOT_ESTIMATED)
    return q
