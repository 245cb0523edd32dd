"""The pulumi-gcp provider's own stack keys that reach every resource: held to the settings' rules.

`gcp:defaultLabels` puts its labels on every labelable resource the provider creates, outside
anything mlgov renders, the plan shows or the PR check compares: `gcp:defaultLabels:
{mlgov-exempt: "true"}` would exempt the whole stack from the budget cap and the reapers as
surely as `labels: {mlgov-exempt: "true"}`, which the settings refuse. So its keys follow the
same rules (no `mlgov-*` key, GCP's label syntax). `gcp:zone`, where a program relies on it, must
be a zone Google offers. Pure; callers are parse.py (the platform's stacks) and context.py
(programs of one's own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, cast

from governance.labels import label_problem, reserved_label_problem
from governance.settings.base import ZONE_PATTERN, shown
from governance.settings.errors import key_part
from governance.untrusted import UntrustedInputError, load_json

DEFAULT_LABELS = "gcp:defaultLabels"
ZONE = "gcp:zone"


def _mapping(value: Any) -> Mapping[object, Any] | str:
    """The labels map, or why it is not one (the Pulumi CLI passes objects as JSON strings)."""
    if isinstance(value, str):
        try:
            value = load_json(value)
        except UntrustedInputError as err:
            return str(err)
    if not isinstance(value, Mapping):
        return f"must be a mapping of labels, got {type(value).__name__}"
    return cast(Mapping[object, Any], value)


def provider_problems(config: Mapping[str, Any]) -> Iterator[str]:
    """One line per problem of the provider keys a stack file sets, naming the key."""
    from governance.settings.locations import zone_problem

    if (raw := config.get(DEFAULT_LABELS)) is not None:
        labels = _mapping(raw)
        if isinstance(labels, str):
            yield f"{DEFAULT_LABELS}: {labels}"
        else:
            for key, value in labels.items():
                where = f"{DEFAULT_LABELS}.{key_part(str(key))}"
                if not isinstance(key, str) or not isinstance(value, str):
                    yield f"{where}: label keys and values are strings"
                elif problem := reserved_label_problem(key) or label_problem(key, value):
                    yield f"{where}: {problem}"
    if (zone := config.get(ZONE)) is not None:
        if not isinstance(zone, str) or not re.fullmatch(ZONE_PATTERN, zone):
            yield f"{ZONE}: {shown(zone)} is not a zone name such as us-central1-a"
        elif problem := zone_problem(zone):
            yield f"{ZONE}: {problem}"
