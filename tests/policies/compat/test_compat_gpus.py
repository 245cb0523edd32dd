"""The GPU table's integrity and `gpu_problem` on accepted and refused pairings."""

from __future__ import annotations

import pytest

from mlgov_policies.compat import gpu_problem, sources
from mlgov_policies.compat.gpus import GPU_PLATFORMS, GPUS, NO_GPU_FAMILIES, gpu, machine_family

GPU_DOC = "GPU machine types https://cloud.google.com/compute/docs/gpus"
AO_DOC = "Accelerator-optimized machine family https://cloud.google.com/compute/docs/accelerator-optimized-machines"


def test_every_row_cites_a_google_document_and_the_day_it_was_checked() -> None:
    for row in (*GPUS, *GPU_PLATFORMS):
        assert "https://cloud.google.com/" in row.source, row
        assert f", checked {sources.CHECKED}" in row.source, row


def test_every_platform_names_a_gpu_of_the_table() -> None:
    names = {model.compute for model in GPUS}
    assert {row.gpu for row in GPU_PLATFORMS} <= names


def test_gpu_names_are_unique_per_api() -> None:
    assert len({model.compute for model in GPUS}) == len(GPUS)
    workbench = [model.workbench for model in GPUS if model.workbench]
    assert len(set(workbench)) == len(workbench)


def test_rows_are_well_formed() -> None:
    for row in GPU_PLATFORMS:
        if row.bundled:
            assert len(row.counts) == 1 and not row.max_vcpus, row
            assert row.machine_type is not None and row.machine_type.startswith(f"{row.family}-")
        else:
            assert row.family == "n1"
            assert len(row.counts) == len(row.max_vcpus) == len(row.max_memory_gb), row
    machine_types = [row.machine_type for row in GPU_PLATFORMS if row.bundled]
    assert len(set(machine_types)) == len(machine_types)
    assert not NO_GPU_FAMILIES & {row.family for row in GPU_PLATFORMS}


def test_g2_types_carry_the_documented_l4_counts() -> None:
    counts = {row.machine_type: row.counts[0] for row in GPU_PLATFORMS if row.family == "g2"}
    assert counts == {
        "g2-standard-4": 1,
        "g2-standard-8": 1,
        "g2-standard-12": 1,
        "g2-standard-16": 1,
        "g2-standard-24": 2,
        "g2-standard-32": 1,
        "g2-standard-48": 4,
        "g2-standard-96": 8,
    }


@pytest.mark.parametrize(
    ("name", "compute"),
    [
        ("nvidia-tesla-t4", "nvidia-tesla-t4"),
        ("NVIDIA_TESLA_T4", "nvidia-tesla-t4"),
        ("NVIDIA_L4", "nvidia-l4"),
        ("projects/p/zones/us-central1-a/acceleratorTypes/nvidia-l4", "nvidia-l4"),
        (
            "https://www.googleapis.com/compute/v1/projects/p/zones/z/acceleratorTypes/nvidia-a100-80gb",
            "nvidia-a100-80gb",
        ),
        ("NVIDIA_H100_MEGA_80GB", "nvidia-h100-mega-80gb"),
    ],
)
def test_names_map_between_apis(name: str, compute: str) -> None:
    model = gpu(name)
    assert model is not None and model.compute == compute


@pytest.mark.parametrize(
    ("machine", "family"),
    [
        ("n1-standard-8", "n1"),
        ("custom-4-15360", "n1"),
        ("g2-standard-8", "g2"),
        ("a3-megagpu-8g", "a3"),
    ],
)
def test_machine_family(machine: str, family: str) -> None:
    assert machine_family(machine) == family


@pytest.mark.parametrize(
    ("machine", "accelerator", "count"),
    [
        ("n1-standard-8", "nvidia-tesla-t4", 1),
        ("n1-standard-8", "NVIDIA_TESLA_T4", 2),
        ("n1-standard-96", "nvidia-tesla-t4", 4),
        ("n1-highmem-8", "nvidia-tesla-v100", 1),  # 8 vCPUs, 52 GB <= 12 / 78
        ("custom-12-79872", "nvidia-tesla-v100", 1),  # exactly 78 GB
        ("n1-standard-64", "nvidia-tesla-p100", 4),
        ("g2-standard-8", "nvidia-l4", 1),
        ("g2-standard-24", "nvidia-l4", 2),
        ("g2-standard-48", "NVIDIA_L4", 4),
        ("g2-standard-96", "nvidia-l4", 8),
        ("a2-highgpu-1g", "nvidia-tesla-a100", 1),
        ("a2-megagpu-16g", "nvidia-tesla-a100", 16),
        ("a2-ultragpu-8g", "nvidia-a100-80gb", 8),
        ("a3-highgpu-8g", "nvidia-h100-80gb", 8),
        ("a3-megagpu-8g", "nvidia-h100-mega-80gb", 8),
        (
            "projects/p/zones/z/machineTypes/g2-standard-4",
            "projects/p/zones/z/acceleratorTypes/nvidia-l4",
            1,
        ),
        ("e2-standard-8", "nvidia-tesla-t4", 0),  # zero GPUs attach nothing
        ("n1-standard-8", "nvidia-tesla-k80", 1),  # not in the table: not judged
        ("a9-futuregpu-8g", "nvidia-l4", 1),  # unknown family: not judged
        ("a2-highgpu-3g", "nvidia-tesla-a100", 3),  # unknown A2 type: not judged
        ("g2-standard-8", "nvidia-l4", None),  # model only
    ],
)
def test_accepted_pairings(machine: str, accelerator: str, count: int | None) -> None:
    assert gpu_problem(machine, accelerator, count) is None


@pytest.mark.parametrize(
    ("machine", "accelerator", "count", "message"),
    [
        (
            "n1-standard-8", "NVIDIA_L4", 1,
            "NVIDIA L4 (nvidia-l4) cannot attach to n1-standard-8: it runs only on g2-standard-4, "
            "g2-standard-8, g2-standard-12, g2-standard-16, g2-standard-24, g2-standard-32, "
            f"g2-standard-48, g2-standard-96 (source: {GPU_DOC})",
        ),
        (
            "e2-standard-8", "nvidia-tesla-t4", 1,
            f"NVIDIA T4 (nvidia-tesla-t4) cannot attach to e2-standard-8: it runs only on n1-* (source: {GPU_DOC})",
        ),
        (
            "g2-standard-24", "nvidia-l4", 1,
            "g2-standard-24 comes with 2 x nvidia-l4 built in; an explicit accelerator must match "
            f"it, got 1 x nvidia-l4 (source: {AO_DOC})",
        ),
        (
            "g2-standard-8", "nvidia-tesla-t4", 1,
            "g2-standard-8 comes with 1 x nvidia-l4 built in; an explicit accelerator must match "
            f"it, got 1 x nvidia-tesla-t4 (source: {AO_DOC})",
        ),
        (
            "a2-highgpu-1g", "nvidia-a100-80gb", 1,
            "a2-highgpu-1g comes with 1 x nvidia-tesla-a100 built in; an explicit accelerator must "
            f"match it, got 1 x nvidia-a100-80gb (source: {AO_DOC})",
        ),
        (
            "n1-standard-8", "nvidia-tesla-t4", 3,
            f"3 x nvidia-tesla-t4 on n1-standard-8: N1 takes nvidia-tesla-t4 in counts [1, 2, 4] (source: {GPU_DOC})",
        ),
        (
            "n1-standard-8", "nvidia-tesla-v100", 16,
            f"16 x nvidia-tesla-v100 on n1-standard-8: N1 takes nvidia-tesla-v100 in counts [1, 2, 4, 8] (source: {GPU_DOC})",
        ),
        (
            "n1-standard-16", "nvidia-tesla-v100", 1,
            "1 x nvidia-tesla-v100 on n1-standard-16 (16 vCPUs, 60 GB): with 1 nvidia-tesla-v100 "
            f"an N1 VM has at most 12 vCPUs and 78 GB (source: {GPU_DOC})",
        ),
        (
            "custom-12-80896", "nvidia-tesla-v100", 1,
            "1 x nvidia-tesla-v100 on custom-12-80896 (12 vCPUs, 79 GB): with 1 nvidia-tesla-v100 "
            f"an N1 VM has at most 12 vCPUs and 78 GB (source: {GPU_DOC})",
        ),
        (
            "n1-standard-96", "nvidia-tesla-t4", 2,
            "2 x nvidia-tesla-t4 on n1-standard-96 (96 vCPUs, 360 GB): with 2 nvidia-tesla-t4 an "
            f"N1 VM has at most 48 vCPUs and 312 GB (source: {GPU_DOC})",
        ),
    ],
)  # fmt: skip
def test_refused_pairings(machine: str, accelerator: str, count: int, message: str) -> None:
    assert gpu_problem(machine, accelerator, count) == message


# Rows spot-checked on 2026-11-23 against Google's "GPU machine types" page
# (https://cloud.google.com/compute/docs/gpus): each row as the page states it.
@pytest.mark.parametrize(
    ("machine", "gpu_type", "count"),
    [
        ("g2-standard-4", "nvidia-l4", 1),  # G2 table: g2-standard-4, 1 GPU, 4 vCPUs, 16 GB
        ("g2-standard-8", "nvidia-l4", 1),  # G2 table: g2-standard-8, 1 GPU, 8 vCPUs, 32 GB
        ("a3-highgpu-8g", "nvidia-h100-80gb", 8),  # H100 table: a3-highgpu-8g, 8 GPUs
    ],
)
def test_spot_checked_built_in_rows(machine: str, gpu_type: str, count: int) -> None:
    row = next(r for r in GPU_PLATFORMS if r.machine_type == machine)
    assert (row.gpu, row.counts) == (gpu_type, (count,))
    assert gpu_problem(machine, gpu_type, count) is None
    assert gpu_problem(machine, gpu_type, count + 1) is not None


def test_spot_checked_l4_runs_only_on_g2() -> None:
    # "To run NVIDIA L4 GPUs, you must use a G2 accelerator-optimized machine type."
    assert gpu_problem("n1-standard-8", "nvidia-l4", 1) is not None
    assert {r.family for r in GPU_PLATFORMS if r.gpu == "nvidia-l4"} == {"g2"}


def test_spot_checked_n1_shared_core_types_take_no_gpu() -> None:
    # "For N1 general-purpose machine types, except for the N1 shared-core (f1-micro and
    # g1-small), you can attach a select set of GPU models."
    assert {"f1", "g1"} <= NO_GPU_FAMILIES
    assert gpu_problem("f1-micro", "nvidia-tesla-t4", 1) is not None
    assert gpu_problem("g1-small", "nvidia-tesla-t4", 1) is not None
