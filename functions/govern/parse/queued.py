"""A TPU v2 `QueuedResource` (REST JSON) as a model (tpu v2 discovery document).

`name` is `projects/P/locations/ZONE/queuedResources/N`; its state is `state.state`
(QueuedResourceState); the labels its TPU VMs are to carry are each `tpu.nodeSpec[].node.labels`
(mlgov's exemption label is read there: a queued resource has no labels of its own). Pure and
standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from govern.models import QueuedResource
from govern.parse.reader import ParseError, items, label_map, sub, text

_NAME = re.compile(
    r"projects/(?P<project>[^/]+)/locations/(?P<zone>[^/]+)/queuedResources/(?P<name>[^/]+)"
)


def queued_resource(project: str, raw: Mapping[str, Any]) -> QueuedResource:
    """A queued resource of `project` (the id it was listed under; its name may carry either).

    Raises:
        ParseError: its name is not a queued resource's.
    """
    match = _NAME.fullmatch(text(raw, "name"))
    if match is None:
        raise ParseError(f"TPU queued resource: unexpected name {raw.get('name')!r}")
    labels: dict[str, str] = {}
    for spec in items(sub(raw, "tpu"), "nodeSpec"):
        labels.update(label_map(sub(spec, "node").get("labels")))
    return QueuedResource(
        project=project,
        zone=match["zone"],
        name=match["name"],
        state=text(sub(raw, "state"), "state"),
        labels=labels,
    )
