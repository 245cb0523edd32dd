"""Read a JSON object from a file with errors that name the file (catalog.py and the inputs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast


def read_json_object(path: str | Path, error: type[Exception], what: str) -> dict[str, Any]:
    """The JSON object in `path`; `error(...)` naming `what` and the file on any failure."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise error(f"cannot read {what} {path}: {err.strerror}") from None
    except ValueError as err:
        raise error(f"{what} {path} is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise error(f"{what} {path} must be a JSON object")
    return cast(dict[str, Any], data)
