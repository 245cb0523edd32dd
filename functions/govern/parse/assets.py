"""Cloud Asset Inventory `searchAllResources` results (ResourceSearchResult) to FoundProject.

A project result (cloudasset v1 discovery document; FACTS.md, 2026-11-28): `name`
`//cloudresourcemanager.googleapis.com/projects/NUMBER`, `assetType`
`cloudresourcemanager.googleapis.com/Project`, `project` `projects/NUMBER`, `state`, `labels`,
`folders`, `organization`, `parentFullResourceName`, and the project id in
`additionalAttributes.projectId`. Selecting which projects a scope governs is resolve.py's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from govern.models import FoundProject
from govern.parse.reader import ParseError, label_map, last_segment, sub, text

PROJECT_ASSET_TYPE: Final = "cloudresourcemanager.googleapis.com/Project"


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
