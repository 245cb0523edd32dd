"""GPU drivers and GPU metrics on the VMs the program creates, checked against Google's APIs.

Workbench: the Notebooks API v2 (discovery document notebooks.v2, shipped by
google-api-python-client) has `gceSetup.gpuDriverConfig.enableGpuDriver`, but pulumi-gcp's
`workbench.InstanceGceSetupArgs` does not expose it, so NotebookFleet asks for the driver with the
Deep Learning VM metadata key `install-nvidia-driver`. Training GPU VMs install the Ops Agent with
Google's repository script, the only source of `agent.googleapis.com/gpu/utilization`.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path
from typing import Any

import pulumi_gcp as gcp

from governance.components import Notebook
from governance.components.notebooks import Accelerator, notebook_metadata
from governance.components.training import OPS_AGENT_ROLES, OPS_AGENT_STARTUP_SCRIPT


def _notebooks_v2() -> dict[str, Any]:
    spec = importlib.util.find_spec("googleapiclient")
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / "discovery_cache" / "documents" / "notebooks.v2.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_v2_api_has_a_gpu_driver_switch_that_pulumi_does_not_expose() -> None:
    schemas = _notebooks_v2()["schemas"]
    assert schemas["GceSetup"]["properties"]["gpuDriverConfig"]["$ref"] == "GPUDriverConfig"
    assert schemas["GPUDriverConfig"]["properties"]["enableGpuDriver"]["type"] == "boolean"
    # When pulumi-gcp grows gce_setup.gpu_driver_config, this fails: switch NotebookFleet from
    # the metadata key to the API field (gpuDriverConfig.enableGpuDriver = true).
    accepted = inspect.signature(gcp.workbench.InstanceGceSetupArgs.__init__).parameters
    assert "accelerator_configs" in accepted
    assert "gpu_driver_config" not in accepted


def test_a_gpu_notebook_asks_for_the_driver_and_a_cpu_notebook_does_not() -> None:
    gpu = Notebook(zone="us-central1-a", gpu=Accelerator(type="NVIDIA_TESLA_T4", count=1))
    assert notebook_metadata(gpu)["install-nvidia-driver"] == "True"
    assert "install-nvidia-driver" not in notebook_metadata(Notebook(zone="us-central1-a"))


def test_shipped_workbench_gpu_types_are_notebooks_v2_enum_values() -> None:
    enum = set(_notebooks_v2()["schemas"]["AcceleratorConfig"]["properties"]["type"]["enum"])
    # The types the shipped stacks give notebooks (dev: T4, staging: L4).
    assert {"NVIDIA_TESLA_T4", "NVIDIA_L4"} <= enum
    # coreCount is a string in the API (int64 as JSON string); NotebookFleet sends str(count).
    core = _notebooks_v2()["schemas"]["AcceleratorConfig"]["properties"]["coreCount"]
    assert core["type"] == "string"


def test_ops_agent_is_installed_with_googles_repository_script() -> None:
    # https://cloud.google.com/stackdriver/docs/solutions/agents/ops-agent/installation
    lines = OPS_AGENT_STARTUP_SCRIPT.splitlines()
    assert lines[0] == "#!/bin/bash"
    assert "curl -sSO https://dl.google.com/cloudagents/add-google-cloud-ops-agent-repo.sh" in [
        line.strip() for line in lines
    ]
    assert "bash add-google-cloud-ops-agent-repo.sh --also-install" in [
        line.strip() for line in lines
    ]
    # The agent writes metrics and logs as the VM's service account (installation prerequisites).
    assert set(OPS_AGENT_ROLES) == {"roles/monitoring.metricWriter", "roles/logging.logWriter"}
