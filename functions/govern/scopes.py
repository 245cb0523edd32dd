"""Where a governed project is governed: its zones, and the regions those zones are in.

A zonal resource (a VM, a TPU VM) is governed in the project's zones; a regional one (a GKE
cluster, Vertex AI) in their regions too. A list that could not read a location (ports.Listing
.missing) fails the run only for a location that matters here: an unreachable zone the stack
does not govern hides nothing the functions would act on. Standard library only.
"""

from __future__ import annotations

from govern.models import ActionPolicy
from govern.vertex import region_of


def regions(policy: ActionPolicy, project: str) -> tuple[str, ...]:
    """The regions of a governed project's zones (where its clusters and Vertex AI live)."""
    governed = policy.projects.get(project)
    if governed is None:
        return ()
    return tuple(sorted({region_of(z) for z in governed.zones}))


def governs(policy: ActionPolicy, project: str, location: str) -> bool:
    """True if `location` (a zone or a region) is one of the project's zones or their regions."""
    governed = policy.projects.get(project)
    if governed is None:
        return False
    return location in governed.zones or location in regions(policy, project)
