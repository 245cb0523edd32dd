"""Which region prices a resource: the region part of a zone, or the location as written.

Catalog prices are per region (a zone bills at its region's price); a resource whose inputs name
no location is priced in the assumptions' `default_region`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from governance.costs.inputs import text

_ZONE = re.compile(r"([a-z]+-[a-z]+\d+)-[a-z][a-z0-9]{0,5}")  # -a, or an AI zone's -ai1b


def is_zone(location: str) -> bool:
    """Whether `location` names a zone (us-central1-a), not a region (us-central1)."""
    return _ZONE.fullmatch(location) is not None


def region_of(location: str) -> str:
    """The region of a zone or region name (lower-cased: buckets say US-CENTRAL1)."""
    location = location.strip()
    if m := _ZONE.fullmatch(location):
        return m.group(1)
    return location.lower()


def region(inputs: Mapping[str, Any], default: str, *keys: str) -> str:
    """The region of the first of `keys` the inputs set, else `default`."""
    for key in keys:
        if value := inputs.get(key):
            return region_of(text(value, default, key))
    return default
