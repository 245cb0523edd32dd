"""Check that translated inputs use pulumi-gcp's own input names, read from its source.

For a type token `gcp:<module>/<x>:<Name>`, pulumi-gcp defines `class <Name>Args` in
`pulumi_gcp/<module>/`; each input is a getter whose engine name is `@pulumi.getter(name=...)`
(or the function's own name) and whose annotation names the nested `...Args` class, if any.
The source is scanned as text, not imported (importing all the submodules the cases use
takes seconds), so the check stays fast and always matches the installed pulumi-gcp.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pulumi_gcp

ROOT = Path(pulumi_gcp.__file__).parent
_NESTED = re.compile(r"'(\w+Args)'")


_CLASS = re.compile(r"^class (\w+)\b", re.MULTILINE)
_GETTER = re.compile(r"@pulumi\.getter(?:\(name=\"(\w+)\"\))?\n\s+def (\w+)\(self\) -> ([^\n]+):")


@cache
def _classes(module: str) -> dict[str, dict[str, str | None]]:
    """Every `...Args` class of a pulumi-gcp module: engine input name -> nested Args class."""
    out: dict[str, dict[str, str | None]] = {}
    for path in sorted((ROOT / module).glob("*.py")):
        text = path.read_text()
        starts = [(m.start(), m.group(1)) for m in _CLASS.finditer(text)]
        for i, (pos, name) in enumerate(starts):
            body = text[pos : starts[i + 1][0] if i + 1 < len(starts) else len(text)]
            if name.endswith("Args"):
                out[name] = _getters(body)
    return out


def _getters(body: str) -> dict[str, str | None]:
    fields: dict[str, str | None] = {}
    for engine, python, annotation in _GETTER.findall(body):
        nested = _NESTED.search(annotation)
        map_typed = "Mapping[" in annotation and nested is None
        fields[engine or python] = nested.group(1) if nested else ("*" if map_typed else None)
    return fields


def problems(type_token: str, inputs: Mapping[str, Any], where: str) -> list[str]:
    """Input keys pulumi-gcp does not have for this type ([] when every key exists)."""
    module = type_token.split(":")[1].split("/")[0]
    name = type_token.rsplit(":", 1)[1]
    classes = _classes(module)
    if f"{name}Args" not in classes:
        return [f"{where}: pulumi-gcp has no resource {type_token}"]
    return _check(classes, f"{name}Args", inputs, where)


def _check(
    classes: Mapping[str, Mapping[str, str | None]], cls: str, value: Any, where: str
) -> list[str]:
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _check(classes, cls, item, f"{where}[{i}]")]  # fmt: skip
    if not isinstance(value, Mapping):
        return []
    fields = classes.get(cls, {})
    found: list[str] = []
    for key, sub in value.items():
        if key not in fields:
            found.append(f"{where}.{key}: not an input of {cls}")
            continue
        nested = fields[key]
        if nested not in (None, "*"):
            found += _check(classes, nested, sub, f"{where}.{key}")
    return found
