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
import subprocess
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


def _stub(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f'#!/bin/bash\necho "{name} $*" >> "$CALLS"\n{body}\n')
    path.chmod(0o755)


def _run_startup_script(tmp_path: Path, driver_ready_after: int) -> list[str]:
    """Run the script with stand-ins for systemctl, nvidia-smi, curl and sleep; returns the calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    tries = tmp_path / "tries"
    tries.write_text("0")
    _stub(bin_dir, "systemctl", "exit 0")  # the agent is already installed: no download
    _stub(bin_dir, "curl", "exit 1")
    _stub(bin_dir, "sleep", "exit 0")
    _stub(
        bin_dir,
        "nvidia-smi",
        f'n=$(( $(cat "{tries}") + 1 )); echo $n > "{tries}"; [ $n -gt {driver_ready_after} ]',
    )
    script = tmp_path / "startup.sh"
    script.write_text(OPS_AGENT_STARTUP_SCRIPT)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "CALLS": str(calls)}
    subprocess.run(["bash", str(script)], env=env, check=True, cwd=tmp_path, timeout=30)
    return [line.strip() for line in calls.read_text().splitlines()]


def test_startup_script_restarts_the_agent_once_the_driver_answers(tmp_path: Path) -> None:
    # The image installs the driver at first boot too; the agent must see it whichever is first.
    calls = _run_startup_script(tmp_path, driver_ready_after=2)
    assert calls.count("systemctl restart google-cloud-ops-agent") == 1
    assert calls.index("systemctl restart google-cloud-ops-agent") > calls.index("sleep 10")
    assert [c for c in calls if c.startswith("nvidia-smi")] == ["nvidia-smi"] * 3
    assert not [c for c in calls if c.startswith("curl")]


def test_startup_script_gives_up_on_a_driver_that_never_appears(tmp_path: Path) -> None:
    calls = _run_startup_script(tmp_path, driver_ready_after=10_000)
    assert "systemctl restart google-cloud-ops-agent" not in calls
    assert calls.count("sleep 10") == 90  # bounded: 15 minutes, then the script ends
