"""The finding of a plan that still holds `mlgov init`'s example values (`CHANGE ME`).

`mlgov init` fills what it is not given with examples (settings/examples.py) so that a new stack
plans offline at once. A stack that keeps one would deploy against no real billing account or
project, or label every resource with an owner nobody is: in prod that blocks (mandatory), in
other environments it is advisory. The values are found where they end up, in the resources'
inputs (and the document's project), so `plan`, and `check` of a saved plan or a Pulumi file, say
the same. Like the ESC finding (plan.py) it is not a rule of the pack: no policy config lowers it.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, cast

from governance.settings.examples import CHANGE_ME, placeholder_values

PLACEHOLDER_FINDING = "mlgov-stack-placeholder-values"
# What each example value stands for, as the reader of the stack file knows it.
_WHAT = {
    "project": "project gcp:project",
    "project_number": "project number mlgov:settings.project_number",
    "billing_account": "billing account mlgov:settings.billing_account",
    "team": "label team (mlgov:settings.labels)",
    "cost_center": "label cost-center (mlgov:settings.labels)",
}


def _pattern(value: str) -> re.Pattern[str]:
    """`value` as a whole token: `projects/my-ml-dev/...` holds it, `my-ml-dev2` does not."""
    return re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(value)}(?![A-Za-z0-9_-])")


_PATTERNS = [
    (key, value, _pattern(value))
    for key, values in placeholder_values().items()
    for value in values
]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in cast(Mapping[str, Any], value).values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in cast(list[Any], value):
            yield from _strings(item)


def placeholders_in(doc: Mapping[str, Any]) -> dict[tuple[str, str], list[str]]:
    """(option, example value) -> the names of the resources whose inputs hold it."""
    found: dict[tuple[str, str], list[str]] = {}
    project = doc.get("project")
    if isinstance(project, str):
        for key, value, pattern in _PATTERNS:
            if pattern.search(project):
                found.setdefault((key, value), [])
    for resource in cast(list[Any], doc.get("resources") or []):
        if not isinstance(resource, Mapping):
            continue
        entry = cast(Mapping[str, Any], resource)
        texts = list(_strings(entry.get("inputs")))
        for key, value, pattern in _PATTERNS:
            if any(pattern.search(text) for text in texts):
                found.setdefault((key, value), []).append(str(entry.get("name") or "?"))
    return found


def placeholder_findings(doc: Mapping[str, Any], prod: bool) -> list[dict[str, Any]]:
    """One finding naming every example value the plan still holds ([] when none)."""
    found = placeholders_in(doc)
    if not found:
        return []
    parts: list[str] = []
    for key, value, _ in _PATTERNS:  # in the stack file's order
        if (names := found.get((key, value))) is None:
            continue
        where = f" (in {len(names)} resource(s), e.g. {names[0]})" if names else ""
        parts.append(f"{_WHAT[key]} {value!r}{where}")
    return [
        {
            "policy": PLACEHOLDER_FINDING,
            "resource": str(doc.get("stack") or "") or "stack",
            "type": "pulumi:pulumi:Stack",
            "enforcement": "mandatory" if prod else "advisory",
            "message": (
                f"example values `mlgov init` wrote (marked {CHANGE_ME}) are still in the stack: "
                + "; ".join(parts)
            ),
            "why": "they name no real project, billing account or owner: Google refuses them at "
            "deploy time, and labels with them attribute cost to nobody",
            "remediation": "put your own values in the stack file (or give them to `mlgov init`: "
            "--project, --project-number, --billing-account, --team, --cost-center)",
        }
    ]
