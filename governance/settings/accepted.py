"""Value shapes Google accepts for the names and flags a stack file carries, as settings types.

Each type refuses, with one sentence, a value the Google API would refuse (or, for flags, one
Pulumi would not read as a boolean), so `pulumi up` never gets that far:

- `Flag`: a boolean as Pulumi reads one: YAML/JSON `true`/`false`, or the strings `true`, `True`,
  `false`, `False` (what `pulumi.Config.get_bool` accepts; config set from the CLI is a string).
  Pydantic's lax mode would also take "yes", "on", "1", "n" or 0: a reviewer reading `exempt:
  "n"` should not have to know it means false, so those are refused.
- `MachineType`: Compute Engine's machine type names are lowercase `family-shape[-size...]`
  (`e2-standard-4`, `n2-custom-4-16384`, `ct5lp-hightpu-4t`); whether the region sells one is
  offered.py's concern, which GPU it takes acceptance.py's.
- `GpuType`: a Compute Engine / GKE accelerator type from mlgov_policies.compat.gpus (each row
  with its Google source); `TpuType` a TPU VM accelerator type of a generation tpus.py knows.
- `CronSchedule`: Cloud Scheduler's unix-cron: five fields, numbers (names for month and day of
  week), `*`, ranges, lists and steps; no Quartz extensions (`L`, `W`, `#`, `?`), and a schedule
  that never fires (`0 0 30 2 *`) is refused: a reaper that never runs governs nothing.
- `ImageRef`: a Compute Engine image or image family, as a partial or full resource URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from cronsim import CronSim, CronSimError
from pydantic import AfterValidator, BeforeValidator

from governance.settings.base import shown
from mlgov_policies import value_shapes as shapes
from mlgov_policies.compat import gpus, tpus
from mlgov_policies.compat.sources import short

# pulumi.Config.get_bool's accepted spellings (pulumi/config.py `_get_bool`).
_TRUE = ("true", "True")
_FALSE = ("false", "False")


def _flag(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in _TRUE:
        return True
    if isinstance(value, str) and value in _FALSE:
        return False
    raise ValueError(
        f"{shown(value)} is not a boolean: write true or false (Pulumi reads only those; "
        '"yes", "on", 1 and the like are refused so the stack file says what it means)'
    )


Flag = Annotated[bool, BeforeValidator(_flag)]
"""A boolean setting: true/false, or the strings Pulumi's own `get_bool` reads."""


PROJECT_ID_PATTERN = r"[a-z][a-z0-9-]{4,28}[a-z0-9]"
PROJECT_ID_MEANING = (
    "a project id: 6-30 lowercase letters, digits or hyphens, starting with a letter "
    "(e.g. acme-ml-dev)"
)
# Resource Manager: a project id "cannot contain restricted strings, such as google, null,
# undefined, and ssl". Only `google` is refused inside an id: the others are not documented as
# substrings (`annulled-ml` may well exist), and a 6-30 character id cannot equal `null`/`ssl`.
_RESTRICTED_IN_PROJECT_ID = ("google",)
_RESTRICTED_PROJECT_IDS = ("undefined",)
_PROJECT_ID = re.compile(PROJECT_ID_PATTERN)


def _project_id(value: str) -> str:
    if not _PROJECT_ID.fullmatch(value):
        raise ValueError(f"{shown(value)} is not {PROJECT_ID_MEANING}")
    restricted = [word for word in _RESTRICTED_IN_PROJECT_ID if word in value]
    if restricted or value in _RESTRICTED_PROJECT_IDS:
        word = restricted[0] if restricted else value
        raise ValueError(
            f"{shown(value)} is not a project id Google allows: it may not contain {word!r} "
            "(Resource Manager's restricted strings)"
        )
    return value


ProjectId = Annotated[str, AfterValidator(_project_id)]


def _shape(check: Callable[[str], str | None]) -> AfterValidator:
    """A validator from a value_shapes function (shared with the policy config)."""

    def validate(value: str) -> str:
        if (problem := check(value)) is not None:
            raise ValueError(problem)
        return value

    return AfterValidator(validate)


MachineType = Annotated[str, _shape(shapes.machine_type_problem)]
WorkbenchGpu = Annotated[str, _shape(shapes.workbench_gpu_problem)]
SqlTier = Annotated[str, _shape(shapes.sql_tier_problem)]
VertexAccelerator = Annotated[str, _shape(shapes.accelerator_enum_problem)]


def _gpu_type(value: str) -> str:
    known = [g.compute for g in gpus.GPUS]
    if value not in known:
        model = gpus.gpu(value)
        hint = f"; did you mean {model.compute}?" if model is not None else ""
        raise ValueError(
            f"{shown(value)} is not a Compute Engine GPU type{hint} (known: {', '.join(known)}; "
            f"source: {short(gpus.GPUS[0].source)})"
        )
    return value


GpuType = Annotated[str, AfterValidator(_gpu_type)]
"""A GPU as Compute Engine and GKE name it (`nvidia-l4`); Workbench's enums are the notebooks'."""


def _tpu_type(value: str) -> str:
    if value != value.strip().lower() or tpus.generation(value) is None:
        known = ", ".join(sorted({g.name for g in tpus.TPU_GENERATIONS}))
        raise ValueError(
            f"{shown(value)} is not a TPU accelerator type of a generation Google offers "
            f"(e.g. v5litepod-8; generations: {known})"
        )
    return value


TpuType = Annotated[str, AfterValidator(_tpu_type)]

_RUNTIME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")


def _runtime(value: str) -> str:
    if not _RUNTIME.fullmatch(value):
        raise ValueError(
            f"{shown(value)} is not a TPU software version name such as v2-alpha-tpuv5-lite"
        )
    return value


TpuRuntime = Annotated[str, AfterValidator(_runtime)]

_PLAIN_FIELD = re.compile(r"[0-9*/,-]+")
# Month and day of week may use three-letter names (JAN, MON); nothing else is a letter.
_NAMED_FIELD = re.compile(r"([0-9*/,-]|[A-Za-z]{3})+")
_NEVER = datetime(2025, 1, 1, tzinfo=UTC)


def _cron(value: str) -> str:
    fields = value.split()
    if len(fields) != 5 or value != value.strip() or "  " in value:
        raise ValueError(
            f"{shown(value)} is not a unix-cron schedule: five fields separated by single "
            "spaces (minute hour day-of-month month day-of-week), e.g. '0 * * * *'"
        )
    for field, pattern in zip(fields, (_PLAIN_FIELD,) * 3 + (_NAMED_FIELD,) * 2, strict=True):
        if not pattern.fullmatch(field):
            raise ValueError(
                f"{shown(value)}: field {field!r} is not unix-cron (numbers, *, ranges, lists, "
                "steps; names only for month and day of week; Cloud Scheduler has no L, W, # "
                "or ?)"
            )
    try:
        sim = CronSim(value, _NEVER)
    except CronSimError as err:
        raise ValueError(f"{shown(value)} is not a valid unix-cron schedule ({err})") from None
    try:
        next(sim)
    except StopIteration:
        raise ValueError(f"{shown(value)} never fires (no such date); fix the day") from None
    return value


CronSchedule = Annotated[str, AfterValidator(_cron)]

_IMAGE = re.compile(
    r"(https://(www|compute)\.googleapis\.com/compute/v1/)?"
    rf"projects/{PROJECT_ID_PATTERN}/global/images/(family/)?[a-z]([a-z0-9-]{{0,61}}[a-z0-9])?"
)


def _image(value: str) -> str:
    if not _IMAGE.fullmatch(value):
        raise ValueError(
            f"{shown(value)} is not a Compute Engine image: projects/PROJECT/global/images/NAME "
            "or projects/PROJECT/global/images/family/FAMILY"
        )
    return value


ImageRef = Annotated[str, AfterValidator(_image)]
