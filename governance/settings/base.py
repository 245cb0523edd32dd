"""What every settings section shares: the strict model base and the common value shapes.

Sections live one per module beside this one (network.py, notebooks.py, ...); the root model that
holds them is root.py, and turning raw config into a `Settings` (with error lines naming the key
the user wrote) is parse.py. Which regions and zones Google offers is locations.py.

Every shape here matches the WHOLE value (`matching` uses `re.fullmatch`): pydantic's own
`pattern` matches anywhere in a string, so `Other-Project/locations/...#acme-ml-prod` would pass
as a project id. tests/config/test_settings_values.py checks that no settings field uses
`pattern` directly.
"""

from __future__ import annotations

import difflib
import functools
import re
import zoneinfo
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

Environment = Literal["dev", "staging", "prod"]

REGION_PATTERN = r"[a-z]+-[a-z]+[0-9]+"
ZONE_PATTERN = r"[a-z]+-[a-z]+[0-9]+-[a-z][a-z0-9]{0,5}"  # -a, or an AI zone's -ai1b
HHMM_PATTERN = r"([01][0-9]|2[0-3]):[0-5][0-9]"
RESOURCE_KEY_PATTERN = r"[a-z]([a-z0-9-]{0,38}[a-z0-9])?"
BIGQUERY_ID_PATTERN = r"[A-Za-z_][A-Za-z0-9_]{0,1023}"

_SHOWN = 60  # longest value quoted back in an error line (a hostile value may be megabytes)


def shown(value: object) -> str:
    """`value` quoted for an error line: repr (so newlines cannot start a new line), cut short."""
    text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 4]}...{text[-1]}"


def matching(regex: str, expected: str) -> AfterValidator:
    """A validator: the whole string matches `regex`, else "<value> is not <expected>"."""
    compiled = re.compile(regex)

    def check(value: str) -> str:
        if compiled.fullmatch(value) is None:
            raise ValueError(f"{shown(value)} is not {expected}")
        return value

    return AfterValidator(check)


def _iso_date(value: Any) -> Any:
    """A date as YYYY-MM-DD that exists; dates the caller built in Python pass as they are."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise ValueError(f"{shown(value)} is not a date written YYYY-MM-DD (e.g. 2026-12-31)")
    try:
        return date.fromisoformat(value)
    except ValueError as err:
        raise ValueError(f"{shown(value)} is not a date that exists ({err})") from None


@functools.cache
def time_zones() -> frozenset[str]:
    """IANA time zone names (the OS's tz database, else the pinned `tzdata` package)."""
    return frozenset(zoneinfo.available_timezones())


def _time_zone(value: str) -> str:
    known = time_zones()
    if value in known:
        return value
    close = difflib.get_close_matches(value, sorted(known), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(
        f"{shown(value)} is not an IANA time zone name (e.g. Europe/Berlin, Etc/UTC){hint}"
    )


Positive = Annotated[int, Field(gt=0)]
Fraction = Annotated[float, Field(gt=0, le=5)]
Zone = Annotated[str, matching(ZONE_PATTERN, "a zone name such as us-central1-a")]
Region = Annotated[str, matching(REGION_PATTERN, "a region name such as us-central1")]
HourMinute = Annotated[str, matching(HHMM_PATTERN, "a time of day HH:MM (00:00 to 23:59)")]
IsoDate = Annotated[date, BeforeValidator(_iso_date)]
TimeZone = Annotated[str, AfterValidator(_time_zone)]
ResourceKey = Annotated[
    str,
    matching(
        RESOURCE_KEY_PATTERN,
        "a name of 1-40 lowercase letters, digits or hyphens, starting with a letter",
    ),
]
"""The name of a notebook, pool or VM: it becomes part of Pulumi and GCP resource names."""
BigQueryKey = Annotated[
    str,
    matching(BIGQUERY_ID_PATTERN, "a BigQuery id: letters, digits and underscores"),
]
"""The name of a dataset or table: it becomes the BigQuery dataset or table id."""

Problem = tuple[str, str]
"""(key path relative to `mlgov:settings`, message): one semantic problem of a stack's settings."""


class Model(BaseModel):
    """A settings model: frozen, and a typo in a key is an error, not an ignored setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)
