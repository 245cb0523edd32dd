"""Where a governed project is governed: its zones, and the regions those zones are in.

A zonal resource (a VM, a TPU VM) is governed in the project's zones; a regional one (a GKE
cluster, Vertex AI) in their regions too. A project found through a scope (govern/resolve.py)
has no zones: it is governed in every zone and region, and its Vertex AI jobs are read in its
`vertex_regions` (Vertex AI has no `locations/-`). A list that could not read a location
(ports.Listing.missing) fails the run only for a location that matters here: an unreachable zone
the stack does not govern hides nothing the functions would act on. Standard library only.
"""

from __future__ import annotations

from govern.models import ActionPolicy
from govern.vertex import region_of


def regions(policy: ActionPolicy, project: str) -> tuple[str, ...]:
    """The regions of a governed project's zones (where its clusters and Vertex AI live).

    For a project governed in every zone (found through a scope): its `vertex_regions`, the
    only regions whose Vertex AI jobs are read.
    """
    governed = policy.projects.get(project)
    if governed is None:
        return ()
    if governed.every_zone:
        return tuple(sorted(governed.vertex_regions))
    return tuple(sorted({region_of(z) for z in governed.zones}))


def governs(policy: ActionPolicy, project: str, location: str) -> bool:
    """True if `location` (a zone or a region) is one of the project's zones or their regions."""
    governed = policy.projects.get(project)
    if governed is None:
        return False
    if governed.every_zone:
        return True
    return location in governed.zones or location in regions(policy, project)


def governs_zone(policy: ActionPolicy, project: str, zone: str) -> bool:
    """True if a zonal resource in `zone` of `project` is governed (not its region alone)."""
    governed = policy.projects.get(project)
    return governed is not None and (governed.every_zone or zone in governed.zones)


def zones_to_list(policy: ActionPolicy, project: str) -> tuple[str, ...]:
    """The locations a per-zone list reads for `project`: its zones, or `-` (every zone)."""
    governed = policy.projects[project]
    return ("-",) if governed.every_zone else governed.zones
