"""Regions, zones and BigQuery locations: only ones Google offers (governance/settings/locations.py).

Regions come from the price catalog, zones from Google's regions-and-zones table (zones.json,
with its source and date); a typo gets the real zones of its region as a suggestion.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from governance.costs.catalog import default_catalog
from governance.settings import SettingsError, settings_from_config
from governance.settings.base import REGION_PATTERN
from governance.settings.locations import (
    offered_regions,
    region_problem,
    zone_problem,
    zone_region,
    zone_table,
)
from mlgov_policies.compat.tpus import TPU_GENERATIONS
from tests.conftest import STACKS, stack_config

P = "mlgov:settings"
Mutation = Callable[[dict[str, Any]], None]


def _problems(mutate: Mutation, stack: str = "dev") -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config)
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


# --------------------------------------------------------------------------- the cases
def test_a_made_up_region_is_one_line_at_gcp_region() -> None:
    problems = _problems(lambda c: c.update({"gcp:region": "mars-central1"}))
    # One line: the zones "not in region" and "GPU not offered in mars-central1" would only
    # repeat it.
    assert problems == [
        "gcp:region: 'mars-central1' is not a region Google offers (regions of the price catalog "
        f"of {default_catalog().generated}); did you mean us-central1, me-central1, us-central2?"
    ]


def test_a_made_up_zone_suggests_the_real_zones_of_its_region() -> None:
    def mutate(c: dict[str, Any]) -> None:
        c[P]["zones"] = ["us-central1-z"]
        for nb in c[P]["notebooks"].values():
            nb["zone"] = "us-central1-z"

    problems = _problems(mutate)
    expected = (
        "'us-central1-z' is not a zone Google offers; did you mean one of us-central1's zones "
        "us-central1-a, us-central1-b, us-central1-c, us-central1-f? (source: "
        "https://cloud.google.com/compute/docs/regions-zones, 2026-11-25)"
    )
    assert problems == [
        f"{P}.zones.0: {expected}",
        f"{P}.notebooks.alice.zone: {expected}",
        f"{P}.notebooks.bob.zone: {expected}",
    ]


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        (
            ("training_pools", "t4-spot", "zones"),
            ["us-central1-q"],
            "training_pools.t4-spot.zones.0",
        ),
        (("usage", "default_region"), "us-centrall1", "usage.default_region"),
        (
            ("limits",),
            {"allowed_bigquery_locations": ["MOON"]},
            "limits.allowed_bigquery_locations.0",
        ),
        (("datasets", "features", "location"), "us-moon1", "datasets.features.location"),
    ],
)
def test_every_location_key_is_judged(path: tuple[str, ...], value: Any, key: str) -> None:
    def mutate(c: dict[str, Any]) -> None:
        node = c[P]
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    problems = _problems(mutate)
    assert any(
        p.startswith(f"{P}.{key}: ") and ("Google offers" in p or "BigQuery location" in p)
        for p in problems
    ), problems


def test_a_zone_in_an_unknown_region_suggests_close_zones() -> None:
    found = zone_problem("us-centrl1-a")
    assert found is not None
    assert found.startswith("'us-centrl1-a' is not a zone Google offers: no region 'us-centrl1'")
    assert "did you mean us-central1-a" in found


def test_bigquery_multi_regions_and_regions_are_locations() -> None:
    config = copy.deepcopy(stack_config("dev"))
    config[P]["limits"] = {"allowed_bigquery_locations": ["US", "EU", "europe-west4"]}
    config[P]["datasets"]["features"]["location"] = "US"
    assert settings_from_config(config).datasets["features"].location == "US"


# --------------------------------------------------------------------------- the data
def test_the_zone_table_says_where_it_comes_from_and_what_it_lacks() -> None:
    table = zone_table()
    assert table["source"] == "https://cloud.google.com/compute/docs/regions-zones"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table["retrieved"])
    assert "asia-southeast3" in table["incomplete"] and "us-central2" in table["incomplete"]
    for region, zones in table["regions"].items():
        assert re.fullmatch(REGION_PATTERN, region)
        assert zones and all(zone_region(z) == region for z in zones), region


def test_every_zone_region_is_priced_and_the_unlisted_priced_regions_are_named() -> None:
    priced = {r for r in default_catalog().regions if re.fullmatch(REGION_PATTERN, r)}
    listed = set(zone_table()["regions"])
    assert listed <= priced
    # The catalog's regions the zone table lacks are exactly the ones zones.json admits to.
    for region in sorted(priced - listed):
        assert region in zone_table()["incomplete"], region
        assert zone_problem(f"{region}-x") is None  # not judged there


def test_shipped_stacks_and_tpu_zones_are_offered() -> None:
    for stack in STACKS:
        settings_from_config(stack_config(stack))
    for generation in TPU_GENERATIONS:
        for zone in generation.zones:
            assert zone_problem(zone) is None, (generation.name, zone)


def test_multi_regions_of_the_catalog_are_not_regions() -> None:
    assert "us" not in offered_regions() and "nam4" not in offered_regions()
    assert region_problem("global") is not None
    assert region_problem("europe-west4") is None


def test_ai_zones_from_the_tpu_page_are_zones() -> None:
    from governance.costs.regions import region_of

    config = copy.deepcopy(stack_config("dev"))
    config[P]["zones"] = ["us-central1-a", "us-central1-b", "us-central1-ai1"]
    assert "us-central1-ai1" in settings_from_config(config).zones
    assert region_of("us-central1-ai1") == "us-central1"
    assert zone_problem("us-central1-ai9") is not None
