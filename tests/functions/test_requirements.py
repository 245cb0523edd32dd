"""functions/requirements.txt pins exactly what uv.lock resolved."""

from __future__ import annotations

import re
import tomllib

from tests.functions.conftest import REPO


def test_each_pin_matches_uv_lock():
    lock = tomllib.loads((REPO / "uv.lock").read_text())
    locked = {p["name"]: p["version"] for p in lock["package"]}
    pins = {}
    for line in (REPO / "functions" / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
            assert m, f"not an exact pin: {line!r}"
            pins[m[1].lower()] = m[2]
    assert pins, "no pins found"
    for name, version in pins.items():
        assert locked.get(name) == version, f"{name}=={version} but uv.lock has {locked.get(name)}"
    assert set(pins) == {
        "functions-framework",
        "cloudevents",
        "google-cloud-compute",
        "google-cloud-recommender",
        "google-cloud-billing",
        "google-cloud-notebooks",
        "google-cloud-tpu",
        "google-cloud-monitoring",
        "tzdata",
    }
