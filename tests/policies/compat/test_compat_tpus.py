"""The TPU table's integrity and the runtime, zone and topology problems."""

from __future__ import annotations

import re

import pytest

from mlgov_policies.compat import (
    gke_tpu_zone_problem,
    sources,
    tpu_runtime_problem,
    tpu_topology_problem,
    tpu_zone_problem,
)
from mlgov_policies.compat.tpus import TPU_GENERATIONS, generation, gke_machine

RUNTIMES_DOC = "TPU software versions https://cloud.google.com/tpu/docs/runtimes"


def test_every_generation_cites_its_sources() -> None:
    for gen in TPU_GENERATIONS:
        for source in (gen.source, gen.runtime_source, *([gen.zone_source] if gen.zones else [])):
            assert "https://cloud.google.com/" in source and sources.CHECKED in source


def test_documented_runtime_per_generation() -> None:
    # The PyTorch/JAX table of "TPU software versions": one runtime per generation, v4 and older
    # sharing tpu-ubuntu2204-base.
    runtimes = {gen.name: set(gen.runtimes) for gen in TPU_GENERATIONS}
    assert "v2-alpha-tpuv6e" in runtimes["v6e"]
    assert "v2-alpha-tpuv5" in runtimes["v5p"]
    assert "v2-alpha-tpuv5-lite" in runtimes["v5e"]
    for older in ("v2", "v3", "v4"):
        assert "tpu-ubuntu2204-base" in runtimes[older]


@pytest.mark.parametrize(
    ("text", "name"),
    [("v2-8", "v2"), ("v3-32", "v3"), ("v4-8", "v4"), ("v5litepod-8", "v5e"), ("v5p-8", "v5p"),
     ("v6e-4", "v6e"), ("V5LITE_POD", "v5e"), ("V5P", "v5p"), ("V6E", "v6e")],
)  # fmt: skip
def test_generation_of_accelerator(text: str, name: str) -> None:
    gen = generation(text)
    assert gen is not None and gen.name == name


def test_unknown_accelerators_have_no_generation() -> None:
    assert generation("v9x-8") is None
    assert generation("tpu7x-8") is None


def test_every_documented_runtime_fits_its_generation() -> None:
    for gen in TPU_GENERATIONS:
        for runtime in gen.runtimes:
            assert tpu_runtime_problem(f"{gen.accelerator_prefix}-8", runtime) is None


def test_generation_specific_runtimes_refuse_other_generations() -> None:
    refused = 0
    for gen in TPU_GENERATIONS:
        for other in TPU_GENERATIONS:
            for runtime in other.runtimes:
                if runtime in gen.runtimes:
                    continue
                assert tpu_runtime_problem(f"{gen.accelerator_prefix}-8", runtime), (gen, runtime)
                refused += 1
    assert refused > 20


def test_runtime_message() -> None:
    assert tpu_runtime_problem("v5litepod-8", "v2-alpha-tpuv5") == (
        "runtime version 'v2-alpha-tpuv5' is for TPU v5p, not v5litepod-8 (TPU v5e); use "
        f"v2-alpha-tpuv5-lite (source: {RUNTIMES_DOC})"
    )
    assert tpu_runtime_problem("v6e-8", "tpu-ubuntu2204-base") == (
        "runtime version 'tpu-ubuntu2204-base' is for TPU v2/v3/v4, not v6e-8 (TPU v6e); use "
        f"v2-alpha-tpuv6e (source: {RUNTIMES_DOC})"
    )


def test_framework_runtimes_are_not_judged() -> None:
    assert tpu_runtime_problem("v5litepod-8", "tpu-vm-tf-2.18.0-pjrt") is None
    assert tpu_runtime_problem("v5p-8", "tpu-vm-tf-2.18.0-pod-pjrt") is None


def test_tpu_v4_only_in_us_central2_b() -> None:
    assert tpu_zone_problem("v4-8", "us-central2-b") is None
    assert tpu_zone_problem("V4", "europe-west4-a") == (
        "TPU v4 (V4) is offered only in us-central2-b, not in europe-west4-a "
        "(source: TPU regions and zones https://cloud.google.com/tpu/docs/regions-zones)"
    )


@pytest.mark.parametrize(
    ("accelerator", "zone"),
    [("v5litepod-8", "us-central1-a"), ("v5litepod-8", "us-west4-a"), ("v5litepod-8", "us-south1-a"),
     ("v5litepod-8", "europe-west4-b"), ("v5p-8", "us-east5-a"), ("v5p-8", "us-central1-a"),
     ("v6e-8", "us-east1-d"), ("v6e-8", "us-central1-b"), ("v6e-8", "europe-west4-a"),
     ("v3-8", "us-central1-a"), ("v2-8", "us-central1-c"), ("V5LITE_POD", "US-WEST1-C")],
)  # fmt: skip
def test_documented_zones_are_accepted(accelerator: str, zone: str) -> None:
    assert tpu_zone_problem(accelerator, zone) is None


@pytest.mark.parametrize(
    ("accelerator", "zone"),
    [("v5litepod-8", "us-central1-b"), ("v5litepod-8", "us-east1-c"), ("v5p-8", "us-west4-a"),
     ("v6e-8", "us-central1-a"), ("v6e-8", "northamerica-northeast1-a"), ("v3-8", "us-east1-d"),
     ("v2-8", "us-west1-b")],
)  # fmt: skip
def test_unlisted_north_american_zones_are_refused(accelerator: str, zone: str) -> None:
    assert tpu_zone_problem(accelerator, zone) is not None


def test_north_american_refusal_names_the_listed_zones() -> None:
    assert tpu_zone_problem("v5p-8", "us-west4-a") == (
        "TPU v5p (v5p-8) is offered in North America only in us-central1-a, us-east5-a, "
        "us-east5-b, us-east5-c, us-south1-a, us-east1-d, not in us-west4-a "
        "(source: TPU regions and zones https://cloud.google.com/tpu/docs/regions-zones)"
    )


def test_zones_outside_north_america_are_not_judged_except_v4() -> None:
    # Only the page's North America section was read whole; v5p's Europe zones were not readable.
    assert tpu_zone_problem("v5p-8", "europe-west4-b") is None
    assert tpu_zone_problem("v6e-8", "antarctica-south1-a") is None
    assert tpu_zone_problem("v4-8", "antarctica-south1-a") is not None


def test_gke_tpu_pools_are_judged_by_the_same_zone_table() -> None:
    assert gke_tpu_zone_problem("ct5lp-hightpu-4t", "europe-west4-b") is None
    assert gke_tpu_zone_problem("ct6e-standard-4t", "us-east1-d") is None
    assert "TPU v5e" in (gke_tpu_zone_problem("ct5lp-hightpu-4t", "us-central1-b") or "")


def test_every_zone_is_a_zone_name() -> None:
    for gen in TPU_GENERATIONS:
        assert gen.zones and gen.zone_source, gen.name
        for zone in gen.zones:
            assert re.fullmatch(r"[a-z]+-[a-z]+\d+-[a-z0-9]+", zone), zone


@pytest.mark.parametrize(
    ("machine", "name", "chips"),
    [("ct5lp-hightpu-4t", "v5e", 4), ("ct5lp-hightpu-1t", "v5e", 1), ("ct5p-hightpu-4t", "v5p", 4),
     ("ct6e-standard-8t", "v6e", 8), ("ct4p-hightpu-4t", "v4", 4)],
)  # fmt: skip
def test_gke_machine_types(machine: str, name: str, chips: int) -> None:
    found = gke_machine(machine)
    assert found is not None and (found[0].name, found[1]) == (name, chips)


@pytest.mark.parametrize(
    ("machine", "topology"),
    [("ct5lp-hightpu-4t", "2x2"), ("ct5lp-hightpu-4t", "4x4"), ("ct5lp-hightpu-1t", "1x1"),
     ("ct5p-hightpu-4t", "2x2x1"), ("ct5p-hightpu-4t", "2x2x2"), ("ct6e-standard-8t", "2x4"),
     ("n1-standard-8", "2x2")],
)  # fmt: skip
def test_accepted_topologies(machine: str, topology: str) -> None:
    assert tpu_topology_problem(machine, topology) is None


GKE_DOC = "Plan TPUs in GKE https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus"


@pytest.mark.parametrize(
    ("machine", "topology", "message"),
    [
        ("ct5lp-hightpu-4t", "2x2x1", f"tpuTopology '2x2x1' does not fit ct5lp-hightpu-4t: TPU v5e topologies are AxB (source: {GKE_DOC})"),
        ("ct5p-hightpu-4t", "2x2", f"tpuTopology '2x2' does not fit ct5p-hightpu-4t: TPU v5p topologies are AxBxC (source: {GKE_DOC})"),
        ("ct5lp-hightpu-4t", "1x2", f"tpuTopology '1x2' has 2 chips, not a whole number of ct5lp-hightpu-4t nodes (4 chips each) (source: {GKE_DOC})"),
        ("ct5lp-hightpu-4t", "2by2", f"tpuTopology '2by2' is not of the form AxB or AxBxC (source: {GKE_DOC})"),
    ],
)  # fmt: skip
def test_refused_topologies(machine: str, topology: str, message: str) -> None:
    assert tpu_topology_problem(machine, topology) == message
