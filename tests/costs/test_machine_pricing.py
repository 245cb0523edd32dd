"""Machine pricing: per-type prices, SUD and committed use, custom shapes, GPUs, what is offered."""

from __future__ import annotations

import pytest
from cost_plans import price

from governance.costs.bill import Bill
from governance.costs.catalog import default_catalog
from governance.costs.errors import CatalogError, CostError, NotOffered, Refused
from governance.costs.machine_pricing import attached_gpus, charge_machine, sud_hours
from governance.costs.machines import machine_shape

CAT = default_catalog()
SUD_730 = 182.5 * sum(price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4))  # 511 h


def bill() -> Bill:
    return Bill("", [])


def charged(machine: str, usage: str, hours: float, region: str = "us-central1", **kw) -> Bill:
    b = bill()
    charge_machine(b, CAT, machine_shape(machine), region, usage, hours, **kw)
    return b


def test_sud_applies_to_on_demand_n1_per_quarter_of_the_month():
    quarters = [price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4)]
    assert quarters == [1.0, 0.8, 0.6, 0.4]  # Google's N1 tiers
    assert sud_hours(CAT, "n1", 730, "ondemand") == pytest.approx(182.5 * sum(quarters))  # 511 h
    assert sud_hours(CAT, "n1", 100, "ondemand") == 100
    assert sud_hours(CAT, "n1", 730, "spot") == 730
    assert sud_hours(CAT, "e2", 730, "ondemand") == 730  # no SUD for E2


@pytest.mark.parametrize(
    ("machine", "discounted"),
    [
        ("n1-standard-8", True), ("n2-standard-8", True), ("f1-micro", True), ("g1-small", True),
        ("n1-custom-2-7680", True), ("e2-standard-4", False), ("g2-standard-8", False),
        ("a2-highgpu-1g", False), ("a3-highgpu-1g", False),
    ],
)  # fmt: skip
def test_full_month_on_demand_sud_matches_googles_monthly_price(machine, discounted):
    full = charged(machine, "ondemand", 730)
    hourly = CAT.price(f"gce.type.{machine}", "us-central1").usd if CAT.has(
        f"gce.type.{machine}") else None  # fmt: skip
    if hourly is not None:
        assert (full.total < 730 * hourly - 0.01) is discounted
    assert any("SUD-adjusted" in line for line in full.lines) is discounted
    # never on spot
    assert not any("SUD-adjusted" in line for line in charged(machine, "spot", 730).lines)


def test_gpus_on_n1_share_its_sud_but_never_on_spot():
    t4 = [("nvidia-tesla-t4", 1)]
    on_demand = charged("n1-standard-8", "ondemand", 730, extra_gpus=t4)
    gpu = next(line for line in on_demand.lines if line.startswith("GPU:"))
    assert "(SUD-adjusted 511.0 h)" in gpu
    spot = charged("n1-standard-8", "spot", 730, extra_gpus=t4)
    assert "SUD" not in next(line for line in spot.lines if line.startswith("GPU:"))


def test_the_226_dollar_example_spot_n1_standard_8_with_a_t4():
    b = charged("n1-standard-8", "spot", 730, extra_gpus=[("nvidia-tesla-t4", 1)])
    # issue 11: "A spot n1-standard-8 + T4 runs about $226/month at published prices"
    assert b.total == pytest.approx(226, abs=0.5)
    assert b.total == pytest.approx(730 * (0.13402 + 0.175))


def test_custom_shapes_use_n1_custom_rates_or_the_premium():
    n1 = charged("custom-2-7680", "ondemand", 100)
    assert n1.total == pytest.approx(
        100 * (2 * price("gce.n1-custom.vcpu") + 7.5 * price("gce.n1-custom.ram"))
    )
    assert "gce.n1-custom.vcpu[us-central1/ondemand]" in n1.lines[0]
    e2 = charged("e2-custom-4-8192", "ondemand", 100)
    assert e2.total == pytest.approx(
        100 * 1.05 * (4 * price("gce.e2.vcpu") + 8 * price("gce.e2.ram"))
    )
    assert "custom shape: e2 vCPU/RAM x 1.05 premium" in e2.lines


def test_extended_memory_above_the_per_vcpu_cap_bills_the_extended_rate():
    # custom-2-15360-ext: 2 vCPUs, 15 GiB; N1 allows 6.5 GiB a vCPU, the other 2 are extended
    ext = charged("custom-2-15360-ext", "ondemand", 100)
    assert ext.total == pytest.approx(
        100 * (2 * price("gce.n1-custom.vcpu") + 13 * price("gce.n1-custom.ram")
               + 2 * price("gce.n1-custom.ram.extended"))
    )  # fmt: skip
    assert any(line.startswith("extended RAM:") for line in ext.lines)
    # a listed -ext type is priced at its catalog price, and the note names the extended SKU's
    # extra: 1 GiB above 6.5 at (extended - custom RAM) an hour
    listed = charged("custom-1-7680-ext", "ondemand", 100)
    assert any("gce.type.custom-1-7680-ext" in line for line in listed.lines)
    assert not any(line.startswith("extended RAM:") for line in listed.lines)
    extra = price("gce.n1-custom.ram.extended") - price("gce.n1-custom.ram")
    assert (f"custom-1-7680-ext: the catalog's price bills the 1 GiB above 6.5/vCPU at the "
            f"custom RAM rate (Google's extended-memory SKU would add ${extra:.4f}/h)"
            ) in listed.lines  # fmt: skip
    # within the cap an -ext name changes nothing
    within = charged("custom-2-10240-ext", "ondemand", 100)
    assert within.total == pytest.approx(charged("custom-2-10240", "ondemand", 100).total)


@pytest.mark.parametrize("usage", ["ondemand", "spot"])
@pytest.mark.parametrize("region", ["europe-west1", "asia-southeast1", "us-central1"])
def test_extended_memory_is_priced_in_each_region_and_for_spot(region, usage):
    # Google's extended-memory SKU keeps one multiple of the region's N1 custom RAM rate: the
    # documented us-central1 on-demand figure's ($0.00955 / $0.004446)
    ratio = 0.00955 / price("gce.n1-custom.ram")
    ext = CAT.find("gce.n1-custom.ram.extended", region, usage)
    assert ext is not None and ext.region == region  # its own price, no fallback
    assert ext.usd == pytest.approx(ratio * price("gce.n1-custom.ram", region, usage), rel=1e-9)
    # custom-4-31744-ext (not a type the catalog lists): 26 GiB + 5 GiB extended
    b = charged("custom-4-31744-ext", usage, 10, region=region)
    line = next(x for x in b.entries if x.what == "extended RAM")
    assert (line.quantity, line.key, line.region) == (50, "gce.n1-custom.ram.extended", region)
    assert b.total == pytest.approx(10 * (4 * price("gce.n1-custom.vcpu", region, usage)
                                          + 26 * price("gce.n1-custom.ram", region, usage)
                                          + 5 * ext.usd))  # fmt: skip


@pytest.mark.parametrize("commitment", ["1y", "3y"])
def test_a_commitment_never_covers_extended_memory(commitment):
    b = charged("custom-4-31744-ext", "ondemand", 730, commitment=commitment)
    committed = {x.what: x for x in b.entries if x.kind == "charge"}
    # vCPUs and the first 6.5 GiB a vCPU at the committed rate, for 730 h
    assert committed["vCPU"].unit_usd == price("gce.n1-custom.vcpu", usage=commitment)
    assert committed["RAM"].quantity == 26 * 730
    assert committed["RAM"].unit_usd == price("gce.n1-custom.ram", usage=commitment)
    # extended memory at its on-demand price with N1's sustained-use discount (511 h of 730)
    ext = committed["extended RAM"]
    assert ext.unit_usd == price("gce.n1-custom.ram.extended")
    assert ext.quantity == pytest.approx(5 * SUD_730)
    assert any("a commitment covers at most 6.5 GB of memory per vCPU" in n for n in b.lines)


def test_extended_memory_without_a_rate_is_a_named_unpriced_part():
    parts: list[tuple[str, str]] = []
    b = Bill("", [], unpriced=parts)
    charge_machine(b, CAT, machine_shape("n2-custom-2-20480-ext"), "us-central1", "ondemand", 100)
    assert parts == [("extended memory 4 GiB", "no ondemand price for n2 extended memory")]
    assert b.total == pytest.approx(
        100 * 1.05 * (2 * price("gce.n2.vcpu") + 16 * price("gce.n2.ram"))
    )


def test_machine_types_use_their_own_catalog_price_with_bundled_gpus():
    a2 = charged("a2-highgpu-1g", "spot", 10)
    assert a2.total == pytest.approx(10 * price("gce.type.a2-highgpu-1g", usage="spot"))
    # a type the shape tables do not know is still priced from the catalog
    c3 = charged("c3-standard-8", "ondemand", 10)
    assert c3.total == pytest.approx(10 * price("gce.type.c3-standard-8"))
    with pytest.raises(CatalogError, match="unknown machine type 'c3-galactic-8'"):
        charged("c3-galactic-8", "ondemand", 10)


@pytest.mark.parametrize(
    ("machine", "vcpus", "gib", "gpu", "gpus"),
    [
        ("a3-megagpu-8g", 208, 1872, "nvidia-h100-mega-80gb", 8),
        ("z3-highmem-192-highlssd-metal", 192, 1536, "", 0),
        ("c4-highmem-288-lssd-metal", 288, 2232, "", 0),
        ("c4-standard-288-lssd-metal", 288, 1080, "", 0),
        ("g4-standard-6", 6, 22, "nvidia-rtx-pro-6000", 0.125),
        ("n2-highmem-128", 128, 864, "", 0),  # not 8 GiB a vCPU like the other n2-highmem
    ],
)  # fmt: skip
def test_a_shape_the_name_does_not_tell_comes_from_the_catalog(machine, vcpus, gib, gpu, gpus):
    shape = machine_shape(machine)
    assert (shape.vcpus, shape.memory_gib, shape.gpu, shape.gpu_count) == (vcpus, gib, gpu, gpus)
    region = CAT.regions_for(f"gce.type.{machine}", "spot")[0]  # one that sells it
    b = charged(machine, "spot", 10, region=region)
    assert b.total == pytest.approx(10 * price(f"gce.type.{machine}", region, "spot"))


def test_names_of_googles_pattern_the_catalog_lacks_still_parse():
    # several suffixes after the vCPU count, or a GPU count: the shape the name tells
    metal = machine_shape("c9-standard-96-lssd-metal")
    assert (metal.family, metal.vcpus, metal.generic) == ("c9", 96, True)
    gpus = machine_shape("a9-megagpu-8g")
    assert (gpus.family, gpus.vcpus, gpus.generic) == ("a9", 0, True)
    with pytest.raises(CatalogError, match="the catalog has no price for it"):
        charged("c9-standard-96-lssd-metal", "ondemand", 10)


def test_a_catalog_type_without_prices_is_unpriced_with_its_reason():
    # the export lists m4n-hypermem-16's shape but no price yet
    assert machine_shape("m4n-hypermem-16").memory_gib == 248
    with pytest.raises(CatalogError, match=r"m4n-hypermem-16.*no price"):
        charged("m4n-hypermem-16", "ondemand", 10)


def test_attached_gpus_add_but_built_in_gpus_are_not_doubled():
    t4 = [("nvidia-tesla-t4", 2)]
    b = charged("n2-standard-4", "spot", 10, extra_gpus=t4)
    hourly = price("gce.type.n2-standard-4", usage="spot")
    assert b.total == pytest.approx(10 * (hourly + 2 * price("gpu.nvidia-tesla-t4", usage="spot")))
    g2 = charged("g2-standard-4", "spot", 10, extra_gpus=t4)
    assert not any(line.startswith("GPU: gpu.nvidia-tesla-t4") for line in g2.lines)
    assert "g2-standard-4 has built-in GPUs; listed accelerators not added again" in g2.lines


@pytest.mark.parametrize(
    ("machine", "gpus", "region", "message"),
    [
        ("ct4p-hightpu-4t", [], "us-central1", "TPU v4 is not offered in region 'us-central1' "
         "(offered in us-central2; source: https://cloud.google.com/tpu/pricing)"),
        ("n1-standard-4", [("nvidia-tesla-v100", 1)], "asia-south1", "GPU nvidia-tesla-v100 is "
         "not offered in region 'asia-south1'"),
        ("g2-standard-8", [], "europe-north2", "machine type g2-standard-8 is not offered "
         "in region 'europe-north2'"),
    ],
)  # fmt: skip
def test_not_offered_in_the_region_is_an_error_like_the_create_call(machine, gpus, region, message):
    with pytest.raises(NotOffered) as err:
        charged(machine, "spot", 10, region=region, extra_gpus=gpus)
    assert str(err.value).startswith(message)
    assert err.value.region == region


def test_unknown_location_is_never_not_offered_it_falls_back():
    b = charged("n1-standard-4", "ondemand", 10, region="mars-west1")
    assert "nearest priced location to mars-west1" in b.lines[0]


def test_commitment_bills_the_whole_month_at_the_committed_price_beside_list():
    b = charged("n1-standard-8", "ondemand", 100, commitment="1y")
    one_year = CAT.price("gce.type.n1-standard-8", "us-central1", "1y").usd
    assert b.total == pytest.approx(730 * one_year)  # billed whether or not it runs
    assert b.list_total == pytest.approx(100 * price("gce.type.n1-standard-8"))
    assert "730 h committed (1y: billed whether or not it runs; used 100 h)" in b.lines[0]
    # an always-on machine: the commitment beats list (with SUD) as Google's monthly prices say
    always = charged("n1-standard-8", "ondemand", 730, commitment="3y")
    assert always.total < always.list_total
    assert always.list_total == pytest.approx(SUD_730 * price("gce.type.n1-standard-8"))
    # no commitment on spot; parts without a commitment price stay at list, saying so
    assert charged("n1-standard-8", "spot", 730, commitment="1y").total == pytest.approx(
        charged("n1-standard-8", "spot", 730).total
    )
    t4 = charged("n1-standard-8", "ondemand", 730, commitment="1y",
                 extra_gpus=[("nvidia-tesla-t4", 1)])  # fmt: skip
    assert "no 1y commitment price for gpu.nvidia-tesla-t4: list price" in t4.lines


def test_attached_gpus_reads_api_spellings_and_names_bad_paths():
    # Workbench's enum spelling (acceleratorConfigs) and Compute Engine's names
    configs = [{"type": "NVIDIA_TESLA_T4", "count": "2"}, {"type": "nvidia-l4"}]
    assert attached_gpus(configs, "count", "gceSetup.acceleratorConfigs", enum=True) == [
        ("nvidia-tesla-t4", 2),
        ("nvidia-l4", 1),
    ]
    full = [{"type": "projects/p/zones/us-central1-a/acceleratorTypes/nvidia-l4", "count": 2}]
    assert attached_gpus(full, "count", "guestAccelerators") == [("nvidia-l4", 2)]
    # Compute Engine and GKE name accelerator types in lowercase: the enum spelling is refused
    with pytest.raises(
        Refused, match=r"guestAccelerators\[0\]\.type \(GPU type\) 'NVIDIA_TESLA_T4'"
    ):
        attached_gpus(configs, "count", "guestAccelerators")
    with pytest.raises(CostError, match=r"guestAccelerators\[0\]\.type is 5, not a string"):
        attached_gpus([{"type": 5}], "count", "guestAccelerators")


@pytest.mark.parametrize(
    "machine_type",
    ["N1-STANDARD-4", "E2-Standard-4", " n1-standard-4", "n1-standard-4 ", "n1_standard_4",
     "zones/us-central1-a/machineTypes/N1-STANDARD-4", "4-standard"],
)  # fmt: skip
def test_machine_type_names_google_refuses_are_refused_not_read_as_another(machine_type):
    # Compute Engine names are lowercase RFC 1035; lowercasing them priced what cannot exist
    with pytest.raises(Refused, match="is not a name Google accepts"):
        machine_shape(machine_type)


@pytest.mark.parametrize(
    "machine_type",
    ["n1-standard-4", "e2-medium", "f1-micro", "n2-custom-4-16384-ext", "ct5lp-hightpu-4t",
     "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/machineTypes/g2-standard-8"],
)  # fmt: skip
def test_machine_type_names_google_accepts_still_read(machine_type):
    assert machine_shape(machine_type) is not None


def test_a_clusters_default_pool_of_a_refused_machine_type_refuses_the_cluster():
    # the cluster could not be created: a mandatory finding, not a partial price
    from governance.costs.assumptions import UsageAssumptions
    from governance.costs.estimate import estimate_resources

    cluster = {
        "type": "gcp:container/cluster:Cluster",
        "name": "c",
        "inputs": {"location": "us-central1-a", "nodeConfig": {"machineType": "E2-STANDARD-4"}},
    }
    report = estimate_resources([cluster], UsageAssumptions(), default_catalog(), None)
    (row,) = report.resources
    assert row.refused and row.unpriced
    assert "'E2-STANDARD-4' is not a name Google accepts" in row.unpriced
