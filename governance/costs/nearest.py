"""Which priced location stands in for one the catalog has no price in: the fallback rule.

A resource in a location without a price for some key is priced from the *nearest* location
that has one, and the estimate says so (resource row, explanation line, `cost` notes). Nearest
is a fixed, documented order, so the same plan always falls back the same way:

1. locations on the same continent (the name's first part: `europe-` for `europe-west4`;
   multi- and dual-regions count as theirs: `eu`, `eur4` are `europe`, `us`, `nam4` are `us`),
   those sharing the longest name prefix with the requested one first (`asia-east2` ->
   `asia-east1` before `asia-northeast1`), ties alphabetical;
2. then the anchor regions in `ANCHORS` order (us-central1 first: Google's reference region,
   where every product is priced);
3. then every other priced location, alphabetical.

What counts as priced, and when a fallback is allowed at all (never for a machine, GPU or TPU a
source says is not offered in the region), is catalog.py's business.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

ANCHORS = ("us-central1", "us-east1", "europe-west1", "europe-west4", "asia-east1")
# continent of multi- and dual-region names (GCS and BigQuery locations), by their letters
_CONTINENT_ALIASES = {"eu": "europe", "eur": "europe", "nam": "us", "asia": "asia"}
_LETTERS = re.compile(r"[a-z]+")


def continent(location: str) -> str:
    """`europe` for europe-west4, eu or eur4; `us` for us-central1, us or nam4."""
    head = location.lower().split("-", 1)[0]
    letters = m.group(0) if (m := _LETTERS.match(head)) else head
    return _CONTINENT_ALIASES.get(letters, letters)


def _shared_prefix(a: str, b: str) -> int:
    """How many leading characters two location names share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def fallback_order(location: str, candidates: Iterable[str]) -> list[str]:
    """`candidates` (priced locations, not `location` itself) nearest first, per the rule."""
    wanted = location.lower()
    home = continent(wanted)

    def rank(candidate: str) -> tuple[int, int, str]:
        if continent(candidate) == home:
            shared = _shared_prefix(wanted, candidate)
            return (0, -shared, candidate)
        if candidate in ANCHORS:
            return (1, ANCHORS.index(candidate), candidate)
        return (2, 0, candidate)

    return sorted((c for c in candidates if c != wanted and c != "global"), key=rank)
