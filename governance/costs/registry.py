"""Every resource type the estimator knows: a cost model, or a stated reason it costs nothing.

One literal table each, pre-commit style (no discovery at import). To price a new type, write
resources/<type>.py with `estimate(resource, ctx) -> Quote` (and its `*Usage` model, registered
there with `@usage_model`, if it has stack-wide usage knobs; and a `Declared` model, listed in
`DECLARED`, if a usage file can declare its usage), add one line to `PRICED`, and add its test
under tests/costs/resources/. Importing this module imports every cost file, so it is also what
makes the usage-model registry (usage_models.py) complete: `usage_models()`. A type in neither
table is unpriced (`UnknownResourceType`: no price, an advisory finding), never a silent $0.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel

from governance.costs.model import CostModel
from governance.costs.resources import (
    address,
    artifact_registry,
    bigquery,
    cloud_run,
    cluster,
    compute_instance,
    disk,
    dns,
    functions,
    functions_v1,
    images,
    instance_group,
    kms,
    load_balancing,
    logging,
    memorystore,
    monitoring,
    nat,
    node_pool,
    pubsub,
    quota_override,
    resource_policy,
    scheduler,
    secret_manager,
    service_networking,
    spend_cap,
    sql,
    storage,
    tpu_vm,
    vertex,
    vpn,
    workbench,
)
from governance.costs.usage_models import registered
from mlgov_policies import vocabulary as v

PRICED: Final[dict[str, CostModel]] = {
    v.WORKBENCH_INSTANCE: workbench.estimate,
    v.COMPUTE_INSTANCE: compute_instance.estimate,
    v.GKE_NODE_POOL: node_pool.estimate,
    v.GKE_CLUSTER: cluster.estimate,
    v.TPU_VM: tpu_vm.estimate,
    v.SQL_INSTANCE: sql.estimate,
    v.BQ_DATASET: bigquery.estimate,
    v.SCHEDULER_JOB: scheduler.estimate,
    v.PUBSUB_TOPIC: pubsub.estimate,
    v.STORAGE_BUCKET: storage.estimate,
    v.FUNCTION_V2: functions.estimate,
    v.COMPUTE_ROUTER_NAT: nat.estimate,
    v.COMPUTE_DISK: disk.estimate,
    v.COMPUTE_REGION_DISK: disk.estimate,
    v.COMPUTE_GLOBAL_ADDRESS: address.estimate,
    v.COMPUTE_ADDRESS: address.estimate,
    v.COMPUTE_SNAPSHOT: images.snapshot,
    v.COMPUTE_IMAGE: images.image,
    v.COMPUTE_INSTANCE_GROUP_MANAGER: instance_group.estimate,
    v.COMPUTE_REGION_INSTANCE_GROUP_MANAGER: instance_group.estimate,
    v.PUBSUB_SUBSCRIPTION: pubsub.subscription,
    v.FUNCTION_V1: functions_v1.estimate,
    v.CLOUD_RUN_SERVICE: cloud_run.service,
    v.CLOUD_RUN_V1_SERVICE: cloud_run.service,
    v.CLOUD_RUN_JOB: cloud_run.job,
    v.ARTIFACT_REPOSITORY: artifact_registry.estimate,
    v.QUOTA_OVERRIDE: quota_override.estimate,
    v.LOGGING_BUCKET_CONFIG: logging.bucket,
    v.LOGGING_FOLDER_BUCKET_CONFIG: logging.bucket,
    v.LOGGING_ORGANIZATION_BUCKET_CONFIG: logging.bucket,
    v.LOGGING_BILLING_ACCOUNT_BUCKET_CONFIG: logging.bucket,
    v.LOGGING_EXCLUSION: logging.exclusion,
    v.VERTEX_TENSORBOARD: vertex.tensorboard,
    v.VERTEX_METADATA_STORE: vertex.metadata_store,
    v.VERTEX_ENDPOINT: vertex.endpoint,
    v.VERTEX_MODEL_GARDEN_ENDPOINT: vertex.model_garden_endpoint,
    v.VERTEX_DEPLOYMENT_POOL: vertex.deployment_pool,
    v.VERTEX_PERSISTENT_RESOURCE: vertex.persistent_resource,
    v.REDIS_INSTANCE: memorystore.instance,
    v.REDIS_CLUSTER: memorystore.cluster,
    v.KMS_CRYPTO_KEY: kms.estimate,
    v.SECRET: secret_manager.secret,
    v.SECRET_VERSION: secret_manager.version,
    v.DNS_MANAGED_ZONE: dns.managed_zone,
    v.DNS_RECORD_SET: dns.record_set,
    v.COMPUTE_FORWARDING_RULE: load_balancing.forwarding_rule,
    v.COMPUTE_GLOBAL_FORWARDING_RULE: load_balancing.forwarding_rule,
    **dict.fromkeys(v.TARGET_PROXIES, load_balancing.target_proxy),
    v.COMPUTE_VPN_TUNNEL: vpn.tunnel,
    **dict.fromkeys(
        (v.COMPUTE_VPN_GATEWAY, v.COMPUTE_HA_VPN_GATEWAY, v.COMPUTE_EXTERNAL_VPN_GATEWAY),
        vpn.gateway,
    ),
    v.COMPUTE_MACHINE_IMAGE: images.machine_image,
    v.CONTAINER_REGISTRY: storage.registry,
    v.MONITORING_METRIC_DESCRIPTOR: monitoring.metric_descriptor,
    v.BQ_TABLE: bigquery.table,
    v.SPEND_CAP_BUDGET: spend_cap.estimate,
    v.COMPUTE_RESOURCE_POLICY: resource_policy.estimate,
    v.SERVICE_NETWORKING_CONNECTION: service_networking.estimate,
}

# Types whose usage a usage file may declare (usage_file.py): type token -> its keys' model.
DECLARED: Final[dict[str, type[BaseModel]]] = {
    v.WORKBENCH_INSTANCE: workbench.Declared,
    v.COMPUTE_INSTANCE: compute_instance.Declared,
    v.COMPUTE_INSTANCE_GROUP_MANAGER: instance_group.Declared,
    v.COMPUTE_REGION_INSTANCE_GROUP_MANAGER: instance_group.Declared,
    v.GKE_NODE_POOL: node_pool.Declared,
    v.GKE_CLUSTER: cluster.Declared,
    v.TPU_VM: tpu_vm.Declared,
    v.SQL_INSTANCE: sql.Declared,
    v.BQ_DATASET: bigquery.Declared,
    v.PUBSUB_TOPIC: pubsub.TopicDeclared,
    v.PUBSUB_SUBSCRIPTION: pubsub.SubscriptionDeclared,
    v.STORAGE_BUCKET: storage.Declared,
    v.FUNCTION_V2: functions.Declared,
    v.FUNCTION_V1: functions_v1.Declared,
    v.CLOUD_RUN_SERVICE: cloud_run.ServiceDeclared,
    v.CLOUD_RUN_V1_SERVICE: cloud_run.ServiceDeclared,
    v.CLOUD_RUN_JOB: cloud_run.JobDeclared,
    v.COMPUTE_ROUTER_NAT: nat.Declared,
    v.COMPUTE_SNAPSHOT: images.Declared,
    v.COMPUTE_IMAGE: images.Declared,
    v.LOGGING_BUCKET_CONFIG: logging.Declared,
    v.LOGGING_FOLDER_BUCKET_CONFIG: logging.Declared,
    v.LOGGING_ORGANIZATION_BUCKET_CONFIG: logging.Declared,
    v.LOGGING_BILLING_ACCOUNT_BUCKET_CONFIG: logging.Declared,
    v.REDIS_CLUSTER: memorystore.ClusterDeclared,
    v.KMS_CRYPTO_KEY: kms.Declared,
    v.SECRET: secret_manager.SecretDeclared,
    v.SECRET_VERSION: secret_manager.VersionDeclared,
    v.DNS_RECORD_SET: dns.RecordSetDeclared,
    v.COMPUTE_FORWARDING_RULE: load_balancing.RuleDeclared,
    v.COMPUTE_GLOBAL_FORWARDING_RULE: load_balancing.RuleDeclared,
    **dict.fromkeys(v.TARGET_PROXIES, load_balancing.ProxyDeclared),
    v.COMPUTE_MACHINE_IMAGE: images.Declared,
    v.CONTAINER_REGISTRY: storage.Declared,
    v.MONITORING_METRIC_DESCRIPTOR: monitoring.Declared,
    v.BQ_TABLE: bigquery.TableDeclared,
    v.ARTIFACT_REPOSITORY: artifact_registry.Declared,
    v.COMPUTE_RESOURCE_POLICY: images.Declared,
    v.VERTEX_ENDPOINT: vertex.EndpointDeclared,
    v.VERTEX_MODEL_GARDEN_ENDPOINT: vertex.NodesDeclared,
    v.VERTEX_DEPLOYMENT_POOL: vertex.NodesDeclared,
    **dict.fromkeys(
        (v.COMPUTE_VPN_GATEWAY, v.COMPUTE_HA_VPN_GATEWAY, v.COMPUTE_EXTERNAL_VPN_GATEWAY),
        vpn.Declared,
    ),
}

FREE: Final[dict[str, str]] = {
    v.COMPUTE_NETWORK: "VPC networks have no charge",
    v.COMPUTE_SUBNETWORK: "subnets have no charge (traffic is not estimated)",
    v.COMPUTE_ROUTER: "Cloud Router has no charge (NAT is priced on RouterNat)",
    v.COMPUTE_INSTANCE_TEMPLATE: "instance templates have no charge (their VMs are priced on "
    "the managed instance groups that use them)",
    v.COMPUTE_REGION_INSTANCE_TEMPLATE: "instance templates have no charge (their VMs are "
    "priced on the managed instance groups that use them)",
    v.COMPUTE_PER_INSTANCE_CONFIG: "per-instance configs have no charge (their VMs are priced "
    "on their managed instance group)",
    v.COMPUTE_REGION_PER_INSTANCE_CONFIG: "per-instance configs have no charge (their VMs are "
    "priced on their managed instance group)",
    v.SERVICE_ACCOUNT: "service accounts have no charge",
    v.SERVICE_ACCOUNT_IAM_MEMBER: "IAM bindings have no charge",
    v.PROJECT_CUSTOM_ROLE: "IAM roles have no charge",
    v.PROJECT_IAM_MEMBER: "IAM bindings have no charge",
    v.PROJECT_SERVICE: "enabling an API has no charge",
    v.FUNCTION_V2_IAM_MEMBER: "IAM bindings have no charge",
    v.CLOUD_RUN_SERVICE_IAM_MEMBER: "IAM bindings have no charge",
    v.PUBSUB_TOPIC_IAM_MEMBER: "IAM bindings have no charge",
    v.PUBSUB_SUBSCRIPTION_IAM_MEMBER: "IAM bindings have no charge",
    v.FOLDER_IAM_MEMBER: "IAM bindings have no charge",
    v.ORG_IAM_MEMBER: "IAM bindings have no charge",
    v.ORG_CUSTOM_ROLE: "IAM roles have no charge",
    v.STORAGE_BUCKET_IAM_MEMBER: "IAM bindings have no charge",
    v.BQ_DATASET_IAM_MEMBER: "IAM bindings have no charge",
    v.SQL_DATABASE: "priced on its Cloud SQL instance",
    v.SQL_USER: "priced on its Cloud SQL instance",
    v.STORAGE_BUCKET_OBJECT: "stored bytes are priced on its bucket",
    v.BUDGET: "budgets have no charge",
    v.KMS_KEY_RING: "key rings have no charge (their keys' versions are priced)",
    **dict.fromkeys(
        (
            v.LOGGING_PROJECT_SINK,
            v.LOGGING_FOLDER_SINK,
            v.LOGGING_ORGANIZATION_SINK,
            v.LOGGING_BILLING_ACCOUNT_SINK,
        ),
        "the Log Router has no charge (https://cloud.google.com/stackdriver/pricing); what a "
        "sink routes is billed where it lands (log bucket ingestion, BigQuery, Cloud Storage, "
        "Pub/Sub)",
    ),
    v.RANDOM_PASSWORD: "generated locally, not a cloud resource",
    v.STACK: "the stack itself has no charge",
}


def usage_models() -> tuple[type[BaseModel], ...]:
    """Every cost file's usage model, by place (complete: this module imported every cost file)."""
    return registered()


def free_reason(type_: str) -> str | None:
    """Why a type costs nothing, or None if it is not known to be free."""
    if type_ in FREE:
        return FREE[type_]
    if v.is_component(type_):
        return "component resource: its children are priced"
    if v.is_provider(type_):
        return "provider resource: no charge"
    return None
