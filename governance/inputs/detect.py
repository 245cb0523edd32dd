"""Which format a parsed input file is, from its content; a clear refusal when it is none.

`read_format(doc, source)` returns None for mlgov's own plan document
(docs/architecture.md#plan-document: `stack` and `resources`; document.py checks its shape as
before) and a `PlanInput` for Pulumi's formats:

- `pulumi preview --json`: the digest, an object with `steps` (FORMAT §1.2), preview.py;
- `pulumi stack export`: `{"version", "deployment"}`, or the DIY backend's checkpoint file
  `{"version", "checkpoint"}` (FORMAT §2.1), stack_export.py.

Shapes that hold no inputs to check are refused (exit 2) with what to run instead: the JSON-lines
event stream of `PULUMI_ENABLE_STREAMING_JSON_PREVIEW` or `up --json` (FORMAT §1.9), the
`--output json` summary (FORMAT §1.1: no inputs), an empty `{}` and a digest with nothing but
diagnostics (what a failed preview prints, FORMAT §1.1 and §5). `explain_not_json` names the
stream when the text is not one JSON document at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from governance.errors import CliError
from governance.inputs.plan_input import PlanInput

PREVIEW = "`pulumi preview --json > preview.json`"
STREAM = (
    "a JSON-lines stream of Pulumi engine events (`pulumi up --json`, or `pulumi preview "
    "--json` with PULUMI_ENABLE_STREAMING_JSON_PREVIEW set), not one preview document: run "
    f"{PREVIEW} without PULUMI_ENABLE_STREAMING_JSON_PREVIEW"
)
# Keys only the preview digest has at its top level, and all it may have (FORMAT §1.2).
DIGEST_KEYS = frozenset({"steps", "changeSummary", "diagnostics", "maybeCorrupt"})
ALL_DIGEST_KEYS = DIGEST_KEYS | {"config", "duration"}


def is_event(value: Any) -> bool:
    """Whether a JSON value is one `apitype.EngineEvent` (FORMAT §1.9)."""
    if not isinstance(value, dict):
        return False
    event = cast(Mapping[str, Any], value)
    return ("sequence" in event or "timestamp" in event) and any(
        key.endswith("Event") for key in event
    )


def explain_not_json(text: str, source: str, err: ValueError) -> str:
    """The error for text that is not one JSON document (naming the event stream when it is)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        if is_event(json.loads(first)):
            return f"{source}: {STREAM}"
    except (ValueError, RecursionError):  # RecursionError: a line nested deeper than Python goes
        pass
    return f"{source}: not valid JSON ({err})"


def _is_summary(doc: Mapping[str, Any]) -> bool:
    """The `--output json` summary: {result, duration, summary, resources[{urn, op, ...}]}."""
    if "result" in doc and "summary" in doc:
        return True
    resources = doc.get("resources")
    if not isinstance(resources, list) or not resources:
        return False
    first = cast(list[Any], resources)[0]
    return isinstance(first, dict) and "op" in first and "urn" in first and "inputs" not in first


def read_format(doc: Any, source: str) -> PlanInput | None:
    """A Pulumi file as plan documents; None for mlgov's own plan document (or a non-object)."""
    if not isinstance(doc, dict):
        return None  # document.py says what a plan document must be
    obj = cast(dict[str, Any], doc)
    if _is_summary(obj):
        raise CliError(
            f"{source}: a `pulumi preview --output json` summary: it lists resources without "
            f"their inputs, so nothing can be checked or priced: run {PREVIEW} instead"
        )
    if "resources" in obj or "stack" in obj:
        return None
    if DIGEST_KEYS & obj.keys() or (obj and obj.keys() <= ALL_DIGEST_KEYS):
        from governance.inputs.preview import read_preview

        return read_preview(obj, source)
    if "deployment" in obj or "checkpoint" in obj:
        from governance.inputs.stack_export import read_stack_export

        return read_stack_export(obj, source)
    if is_event(obj):
        raise CliError(f"{source}: {STREAM}")
    if not obj:
        raise CliError(
            f"{source}: an empty JSON object `{{}}`: `pulumi preview --json` prints this when it "
            "fails before planning (a config or stack error; its stderr says which): fix that "
            f"and run {PREVIEW} again"
        )
    keys = ", ".join(sorted(obj)[:6]) + (", ..." if len(obj) > 6 else "")
    raise CliError(
        f"{source}: not a plan mlgov reads (top-level keys: {keys}): give an mlgov plan "
        "document (`stack`, `resources`), a `pulumi preview --json` digest (`steps`) or a "
        "`pulumi stack export` (`version`, `deployment`)"
    )
