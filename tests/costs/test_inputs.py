"""Input reading for cost models: defaults for absent values, errors for unknown or wrong types."""

from __future__ import annotations

import pytest

from governance.costs.errors import CostError
from governance.costs.inputs import number, text
from governance.costs.regions import region, region_of

UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # pulumi_policy's unknown string sentinel


def test_text_defaults_and_errors_name_the_key():
    assert text("pd-ssd", "pd-standard", "diskType") == "pd-ssd"
    assert text(None, "pd-standard", "diskType") == "pd-standard"
    assert text("", "pd-standard", "diskType") == "pd-standard"
    with pytest.raises(CostError, match=r"nodeConfig\.machineType is not known until"):
        text(UNKNOWN_STRING, "e2-medium", "nodeConfig.machineType")
    with pytest.raises(CostError, match=r"diskType is \['x'\], not a string"):
        text(["x"], "pd-standard", "diskType")


def test_number_reads_numbers_and_numeric_strings_else_the_default():
    assert number("150") == 150.0
    assert number(2) == 2.0
    assert number(None, 7.0) == 7.0
    assert number("3eeb2bf0-c639-47a8-9e75-3b44932eb421", 7.0) == 7.0  # unknown number
    assert number("lots", 7.0) == 7.0
    assert number("nan", 7.0) == number("inf", 7.0) == number(float("-inf"), 7.0) == 7.0


def test_region_from_zone_region_or_default():
    assert region_of("us-central1-a") == "us-central1"
    assert region_of(" US-CENTRAL1 ") == "us-central1"
    assert region({"zone": "europe-west4-b"}, "us-central1", "zone") == "europe-west4"
    assert region({"region": "europe-west4"}, "us-central1", "zone", "region") == "europe-west4"
    assert region({}, "us-central1", "zone") == "us-central1"
