"""build.build_document over a small export in the real shape: keys, units, sources, fits."""

from __future__ import annotations

import json

import pytest
from export_docs import documented_doc, export_doc

from governance.costs.catalog_build.build import (
    ATTRIBUTION,
    build_document,
    count_prices,
    render_document,
)
from governance.costs.catalog_build.documented import parse_documented
from governance.costs.catalog_build.export import parse_export


def build(export=None, documented=None):
    return build_document(
        parse_export(export or export_doc()), parse_documented(documented or documented_doc())
    )


def values(doc, key, usage="ondemand") -> dict:
    """The priced regions of a series; {} when the document has no such series."""
    for s in doc["series"]:
        if (s["key"], s["usage"]) == (key, usage):
            return {r: v for r, v in zip(doc["regions"], s["values"], strict=True) if v is not None}
    return {}


def series(doc, key, usage="ondemand"):
    return next(s for s in doc["series"] if (s["key"], s["usage"]) == (key, usage))


def test_family_rates_are_recovered_exactly_per_region_and_usage():
    doc = build()
    assert values(doc, "gce.n1.vcpu") == {"us-central1": 0.031611, "europe-west4": 0.034802}
    assert values(doc, "gce.n1.ram") == {"us-central1": 0.004237, "europe-west4": 0.004664}
    assert values(doc, "gce.n1.vcpu", "spot") == {"us-central1": 0.01115, "europe-west4": 0.0202}
    # commitments only where the export has them, as hourly rates (month / 730)
    assert values(doc, "gce.n1.vcpu", "1y") == {"us-central1": 0.019915}
    assert values(doc, "gce.n1.ram", "3y") == {"us-central1": pytest.approx(0.002669 * 0.7)}
    fit = doc["fits"]["n1"]
    assert fit["status"] == "exact"
    assert fit["max_rel_residual"] == {"ondemand": 0.0, "spot": 0.0, "1y": 0.0, "3y": 0.0}
    assert series(doc, "gce.n1.ram")["unit"] == "GiB-hour"
    assert "least-squares fit over the n1 family's 3 types" in series(doc, "gce.n1.vcpu")["how"]


def test_a_type_priced_off_the_family_rates_ships_no_rates():
    export = export_doc()
    export["compute"]["instance"]["n1-standard-8"]["cost"]["us-central1"]["hour"] += 0.01
    doc = build(export)
    fit = doc["fits"]["n1"]
    assert fit["status"] == "not exact"
    assert fit["max_rel_residual"]["ondemand"] > 1e-3
    assert values(doc, "gce.n1.vcpu") == {}
    assert values(doc, "gce.n1.vcpu", "spot") != {}  # spot prices still agree


def test_g2_gives_the_l4_rate_but_no_vcpu_ram_split():
    doc = build()
    assert values(doc, "gpu.nvidia-l4") == {"us-central1": 0.560040239}
    assert values(doc, "gce.g2.vcpu") == {}
    assert doc["fits"]["g2"]["status"] == "vCPU and RAM not separable"
    assert "GPU bundled with g2" in series(doc, "gpu.nvidia-l4")["how"]


def test_every_machine_type_has_per_type_hourly_prices():
    doc = build()
    assert values(doc, "gce.type.n1-standard-4")["us-central1"] == 0.189999
    assert values(doc, "gce.type.g2-standard-24", "spot")["us-central1"] == pytest.approx(
        (24 * 0.036688 + 2 * 0.560040239) / 2
    )
    # bundled local SSD stays in the type's price, and the how says so
    z3 = series(doc, "gce.type.z3-highmem-8-highlssd")
    assert "3000 GiB bundled local SSD" in z3["how"]
    assert doc["fits"]["z3"]["status"] == "vCPU and RAM not separable"


def test_shared_core_keys_and_no_fake_commitments():
    doc = build()
    assert values(doc, "gce.shared.f1-micro") == {"us-central1": 0.0076}
    assert values(doc, "gce.shared.f1-micro", "spot") == {"us-central1": 0.000684}
    # the export repeats the sustained-use month as "1y": f1-micro has no commitment price
    assert values(doc, "gce.type.f1-micro", "1y") == {}


def test_zero_prices_are_no_prices():
    export = export_doc()
    export["compute"]["instance"]["f1-micro"]["cost"]["europe-west4"] = {
        "month_1y": 0.0,
        "month_3y": 0.0,
    }
    doc = build(export)
    assert "europe-west4" not in values(doc, "gce.type.f1-micro")


def test_sustained_use_factors_and_tiers_follow_the_export():
    doc = build()
    assert values(doc, "sud.n1.full_month") == {"global": pytest.approx(0.7)}
    assert [values(doc, f"sud.n1.q{q}")["global"] for q in (1, 2, 3, 4)] == [1.0, 0.8, 0.6, 0.4]
    # f1-micro gets the N1 discount and is priced under family "shared" by machines.py
    assert values(doc, "sud.shared.q4") == {"global": 0.4}
    assert series(doc, "sud.n1.q2")["source"].endswith("sustained-use-discounts")
    # G2 is never discounted: a factor of 1 and no tier table
    assert values(doc, "sud.g2.full_month") == {"global": 1.0}
    assert values(doc, "sud.g2.q1") == {}


def test_disks_network_and_storage_per_location():
    doc = build()
    assert values(doc, "disk.pd-balanced") == {"us-central1": 0.1, "europe-west4": 0.11}
    assert series(doc, "disk.pd-balanced")["unit"] == "GiB-month"
    assert values(doc, "disk.local-ssd", "spot") == {"us-central1": 0.0428}
    assert values(doc, "disk.snapshot") == {"us-central1": 0.05, "us": 0.065}
    # the NAT uptime SKU is per VM; the export prices the 32-VM cap
    assert values(doc, "nat.gateway_vm") == {
        "us-central1": 0.0014, "europe-west4": 0.0014, "global": 0.0014
    }  # fmt: skip
    # a "global" NAT data price only where every region agrees
    assert values(doc, "nat.data") == {"us-central1": 0.045, "europe-west4": 0.05}
    assert values(doc, "network.ip.vm") == {"us-central1": 0.005}
    assert values(doc, "network.egress.internet.tier3") == {"us-central1": 0.08}
    # China and Australia: Premium Tier's destinations with rates of their own, per tier
    assert values(doc, "network.egress.internet.china.tier2") == {"us-central1": 0.22}
    assert values(doc, "network.egress.internet.australia.tier1") == {"us-central1": 0.19}
    assert "network.egress.internet.china.tier1" not in {s["key"] for s in doc["series"]}
    assert values(doc, "storage.standard") == {"us-central1": 0.02, "us": 0.026}
    assert values(doc, "storage.archive") == {"us-central1": 0.0012}
    assert values(doc, "storage.retrieval.archive") == {"us-central1": 0.05}


def test_documented_figures_keep_their_source_and_date():
    doc = build()
    tpu = series(doc, "tpu.v4.chip", "spot")
    assert (tpu["source"], tpu["date"], tpu["unit"]) == ("sky", "2026-11-23", "chip-hour")
    assert values(doc, "tpu.v4.chip") == {"us-central2": 3.22}
    assert "us-central2" in doc["regions"] and "global" in doc["regions"]
    assert doc["availability"]["tpu.v4"] == {"regions": ["us-central2"], "source": "sky"}
    assert doc["sources"]["sky"]["url"] == "https://example.test/sky"


def test_a_documented_figure_may_not_shadow_an_export_price():
    documented = documented_doc()
    documented["entries"].append(
        {"key": "disk.pd-balanced", "unit": "GiB-month", "date": "2026-11-21",
         "source": "sky", "values": {"ondemand": {"us-central1": 0.2}}}
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"two series for disk\.pd-balanced ondemand"):
        build(documented=documented)


def test_every_series_is_dated_sourced_and_has_a_unit():
    doc = build()
    assert doc["generated"] == "2026-07-30"
    assert doc["attribution"] == ATTRIBUTION and "Apache License" in ATTRIBUTION
    for s in doc["series"]:
        assert s["unit"] and s["how"] and s["date"], s["key"]
        assert s["source"] in doc["sources"] or s["source"].startswith("https://"), s["key"]
        assert len(s["values"]) == len(doc["regions"])


def test_rendered_document_has_one_series_per_line_and_round_trips():
    doc = build()
    text = render_document(doc)
    assert json.loads(text) == doc
    lines = text.splitlines()
    assert sum(1 for line in lines if line.startswith('  {"key":')) == len(doc["series"])
    assert count_prices(doc["series"]) == sum(
        v is not None for s in doc["series"] for v in s["values"]
    )


def test_a_figure_documented_for_one_region_scales_by_its_related_series():
    documented = documented_doc()
    documented["entries"].append({
        "key": "gce.n1.ram.extended", "unit": "GiB-hour", "source": "sky", "date": "2026-11-28",
        "note": "twice the RAM rate in us-central1",
        "values": {"ondemand": {"us-central1": 0.008474}},
        "scale": {"of": "gce.n1.ram", "anchor": "us-central1", "usages": ["ondemand", "spot"]},
    })  # fmt: skip
    doc = build(documented=documented)
    ram, ram_spot = values(doc, "gce.n1.ram"), values(doc, "gce.n1.ram", "spot")
    assert values(doc, "gce.n1.ram.extended") == {r: pytest.approx(2 * v) for r, v in ram.items()}
    assert values(doc, "gce.n1.ram.extended", "spot") == {
        r: pytest.approx(2 * v) for r, v in ram_spot.items()
    }
    assert set(values(doc, "gce.n1.ram.extended")) == {"us-central1", "europe-west4"}
    assert values(doc, "gce.n1.ram.extended", "1y") == {}  # only the usages it names
    how = series(doc, "gce.n1.ram.extended", "spot")["how"]
    assert how.startswith("twice the RAM rate") and "2 x gce.n1.ram (spot)" in how
    # a related series the export does not have is an error, not an empty price
    documented["entries"][-1]["scale"]["of"] = "gce.n9.ram"
    with pytest.raises(ValueError, match=r"no gce\.n9\.ram on-demand price in us-central1"):
        build(documented=documented)


def test_the_document_lists_what_each_machine_type_is_made_of():
    doc = build()
    types = doc["machine_types"]
    assert types["n1-standard-8"] == {"vcpus": 8.0, "memory_gib": 30.0}
    assert types["g2-standard-24"] == {"vcpus": 24.0, "memory_gib": 96.0,
                                       "gpus": {"nvidia-l4": 2.0}}  # fmt: skip
    assert types["z3-highmem-8-highlssd"]["local_ssd_gib"] == 3000
    text = render_document(doc)
    assert '\n  "n1-standard-8": {"vcpus":8.0,"memory_gib":30.0},\n' in text
    assert json.loads(text)["machine_types"] == types
