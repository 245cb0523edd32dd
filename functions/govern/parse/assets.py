"""Cloud Asset Inventory `searchAllResources` results (ResourceSearchResult) to models.

`found_project`: a project under a scope (FoundProject). `found_workload`: a VM, TPU VM or
Workbench instance as the index last saw it (a Workload with only what the index holds: kind,
project, zone, name, state, labels), for the fan-out dispatchers' candidate counts.

A project result (cloudasset v1 discovery document): `name`
`//cloudresourcemanager.googleapis.com/projects/NUMBER`, `assetType`
`cloudresourcemanager.googleapis.com/Project`, `project` `projects/NUMBER`, `state`, `labels`,
`folders`, `organization`, `parentFullResourceName`, and the project id in
`additionalAttributes.projectId`. Selecting which projects a scope governs is resolve.py's job.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from govern.models import FoundProject, Kind, Workload
from govern.parse.reader import ParseError, label_map, last_segment, sub, text

PROJECT_ASSET_TYPE: Final = "cloudresourcemanager.googleapis.com/Project"
WORKLOAD_ASSET_TYPES: Final[dict[str, Kind]] = {
    "compute.googleapis.com/Instance": "compute",
    "tpu.googleapis.com/Node": "tpu",
    "notebooks.googleapis.com/Instance": "notebook",
}
"""The asset types of what the reapers stop, and the Workload kind of each."""
# Full resource names (https://cloud.google.com/asset-inventory/docs/resource-name-format):
# Compute and TPU name the project by id, as the services' own APIs do.
_WORKLOAD_NAME = re.compile(
    r"//(?:compute\.googleapis\.com/projects/([^/]+)/zones/([^/]+)/instances"
    r"|(?:tpu|notebooks)\.googleapis\.com/projects/([^/]+)/locations/([^/]+)/(?:nodes|instances))"
    r"/([^/]+)"
)


def found_project(raw: Mapping[str, Any]) -> FoundProject:
    """One ResourceSearchResult of a project.

    Raises:
        ParseError: not a project result, or without `additionalAttributes.projectId`.
    """
    asset_type = text(raw, "assetType")
    if asset_type != PROJECT_ASSET_TYPE:
        raise ParseError(f"assetType {asset_type!r} is not {PROJECT_ASSET_TYPE}")
    project_id = text(sub(raw, "additionalAttributes"), "projectId")
    if not project_id:
        raise ParseError("a project result without additionalAttributes.projectId")
    return FoundProject(
        project_id=project_id,
        number=last_segment(text(raw, "project")),
        state=text(raw, "state"),
        labels=label_map(raw.get("labels")),
    )


def found_workload(raw: Mapping[str, Any]) -> Workload:
    """One ResourceSearchResult of a Compute VM, a TPU VM or a Workbench instance.

    Only what the index holds: no accelerators, no owner (GKE, Workbench), no disks. Asset
    Inventory is eventually consistent (minutes), so this is what the resource was, not is.

    Raises:
        ParseError: another asset type, or a name that is not a zonal resource of a project.
    """
    asset_type = text(raw, "assetType")
    kind = WORKLOAD_ASSET_TYPES.get(asset_type)
    if kind is None:
        raise ParseError(f"assetType {asset_type!r} is not one of {sorted(WORKLOAD_ASSET_TYPES)}")
    name = text(raw, "name")
    m = _WORKLOAD_NAME.fullmatch(name)
    if m is None:
        raise ParseError(f"name {name!r} is not a zonal {asset_type} of a project")
    project, zone = (m[1], m[2]) if m[1] else (m[3], m[4])
    return Workload(
        kind=kind,
        project=project,
        zone=zone,
        name=m[5],
        state=text(raw, "state"),
        labels=label_map(raw.get("labels")),
    )
