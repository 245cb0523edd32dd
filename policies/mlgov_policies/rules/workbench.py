"""Workbench rules: idle shutdown, no public IP, allowed machines and GPUs, no root, a GPU driver.

Covers `gcp:workbench/instance:Instance`. Idle shutdown is Workbench's own metadata switch
(`gceSetup.metadata`); GKE and training capacity live in gke.py and training.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.compat import sources
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_mapping, as_number, dig, is_unknown
from mlgov_policies.rule import ResourceRule, shown

_WORKBENCH = frozenset({v.WORKBENCH_INSTANCE})
_IDLE_KEY = v.WORKBENCH_IDLE_TIMEOUT_KEY
_GUEST_ATTRIBUTES_KEY = v.WORKBENCH_GUEST_ATTRIBUTES_KEY
_DISABLE_ROOT_KEY = v.WORKBENCH_DISABLE_ROOT_KEY


def idle_shutdown(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench instances shut down when idle, no later than the environment's maximum."""
    del type_
    metadata = dig(props, "gceSetup", "metadata")
    if is_unknown(metadata):
        return
    value = as_mapping(metadata).get(_IDLE_KEY)
    if is_unknown(value):
        return
    if value is None:
        yield f"gceSetup.metadata['{_IDLE_KEY}'] is not set: the notebook never stops when idle"
        return
    seconds = as_number(value)
    if seconds is None or seconds <= 0:
        yield (
            f"gceSetup.metadata['{_IDLE_KEY}'] must be a positive number of seconds, got {value!r}"
        )
        return
    limit = config.max_idle_minutes * 60
    if seconds > limit:
        yield (
            f"gceSetup.metadata['{_IDLE_KEY}'] is {seconds:g}s ({seconds / 60:g} min), above the "
            f"maximum of {config.max_idle_minutes} min"
        )


IDLE_SHUTDOWN = ResourceRule(
    name="mlgov-workbench-idle-shutdown",
    check=idle_shutdown,
    types=_WORKBENCH,
    enforcement="mandatory",
    config_keys=("max_idle_minutes",),
    why="An idle notebook with a GPU costs as much as a busy one, all night and weekend.",
    remediation=f"Set gceSetup.metadata['{_IDLE_KEY}'] (as a string) to at most "
    "max_idle_minutes * 60 (settings: notebooks.<name>.idle_minutes).",
)


def guest_attributes(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench instances enable guest attributes, which idle shutdown needs."""
    del type_, config
    value = dig(props, "gceSetup", "metadata", _GUEST_ATTRIBUTES_KEY)
    if is_unknown(value):
        return
    if as_bool(value) is not True:
        yield (
            f"gceSetup.metadata['{_GUEST_ATTRIBUTES_KEY}'] is {shown(value)}, not \"TRUE\": idle "
            "shutdown cannot see activity without guest attributes"
        )


GUEST_ATTRIBUTES = ResourceRule(
    name="mlgov-workbench-guest-attributes",
    check=guest_attributes,
    types=_WORKBENCH,
    enforcement="mandatory",
    why="Workbench idle detection reads guest attributes; without them idle shutdown never fires.",
    remediation=f"Set gceSetup.metadata['{_GUEST_ATTRIBUTES_KEY}'] = 'TRUE'.",
)


def no_public_ip(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench instances have no public IP address."""
    del type_, config
    value = dig(props, "gceSetup", "disablePublicIp")
    if is_unknown(value):
        return
    if as_bool(value) is not True:
        yield f"gceSetup.disablePublicIp is {shown(value)}: the notebook gets a public IP address"


NO_PUBLIC_IP = ResourceRule(
    name="mlgov-workbench-no-public-ip",
    check=no_public_ip,
    types=_WORKBENCH,
    enforcement="mandatory",
    why="A public notebook VM is an internet-facing Jupyter server with project credentials; "
    "external IPs are also billed.",
    remediation="Set gceSetup.disablePublicIp = true and reach the notebook through the "
    "Workbench proxy (Cloud NAT gives it egress).",
)


def machine_type(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench machine types come from the environment's allow-list."""
    del type_
    allowed = config.notebook_machine_types
    if allowed is None:  # not configured: any type; an empty list allows none (as the settings)
        return
    value = dig(props, "gceSetup", "machineType")
    if is_unknown(value):
        return
    if value not in allowed:
        yield (
            f"gceSetup.machineType {value!r} is not in the allowed machine types "
            f"{list(allowed) or 'none (the allow-list is empty)'}"
        )


MACHINE_TYPE_ALLOWED = ResourceRule(
    name="mlgov-workbench-machine-type-allowed",
    check=machine_type,
    types=_WORKBENCH,
    enforcement="mandatory",
    config_keys=("notebook_machine_types",),
    why="Machine size drives notebook cost; each environment fixes what a person may start.",
    remediation="Pick a machine type from the environment's notebook_machine_types, or add "
    "the type to the stack settings after review.",
)


def gpu(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench GPUs come from the environment's allow-list (empty list: no GPUs)."""
    del type_
    allowed = {name.upper() for name in config.notebook_gpu_types}
    for index, accelerator in enumerate(as_list(dig(props, "gceSetup", "acceleratorConfigs"))):
        kind = dig(accelerator, "type")
        if is_unknown(kind):
            continue
        if not isinstance(kind, str) or kind.upper() not in allowed:
            listed = sorted(allowed) if allowed else "none (notebook GPUs are disabled)"
            yield (
                f"gceSetup.acceleratorConfigs[{index}].type {kind!r} is not an allowed notebook "
                f"GPU; allowed: {listed}"
            )


GPU_ALLOWED = ResourceRule(
    name="mlgov-workbench-gpu-allowed",
    check=gpu,
    types=_WORKBENCH,
    enforcement="mandatory",
    config_keys=("notebook_gpu_types",),
    why="A100/H100 notebooks cost 10-40x a T4 and are rarely needed interactively.",
    remediation="Use a GPU from notebook_gpu_types (default NVIDIA_TESLA_T4, NVIDIA_L4), or "
    "run large jobs on a spot training pool instead.",
)


def root_access(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench users get no root unless the instance opts in with a label."""
    del type_, config
    value = dig(props, "gceSetup", "metadata", _DISABLE_ROOT_KEY)
    if is_unknown(value) or as_bool(value) is True:
        return
    labels = dig(props, "labels")
    if is_unknown(labels) or as_mapping(labels).get(v.ROOT_ACCESS_LABEL) == v.ROOT_ACCESS_VALUE:
        return
    yield (
        f"gceSetup.metadata['{_DISABLE_ROOT_KEY}'] is {shown(value)}, not \"true\": notebook "
        f"users get root (Workbench's default) without the opt-in label "
        f"{v.ROOT_ACCESS_LABEL}={v.ROOT_ACCESS_VALUE}"
    )


ROOT_ACCESS = ResourceRule(
    name="mlgov-workbench-root-access",
    check=root_access,
    types=_WORKBENCH,
    enforcement="mandatory",
    why="Root on a notebook VM lets its users change the system and the agents Workbench "
    "manages it with; Workbench grants root unless told not to, so it should be a decision.",
    remediation=f"Set gceSetup.metadata['{_DISABLE_ROOT_KEY}'] = 'true' (settings: "
    f"notebooks.<name>.root_access: false), or label the instance "
    f"{v.ROOT_ACCESS_LABEL}={v.ROOT_ACCESS_VALUE} when root is needed (root_access: true).",
)


_DRIVER_KEY = v.GPU_DRIVER_METADATA_KEY
_DRIVER_SOURCE = sources.short(sources.WORKBENCH_GPU_DRIVER)


def _asks_for_gpus(accelerators: object) -> bool:
    """True when any accelerator entry has a type and a count that is not known to be 0."""
    for entry in as_list(accelerators):
        if dig(entry, "type") is None:
            continue
        count = as_number(dig(entry, "coreCount"))
        if count is None or count > 0:
            return True
    return False


def gpu_driver(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench instances with GPUs ask for the NVIDIA driver, or the GPU is billed unused."""
    del type_, config
    accelerators = dig(props, "gceSetup", "acceleratorConfigs")
    if is_unknown(accelerators) or not _asks_for_gpus(accelerators):
        return
    flag = dig(props, "gceSetup", "metadata", _DRIVER_KEY)
    api_flag = dig(props, "gceSetup", "gpuDriverConfig", "enableGpuDriver")
    if is_unknown(flag) or is_unknown(api_flag):
        return
    if as_bool(flag) is True or as_bool(api_flag) is True:
        return
    yield (
        f"gceSetup.acceleratorConfigs attaches a GPU but gceSetup.metadata['{_DRIVER_KEY}'] is "
        f"{shown(flag)}: no NVIDIA driver is installed, so the GPU is billed while CUDA cannot "
        f"use it (source: {_DRIVER_SOURCE})"
    )


GPU_DRIVER = ResourceRule(
    name="mlgov-workbench-gpu-driver",
    check=gpu_driver,
    types=_WORKBENCH,
    enforcement="advisory",
    why="Workbench installs no GPU driver unless asked; a notebook whose GPU CUDA cannot see "
    "costs the GPU's price for nothing, and the fix needs a restart.",
    remediation=f"Set gceSetup.metadata['{_DRIVER_KEY}'] = 'True' (mlgov's NotebookFleet does "
    "this for every notebook with a gpu).",
    source=_DRIVER_SOURCE,
)
