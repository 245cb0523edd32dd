"""Pure mlgov policy rules: resource rules and stack rules over plain input properties.

A resource rule is `(type_token, props, config) -> Iterator[str]`: one message per violation.
A stack rule is `(resources, config) -> Iterator[(index | None, message)]`, where `index` points
into `resources` (None: the stack as a whole). Rules never raise on odd or unknown values: they
skip what they cannot know at preview time. Names, descriptions and enforcement live in
registry.py; CrossGuard wrapping lives in pack.py; the offline runner is evaluate.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import (
    as_bool,
    as_list,
    as_mapping,
    as_number,
    as_str,
    dig,
    is_unknown,
)


class StackResource(NamedTuple):
    """One resource as a stack rule sees it."""

    type: str
    name: str
    props: Mapping[str, Any]


ResourceCheck = Callable[[str, Mapping[str, Any], PolicyConfig], Iterator[str]]
StackCheck = Callable[[Sequence[StackResource], PolicyConfig], Iterator[tuple[int | None, str]]]

# --- type tokens ---------------------------------------------------------------------------------
WORKBENCH = "gcp:workbench/instance:Instance"
CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
TPU_VM = "gcp:tpu/v2Vm:V2Vm"
COMPUTE_INSTANCE = "gcp:compute/instance:Instance"
SQL_INSTANCE = "gcp:sql/databaseInstance:DatabaseInstance"
DATASET = "gcp:bigquery/dataset:Dataset"
DATASET_ACCESS = "gcp:bigquery/datasetAccess:DatasetAccess"
TABLE = "gcp:bigquery/table:Table"
BUDGET = "gcp:billing/budget:Budget"
FUNCTION = "gcp:cloudfunctionsv2/function:Function"
SCHEDULER_JOB = "gcp:cloudscheduler/job:Job"
BUCKET = "gcp:storage/bucket:Bucket"
PROJECT_IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
PROJECT_IAM_BINDING = "gcp:projects/iAMBinding:IAMBinding"

# --- labels --------------------------------------------------------------------------------------
# Where each labelable type keeps its GCP labels (dotted path into the inputs). GKE node-pool
# `nodeConfig.labels` are Kubernetes labels, not GCP billing labels, so they are not listed.
LABEL_FIELDS: Mapping[str, tuple[str, ...]] = {
    WORKBENCH: ("labels",),
    CLUSTER: ("resourceLabels",),
    NODE_POOL: ("nodeConfig.resourceLabels",),
    TPU_VM: ("labels",),
    COMPUTE_INSTANCE: ("labels", "bootDisk.initializeParams.labels"),
    "gcp:compute/disk:Disk": ("labels",),
    "gcp:compute/globalAddress:GlobalAddress": ("labels",),
    SQL_INSTANCE: ("settings.userLabels",),
    DATASET: ("labels",),
    TABLE: ("labels",),
    "gcp:pubsub/topic:Topic": ("labels",),
    "gcp:pubsub/subscription:Subscription": ("labels",),
    BUCKET: ("labels",),
    FUNCTION: ("labels",),
    "gcp:cloudrunv2/service:Service": ("labels",),
}
# Label fields whose parent block may legitimately be absent (a boot disk attached from an
# existing `source` has no initializeParams); absent parent means nothing to check.
_OPTIONAL_PARENT = frozenset({"bootDisk.initializeParams.labels"})

_LABEL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
_LABEL_VALUE = re.compile(r"[a-z0-9_-]{0,63}")
_MAX_LABELS = 64


def _label_maps(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for field in LABEL_FIELDS.get(type_, ()):
        path = field.split(".")
        if field in _OPTIONAL_PARENT and dig(props, *path[:-1]) is None:
            continue
        yield field, dig(props, *path)


def required_labels(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Every labelable resource carries the cost-attribution labels, with non-empty values."""
    for field, labels in _label_maps(type_, props):
        if is_unknown(labels):
            continue
        present = as_mapping(labels)
        if labels is not None and not present and not isinstance(labels, Mapping):
            yield f"'{field}' is not a map of labels"
            continue
        missing = [key for key in config.required_labels if key not in present]
        empty = [
            key
            for key in config.required_labels
            if key in present and not is_unknown(present[key]) and not as_str(present[key])
        ]
        if missing:
            yield f"'{field}' lacks required labels {missing}"
        if empty:
            yield f"'{field}' has empty required labels {empty}"


def valid_labels(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Label keys and values follow GCP's rules (lowercase, <=63 chars, [a-z0-9_-])."""
    del config
    for field, labels in _label_maps(type_, props):
        present = as_mapping(labels)
        if len(present) > _MAX_LABELS:
            yield f"'{field}' has {len(present)} labels; GCP allows at most {_MAX_LABELS}"
        for key, value in present.items():
            if not isinstance(key, str) or not _LABEL_KEY.fullmatch(key):  # pyright: ignore[reportUnnecessaryIsInstance]
                yield (
                    f"'{field}' key {key!r} is invalid: start with a lowercase letter, use only "
                    "[a-z0-9_-], at most 63 characters"
                )
            if is_unknown(value):
                continue
            if not isinstance(value, str) or not _LABEL_VALUE.fullmatch(value):
                yield (
                    f"'{field}' value {value!r} of {key!r} is invalid: use only [a-z0-9_-], "
                    "at most 63 characters"
                )


# --- location ------------------------------------------------------------------------------------
_REGION = re.compile(r"[a-z]+-[a-z]+\d+")
_ZONE = re.compile(r"([a-z]+-[a-z]+\d+)-[a-z]")

# Fields holding a region or zone, per type. List fields are expanded item by item.
LOCATION_FIELDS: Mapping[str, tuple[str, ...]] = {
    WORKBENCH: ("location",),
    CLUSTER: ("location", "nodeLocations"),
    NODE_POOL: ("location", "nodeLocations"),
    TPU_VM: ("zone",),
    COMPUTE_INSTANCE: ("zone",),
    "gcp:compute/disk:Disk": ("zone",),
    "gcp:compute/subnetwork:Subnetwork": ("region",),
    "gcp:compute/router:Router": ("region",),
    "gcp:compute/routerNat:RouterNat": ("region",),
    "gcp:compute/resourcePolicy:ResourcePolicy": ("region",),
    "gcp:compute/address:Address": ("region",),
    SQL_INSTANCE: ("region",),
    DATASET: ("location",),
    BUCKET: ("location",),
    FUNCTION: ("location", "eventTrigger.triggerRegion"),
    SCHEDULER_JOB: ("region",),
    "gcp:cloudrunv2/service:Service": ("location",),
}


def _region_of(location: str) -> str | None:
    lowered = location.lower()
    if _REGION.fullmatch(lowered):
        return lowered
    zone = _ZONE.fullmatch(lowered)
    return zone.group(1) if zone else None


def _locations(resource: StackResource) -> Iterator[tuple[str, str]]:
    for field in LOCATION_FIELDS.get(resource.type, ()):
        value = dig(resource.props, *field.split("."))
        values = as_list(value) or [value]
        for item in values:
            text = as_str(item)
            if text:
                yield field, text


def stack_region(resources: Sequence[StackResource]) -> str | None:
    """The one region all regional resources agree on, or None when there are zero or several."""
    regions: set[str] = set()
    for resource in resources:
        for _field, location in _locations(resource):
            region = _region_of(location)
            if region is not None:
                regions.add(region)
    return regions.pop() if len(regions) == 1 else None


def location_in_region(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Every regional or zonal resource is in the stack's region (BigQuery: allowed locations)."""
    region = config.region.lower() if config.region else stack_region(resources)
    if region is None:
        return  # no configured region and no single region to infer: nothing to compare with
    bigquery = config.bigquery_locations(region)
    for index, resource in enumerate(resources):
        for field, location in _locations(resource):
            if resource.type == DATASET:
                if location.lower() not in bigquery:
                    yield (
                        index,
                        (
                            f"{field} '{location}' is not an allowed BigQuery location "
                            f"{sorted(bigquery)}"
                        ),
                    )
            elif _region_of(location) != region:
                yield index, f"{field} '{location}' is outside the stack region '{region}'"


def _shown(value: object) -> str:
    return "not set" if value is None else repr(value)


# --- Workbench -----------------------------------------------------------------------------------
IDLE_KEY = "idle-timeout-seconds"
GUEST_ATTRIBUTES_KEY = "enable-guest-attributes"


def workbench_idle_shutdown(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Workbench instances shut down when idle, no later than the environment's maximum."""
    del type_
    metadata = dig(props, "gceSetup", "metadata")
    if is_unknown(metadata):
        return
    value = as_mapping(metadata).get(IDLE_KEY)
    if is_unknown(value):
        return
    if value is None:
        yield f"gceSetup.metadata['{IDLE_KEY}'] is not set: the notebook never stops when idle"
        return
    seconds = as_number(value)
    if seconds is None or seconds <= 0:
        yield f"gceSetup.metadata['{IDLE_KEY}'] must be a positive number of seconds, got {value!r}"
        return
    limit = config.max_idle_minutes * 60
    if seconds > limit:
        yield (
            f"gceSetup.metadata['{IDLE_KEY}'] is {seconds:g}s ({seconds / 60:g} min), above the "
            f"maximum of {config.max_idle_minutes} min"
        )


def workbench_guest_attributes(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Workbench instances enable guest attributes, which idle shutdown needs."""
    del type_, config
    value = dig(props, "gceSetup", "metadata", GUEST_ATTRIBUTES_KEY)
    if is_unknown(value):
        return
    if as_bool(value) is not True:
        yield (
            f"gceSetup.metadata['{GUEST_ATTRIBUTES_KEY}'] is {_shown(value)}, not \"TRUE\": idle "
            "shutdown cannot see activity without guest attributes"
        )


def workbench_no_public_ip(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Workbench instances have no public IP address."""
    del type_, config
    value = dig(props, "gceSetup", "disablePublicIp")
    if is_unknown(value):
        return
    if as_bool(value) is not True:
        yield f"gceSetup.disablePublicIp is {_shown(value)}: the notebook gets a public IP address"


def workbench_machine_type(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Workbench machine types come from the environment's allow-list."""
    del type_
    if not config.notebook_machine_types:
        return
    value = dig(props, "gceSetup", "machineType")
    if is_unknown(value):
        return
    if value not in config.notebook_machine_types:
        yield (
            f"gceSetup.machineType {value!r} is not in the allowed machine types "
            f"{list(config.notebook_machine_types)}"
        )


def workbench_gpu(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Workbench GPUs come from the environment's allow-list (empty list: no GPUs)."""
    del type_
    allowed = {gpu.upper() for gpu in config.notebook_gpu_types}
    for index, accelerator in enumerate(as_list(dig(props, "gceSetup", "acceleratorConfigs"))):
        gpu = dig(accelerator, "type")
        if is_unknown(gpu):
            continue
        if not isinstance(gpu, str) or gpu.upper() not in allowed:
            shown = sorted(allowed) if allowed else "none (notebook GPUs are disabled)"
            yield (
                f"gceSetup.acceleratorConfigs[{index}].type {gpu!r} is not an allowed notebook "
                f"GPU; allowed: {shown}"
            )


# --- training: GPU/TPU capacity ------------------------------------------------------------------
# Machine families with GPUs built in (A2/A3/A4 carry A100/H100/B200, G2/G4 carry L4/RTX).
_GPU_MACHINE = re.compile(r"(a2|a3|a4|a4x|g2|g4)-")
# GKE TPU machine types (ct4p-, ct5lp-, ct5p-, ct6e-, tpu7x-).
_TPU_MACHINE = re.compile(r"(ct\d|tpu\d)")


def _has_accelerators(accelerators: object, machine_type: object) -> bool:
    for accelerator in as_list(accelerators):
        count = as_number(dig(accelerator, "count"))
        if count is None or count > 0:
            return True
    machine = as_str(machine_type) or ""
    return bool(_GPU_MACHINE.match(machine) or _TPU_MACHINE.match(machine))


def _accelerated(type_: str, props: Mapping[str, Any]) -> bool:
    """True when the resource carries GPUs or TPUs (TPU VMs always do)."""
    if type_ == TPU_VM:
        return True
    if type_ == NODE_POOL:
        return _has_accelerators(
            dig(props, "nodeConfig", "guestAccelerators"), dig(props, "nodeConfig", "machineType")
        )
    if type_ == COMPUTE_INSTANCE:
        return _has_accelerators(dig(props, "guestAccelerators"), dig(props, "machineType"))
    return False


def training_spot(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """GPU/TPU node pools, TPU VMs and GPU VMs run on spot (or preemptible) capacity."""
    del config
    if not _accelerated(type_, props):
        return
    if type_ == NODE_POOL:
        spot, preemptible = (
            dig(props, "nodeConfig", "spot"),
            dig(props, "nodeConfig", "preemptible"),
        )
        where = "nodeConfig.spot"
    elif type_ == TPU_VM:
        spot = dig(props, "schedulingConfig", "spot")
        preemptible = dig(props, "schedulingConfig", "preemptible")
        where = "schedulingConfig.spot"
    else:
        model = dig(props, "scheduling", "provisioningModel")
        spot = True if model == "SPOT" else (model if is_unknown(model) else None)
        preemptible = dig(props, "scheduling", "preemptible")
        where = "scheduling.provisioningModel=SPOT"
    if is_unknown(spot) or is_unknown(preemptible):
        return
    if as_bool(spot) is not True and as_bool(preemptible) is not True:
        yield f"GPU/TPU capacity is on-demand: set {where} (60-91% cheaper, no SLA)"


def training_scale_from_zero(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """GPU/TPU node pools autoscale and can scale down to zero nodes."""
    del config
    if not _accelerated(type_, props):
        return
    autoscaling = dig(props, "autoscaling")
    if is_unknown(autoscaling):
        return
    scaling = as_mapping(autoscaling)
    if not isinstance(autoscaling, Mapping):
        yield "GPU/TPU node pool has no autoscaling block: it keeps its nodes when idle"
    else:
        minimum: object = None
        for key in ("totalMinNodeCount", "minNodeCount"):
            value = dig(scaling, key)
            if value is not None:
                minimum = value
                break
        number = as_number(minimum)
        if not is_unknown(minimum) and number is not None and number > 0:
            yield f"autoscaling minimum is {number:g}: GPU/TPU pools must scale down to 0"
    for key in ("initialNodeCount", "nodeCount"):
        count = as_number(dig(props, key))
        if count is not None and count > 0:
            yield f"{key} is {count:g}: GPU/TPU pools start empty and grow on demand"


def training_max_run_duration(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Standalone GPU VMs stop themselves after a bounded run time."""
    del config
    if not _accelerated(type_, props):
        return
    duration = dig(props, "scheduling", "maxRunDuration")
    if is_unknown(duration):
        return
    seconds = dig(duration, "seconds")
    if is_unknown(seconds):
        return
    number = as_number(seconds)
    if number is None or number <= 0:
        yield "scheduling.maxRunDuration.seconds is not set: a forgotten GPU VM runs forever"


# --- GKE -----------------------------------------------------------------------------------------
def gke_autoprovisioning_limits(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Clusters use node auto-provisioning with CPU, memory and accelerator limits."""
    del type_, config
    if as_bool(dig(props, "enableAutopilot")) is True:
        return  # Autopilot has no node auto-provisioning settings of its own
    autoscaling = dig(props, "clusterAutoscaling")
    if is_unknown(autoscaling):
        return
    enabled = dig(autoscaling, "enabled")
    if is_unknown(enabled):
        return
    if as_bool(enabled) is not True:
        yield "clusterAutoscaling.enabled is not true: node auto-provisioning is off"
        return
    limits: dict[str, object] = {}
    for limit in as_list(dig(autoscaling, "resourceLimits")):
        kind = as_str(dig(limit, "resourceType"))
        if kind:
            limits[kind.lower()] = dig(limit, "maximum")
    for kind in ("cpu", "memory"):
        if kind not in limits:
            yield f"clusterAutoscaling.resourceLimits has no '{kind}' limit"
    if not any(kind.startswith(("nvidia-", "tpu-")) for kind in limits):
        yield "clusterAutoscaling.resourceLimits has no accelerator limit (nvidia-*/tpu-*)"
    for kind, maximum in limits.items():
        number = as_number(maximum)
        if not is_unknown(maximum) and (number is None or number <= 0):
            yield f"clusterAutoscaling limit '{kind}' has no positive maximum (got {maximum!r})"


def gke_default_pool_no_gpu(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """The always-on default node pool has no GPUs (or is removed)."""
    del type_, config
    remove = dig(props, "removeDefaultNodePool")
    if is_unknown(remove) or as_bool(remove) is True:
        return
    if _has_accelerators(
        dig(props, "nodeConfig", "guestAccelerators"), dig(props, "nodeConfig", "machineType")
    ):
        yield (
            "the default node pool has GPUs/TPUs: set removeDefaultNodePool=true and use a "
            "spot pool that scales from 0"
        )


def gke_cost_allocation(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Clusters enable GKE cost allocation so spend splits by namespace and label."""
    del type_, config
    enabled = dig(props, "costManagementConfig", "enabled")
    if not is_unknown(enabled) and as_bool(enabled) is not True:
        yield "costManagementConfig.enabled is not true: GKE spend cannot be attributed"


# --- Cloud SQL -----------------------------------------------------------------------------------
def sql_no_public_ip(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Cloud SQL has no public IPv4 unless restricted to named, non-open networks."""
    del type_, config
    ip = dig(props, "settings", "ipConfiguration")
    if is_unknown(ip):
        return
    enabled = dig(ip, "ipv4Enabled")
    if is_unknown(enabled):
        return
    if as_bool(enabled) is False:
        return
    # GCP's default for ipv4Enabled is true: an absent value means a public address.
    networks = dig(ip, "authorizedNetworks")
    if is_unknown(networks):
        return
    values = [as_str(dig(network, "value")) for network in as_list(networks)]
    open_ = [v for v in values if v and v.endswith("/0")]
    if open_:
        yield f"public IPv4 is open to the internet (authorizedNetworks {open_})"
    elif not values:
        yield (
            "settings.ipConfiguration.ipv4Enabled is not false and no authorizedNetworks are "
            "set: use a private IP (ipv4Enabled: false, privateNetwork)"
        )


def sql_tier(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Cloud SQL tiers come from the environment's allow-list."""
    del type_
    if not config.sql_tiers:
        return
    tier = dig(props, "settings", "tier")
    if not is_unknown(tier) and tier not in config.sql_tiers:
        yield f"settings.tier {tier!r} is not in the allowed tiers {list(config.sql_tiers)}"


def sql_prod_deletion_protection(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Production Cloud SQL instances are protected from deletion (Pulumi and GCP)."""
    del type_
    if config.environment != "prod":
        return
    pulumi_level = dig(props, "deletionProtection")
    if as_bool(pulumi_level) is False:
        yield "deletionProtection is false in prod: `pulumi destroy` would delete the database"
    gcp_level = dig(props, "settings", "deletionProtectionEnabled")
    if not is_unknown(gcp_level) and as_bool(gcp_level) is not True:
        yield "settings.deletionProtectionEnabled is not true in prod"


def sql_prod_backups(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Production Cloud SQL instances take automated backups."""
    del type_
    if config.environment != "prod":
        return
    enabled = dig(props, "settings", "backupConfiguration", "enabled")
    if not is_unknown(enabled) and as_bool(enabled) is not True:
        yield "settings.backupConfiguration.enabled is not true in prod"


# --- BigQuery ------------------------------------------------------------------------------------
_EXPIRATIONS = ("defaultTableExpirationMs", "defaultPartitionExpirationMs")


def is_billing_export(props: Mapping[str, Any], config: PolicyConfig) -> bool:
    """True for the billing export dataset (by datasetId or its workload label)."""
    return (
        dig(props, "datasetId") == config.billing_export_dataset
        or dig(props, "labels", "workload") == "billing-export"
    )


def bigquery_dataset_expiration(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Datasets expire tables or partitions by default (except the billing export)."""
    del type_
    if is_billing_export(props, config):
        return
    values = [dig(props, key) for key in _EXPIRATIONS]
    if any(is_unknown(v) for v in values):
        return
    if not any((as_number(v) or 0) > 0 for v in values):
        yield (
            "neither defaultTableExpirationMs nor defaultPartitionExpirationMs is set: "
            "data is stored (and billed) forever"
        )


def bigquery_billing_export_retained(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """The billing export dataset never expires and survives `pulumi destroy`."""
    del type_
    if not is_billing_export(props, config):
        return
    for key in _EXPIRATIONS:
        value = as_number(dig(props, key))
        if value is not None and value > 0:
            yield f"{key} is set on the billing export dataset: billing history would expire"
    if as_bool(dig(props, "deleteContentsOnDestroy")) is True:
        yield "deleteContentsOnDestroy is true: destroying the stack would erase billing history"


def bigquery_table_partitioned(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Tables are time-partitioned so queries and expiration work per partition."""
    del type_, config
    if any(dig(props, key) for key in ("view", "materializedView", "externalDataConfiguration")):
        return  # no managed storage to partition
    partitioning = dig(props, "timePartitioning")
    if is_unknown(partitioning):
        return
    kind = dig(partitioning, "type")
    if is_unknown(kind):
        return
    if kind not in ("DAY", "HOUR", "MONTH", "YEAR"):
        yield "timePartitioning.type is not set: full-table scans on every query"


# --- budgets and billing (stack rules) -----------------------------------------------------------
def _same_topic(a: str, b: str) -> bool:
    # "projects/p/topics/t" and a bare "t" both name topic t; compare full paths when both have one.
    if "/" in a and "/" in b:
        return a == b
    return a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1]


def budget_required(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """The stack has a budget with thresholds that publishes to a Pub/Sub topic."""
    del config
    budgets = [i for i, r in enumerate(resources) if r.type == BUDGET]
    if not budgets:
        yield None, f"the stack has no {BUDGET}: nobody hears about overspend"
    for index in budgets:
        props = resources[index].props
        rules = dig(props, "thresholdRules")
        if not is_unknown(rules) and not as_list(rules):
            yield index, "thresholdRules is empty: the budget never alerts"
        topic = dig(props, "allUpdatesRule", "pubsubTopic")
        if not is_unknown(topic) and not as_str(topic):
            yield index, "allUpdatesRule.pubsubTopic is not set: automation cannot react"


def budget_topic_wired(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """When governance functions exist, a function listens on the budget's topic."""
    del config
    triggers: list[str] = []
    for resource in resources:
        if resource.type != FUNCTION:
            continue
        topic = dig(resource.props, "eventTrigger", "pubsubTopic")
        if is_unknown(topic):
            return  # cannot tell which topic the function listens on until it exists
        if as_str(topic):
            triggers.append(topic)
    if not any(r.type == FUNCTION for r in resources):
        return
    for index, resource in enumerate(resources):
        if resource.type != BUDGET:
            continue
        topic = as_str(dig(resource.props, "allUpdatesRule", "pubsubTopic"))
        if topic is None:
            continue  # missing topic is budget_required's finding; unknown cannot be judged
        if not any(_same_topic(topic, trigger) for trigger in triggers):
            yield (
                index,
                (
                    f"budget topic '{topic}' is not any function's eventTrigger.pubsubTopic: "
                    "budget alerts reach no automation"
                ),
            )


def billing_disable_not_in_prod(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """No governance function may unlink billing from a production project."""
    del type_
    raw = dig(props, "serviceConfig", "environmentVariables", "MLGOV_POLICY")
    if raw is None or is_unknown(raw):
        return
    if not isinstance(raw, str):
        yield "serviceConfig.environmentVariables.MLGOV_POLICY is not a JSON string"
        return
    try:
        policy: object = json.loads(raw)
    except ValueError:
        yield "serviceConfig.environmentVariables.MLGOV_POLICY is not valid JSON"
        return
    projects = as_mapping(dig(policy, "projects"))
    for project_id, project in sorted(projects.items()):
        if dig(project, "allow_billing_disable") is not True:
            continue
        environment = dig(project, "environment")
        if environment == "prod" or config.environment == "prod":
            yield (
                f"MLGOV_POLICY allows unlinking billing for prod project '{project_id}': that "
                "stops every service in the project"
            )


# --- functions, scheduler, IAM -------------------------------------------------------------------
_DEFAULT_SA = re.compile(
    r".*(-compute@developer\.gserviceaccount\.com|@appspot\.gserviceaccount\.com)"
)


def functions_service_account(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Functions run as a dedicated service account, never the default compute one."""
    del type_, config
    for path in (("serviceConfig", "serviceAccountEmail"), ("eventTrigger", "serviceAccountEmail")):
        email = dig(props, *path)
        where = ".".join(path)
        if is_unknown(email):
            continue
        if email is None:
            if path[0] == "serviceConfig":
                yield f"{where} is not set: the function runs as the default compute account"
            continue
        if not isinstance(email, str) or _DEFAULT_SA.fullmatch(email):
            yield f"{where} {email!r} is a default service account (Editor on the project)"


def functions_event_retry(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Event-triggered functions retry failed deliveries (v2 API default is no retry)."""
    del type_, config
    trigger = dig(props, "eventTrigger")
    if trigger is None or is_unknown(trigger):
        return
    policy = dig(trigger, "retryPolicy")
    if not is_unknown(policy) and policy != "RETRY_POLICY_RETRY":
        yield f"eventTrigger.retryPolicy is {_shown(policy)}: a failed event is dropped"


def scheduler_oidc(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Scheduler jobs calling functions or Cloud Run authenticate with an OIDC token."""
    del type_, config
    target = dig(props, "httpTarget")
    if target is None or is_unknown(target):
        return
    uri = dig(target, "uri")
    if not isinstance(uri, str) or is_unknown(uri):
        return
    host = (urlsplit(uri).hostname or "").lower()
    if host.endswith(".googleapis.com"):
        return  # Google APIs take OAuth access tokens (oauthToken) and that is correct
    oidc = dig(target, "oidcToken")
    if is_unknown(oidc):
        return
    if not as_str(dig(oidc, "serviceAccountEmail")) and not is_unknown(
        dig(oidc, "serviceAccountEmail")
    ):
        yield (
            f"httpTarget for '{host}' has no oidcToken.serviceAccountEmail: the endpoint would "
            "have to allow unauthenticated calls"
        )


PUBLIC_MEMBERS = frozenset({"allUsers", "allAuthenticatedUsers"})
_PUBLIC_MEMBERS_LOWER = frozenset(m.lower() for m in PUBLIC_MEMBERS)

IAM_MEMBER_TYPES = frozenset(
    {
        "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember",
        "gcp:cloudfunctions/functionIamMember:FunctionIamMember",
        "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
        "gcp:cloudrunv2/jobIamMember:JobIamMember",
        "gcp:storage/bucketIAMMember:BucketIAMMember",
        "gcp:bigquery/datasetIamMember:DatasetIamMember",
        "gcp:pubsub/topicIAMMember:TopicIAMMember",
        "gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember",
        PROJECT_IAM_MEMBER,
        "gcp:serviceaccount/iAMMember:IAMMember",
    }
)
IAM_BINDING_TYPES = frozenset(
    {
        "gcp:cloudfunctionsv2/functionIamBinding:FunctionIamBinding",
        "gcp:cloudfunctions/functionIamBinding:FunctionIamBinding",
        "gcp:cloudrunv2/serviceIamBinding:ServiceIamBinding",
        "gcp:cloudrunv2/jobIamBinding:JobIamBinding",
        "gcp:storage/bucketIAMBinding:BucketIAMBinding",
        "gcp:bigquery/datasetIamBinding:DatasetIamBinding",
        "gcp:pubsub/topicIAMBinding:TopicIAMBinding",
        "gcp:pubsub/subscriptionIAMBinding:SubscriptionIAMBinding",
        PROJECT_IAM_BINDING,
        "gcp:serviceaccount/iAMBinding:IAMBinding",
    }
)
IAM_POLICY_TYPES = frozenset(
    {
        "gcp:cloudfunctionsv2/functionIamPolicy:FunctionIamPolicy",
        "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy",
        "gcp:storage/bucketIAMPolicy:BucketIAMPolicy",
        "gcp:bigquery/datasetIamPolicy:DatasetIamPolicy",
        "gcp:pubsub/topicIAMPolicy:TopicIAMPolicy",
        "gcp:projects/iAMPolicy:IAMPolicy",
    }
)


def _members(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """(where, role, member) for every known member a resource grants."""
    if type_ in IAM_MEMBER_TYPES:
        member = as_str(dig(props, "member"))
        if member:
            yield "member", as_str(dig(props, "role")), member
    elif type_ in IAM_BINDING_TYPES:
        for member in as_list(dig(props, "members")):
            if as_str(member):
                yield "members", as_str(dig(props, "role")), member
    elif type_ in IAM_POLICY_TYPES:
        raw = as_str(dig(props, "policyData"))
        try:
            data: object = json.loads(raw) if raw else {}
        except ValueError:
            return
        for binding in as_list(dig(data, "bindings")):
            for member in as_list(dig(binding, "members")):
                if as_str(member):
                    yield "policyData", as_str(dig(binding, "role")), member
    elif type_ == DATASET_ACCESS:
        for key in ("iamMember", "specialGroup"):
            member = as_str(dig(props, key))
            if member:
                yield key, as_str(dig(props, "role")), member
    elif type_ == DATASET:
        for index, access in enumerate(as_list(dig(props, "accesses"))):
            for key in ("iamMember", "specialGroup"):
                member = as_str(dig(access, key))
                if member:
                    yield f"accesses[{index}].{key}", as_str(dig(access, "role")), member


def iam_no_public_members(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Nothing is granted to allUsers or allAuthenticatedUsers."""
    del config
    for where, role, member in _members(type_, props):
        if member.lower() in _PUBLIC_MEMBERS_LOWER:
            yield f"{where} grants {role or 'a role'} to '{member}': anyone can use it"


PRIMITIVE_ROLES = frozenset({"roles/owner", "roles/editor", "roles/viewer"})


def iam_no_primitive_roles(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Service accounts get narrow roles, never Owner, Editor or Viewer on the project."""
    del config
    for where, role, member in _members(type_, props):
        if role in PRIMITIVE_ROLES and member.startswith("serviceAccount:"):
            yield f"{where} grants primitive role {role} to '{member}'"


def storage_no_public_access(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Buckets enforce public access prevention and uniform bucket-level access."""
    del type_, config
    prevention = dig(props, "publicAccessPrevention")
    if not is_unknown(prevention) and prevention != "enforced":
        yield f"publicAccessPrevention is {_shown(prevention)}, not 'enforced'"
    uniform = dig(props, "uniformBucketLevelAccess")
    if not is_unknown(uniform) and as_bool(uniform) is not True:
        yield "uniformBucketLevelAccess is not true: object ACLs can make data public"
