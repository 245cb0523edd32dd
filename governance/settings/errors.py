"""`SettingsError`, `SettingsWarning`, and how findings become lines naming the key the user wrote.

Every problem is one line `<key path>: <message>`, where the key path is what appears in the stack
file: `mlgov:settings.notebooks.alice.idle_minutes`, or `gcp:project` for the values Pulumi's own
keys provide. Unknown keys get a "did you mean" hint from the model at that path. A warning has
the same two parts, for a valid setting that does nothing (ineffective.py).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, get_args, get_origin

from pulumi.errors import RunError
from pydantic import BaseModel

from governance.untrusted import quoted_key

ROOT = "mlgov:settings"
MAX_SHOWN = 100  # problem lines in the message `pulumi up` prints (a file may hold a million)
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_:-]{1,100}")


class SettingsError(RunError):
    """Invalid stack configuration; the message has one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = [f"  {p}" for p in problems[:MAX_SHOWN]]
        if len(problems) > MAX_SHOWN:
            shown.append(f"  ... and {len(problems) - MAX_SHOWN:,} more problem(s) not shown")
        super().__init__("invalid stack config:\n" + "\n".join(shown))


class SettingsWarning(NamedTuple):
    """A valid setting that does nothing: the key as the user wrote it, and why."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """The plan document's `warnings` entry."""
        return {"key": self.key, "message": self.message}


def key_part(part: int | str) -> str:
    """One key of a path; a key that is not plain is quoted, so it cannot forge a line."""
    return quoted_key(part, _PLAIN_KEY)


def key_path(loc: tuple[int | str, ...], provided: Mapping[str, str]) -> str:
    """The key as the user wrote it: `gcp:project` for provider values, else under ROOT.

    A problem with a name the user chose (a notebook's) is reported at that name: pydantic's
    trailing `[key]` marker is dropped.
    """
    if loc and loc[-1] == "[key]":
        loc = loc[:-1]
    if loc and str(loc[0]) in provided:
        return ".".join([provided[str(loc[0])], *(key_part(p) for p in loc[1:])])
    return ".".join([ROOT, *(key_part(p) for p in loc)])


def message(model: type[BaseModel], err: Mapping[str, Any]) -> str:
    """Pydantic's message, with actionable wording for unknown and missing keys."""
    if err["type"] == "extra_forbidden":
        known = known_keys(model, tuple(err["loc"][:-1]))
        close = difflib.get_close_matches(str(err["loc"][-1]), known, n=1) if known else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown key{hint}"
    if err["type"] == "missing":
        return "required key is missing"
    if err["type"] == "value_error":  # our validators' own sentences, without pydantic's prefix
        return str(err["msg"]).removeprefix("Value error, ")
    return str(err["msg"])


def known_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Known keys of the model at `loc` below `model`, for 'did you mean' hints ([] if unknown)."""
    user_key_next = False  # inside `dict[str, Model]`, the next part is a name the user chose
    for part in loc:
        if isinstance(part, int) or user_key_next:
            user_key_next = False
            continue
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        args = get_args(field.annotation) or (field.annotation,)
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if not models:
            return []
        model = models[0]
        user_key_next = get_origin(field.annotation) is dict
    return list(model.model_fields)
