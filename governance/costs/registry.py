"""Every resource type the estimator knows: a cost model, or a stated reason it costs nothing.

One literal table each, pre-commit style (no discovery at import). To price a new type, write
resources/<type>.py with `estimate(resource, ctx) -> Quote` (and its `*Usage` model, composed in
assumptions.py, if it has usage knobs), add one line to `PRICED`, and add its test under
tests/costs/resources/. A type in neither table is unpriced (`UnknownResourceType`: no price,
an advisory finding), never a silent $0.
"""

from __future__ import annotations

from typing import Final

from governance.costs.model import CostModel
from governance.costs.resources import (
    address,
    artifact_registry,
    bigquery,
    cluster,
    compute_instance,
    disk,
    functions,
    logging,
    nat,
    node_pool,
    pubsub,
    quota_override,
    scheduler,
    spend_cap,
    sql,
    storage,
    tpu_vm,
    vertex,
    workbench,
)
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
    v.COMPUTE_GLOBAL_ADDRESS: address.estimate,
    v.ARTIFACT_REPOSITORY: artifact_registry.estimate,
    v.QUOTA_OVERRIDE: quota_override.estimate,
    v.LOGGING_BUCKET_CONFIG: logging.bucket,
    v.LOGGING_EXCLUSION: logging.exclusion,
    v.VERTEX_TENSORBOARD: vertex.tensorboard,
    v.VERTEX_METADATA_STORE: vertex.metadata_store,
    v.SPEND_CAP_BUDGET: spend_cap.estimate,
}

FREE: Final[dict[str, str]] = {
    v.COMPUTE_NETWORK: "VPC networks have no charge",
    v.COMPUTE_SUBNETWORK: "subnets have no charge (traffic is not estimated)",
    v.COMPUTE_ROUTER: "Cloud Router has no charge (NAT is priced on RouterNat)",
    v.COMPUTE_RESOURCE_POLICY: "instance schedules have no charge",
    v.SERVICE_NETWORKING_CONNECTION: "private service access has no charge",
    v.SERVICE_ACCOUNT: "service accounts have no charge",
    v.SERVICE_ACCOUNT_IAM_MEMBER: "IAM bindings have no charge",
    v.PROJECT_CUSTOM_ROLE: "IAM roles have no charge",
    v.PROJECT_IAM_MEMBER: "IAM bindings have no charge",
    v.PROJECT_SERVICE: "enabling an API has no charge",
    v.FUNCTION_V2_IAM_MEMBER: "IAM bindings have no charge",
    v.CLOUD_RUN_SERVICE_IAM_MEMBER: "IAM bindings have no charge",
    v.PUBSUB_TOPIC_IAM_MEMBER: "IAM bindings have no charge",
    v.STORAGE_BUCKET_IAM_MEMBER: "IAM bindings have no charge",
    v.BQ_DATASET_IAM_MEMBER: "IAM bindings have no charge",
    v.SQL_DATABASE: "priced on its Cloud SQL instance",
    v.SQL_USER: "priced on its Cloud SQL instance",
    v.BQ_TABLE: "stored bytes are priced on its dataset (ingest is per dataset)",
    v.STORAGE_BUCKET_OBJECT: "stored bytes are priced on its bucket",
    v.BUDGET: "budgets have no charge",
    v.RANDOM_PASSWORD: "generated locally, not a cloud resource",
    v.STACK: "the stack itself has no charge",
}


def free_reason(type_: str) -> str | None:
    """Why a type costs nothing, or None if it is not known to be free."""
    if type_ in FREE:
        return FREE[type_]
    if v.is_component(type_):
        return "component resource: its children are priced"
    if v.is_provider(type_):
        return "provider resource: no charge"
    return None
