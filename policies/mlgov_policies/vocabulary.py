"""The names every part of mlgov agrees on: Pulumi type tokens and the labels with a meaning.

One definition each. This package is the lowest layer (the CrossGuard pack must run on its own,
with only `policies/` on `sys.path`), so the Pulumi side (`governance`) imports these names from
here. The deployed functions cannot import anything outside `functions/`: they keep their own
copies of the label keys, pinned equal to these by a contract test.
"""

from __future__ import annotations

from typing import Final

# --- type tokens (pulumi-gcp 10.x) ---
STACK: Final = "pulumi:pulumi:Stack"
COMPONENT_PREFIX: Final = "mlgov:index:"
"""mlgov's component resources are `mlgov:index:<ClassName>` (Pulumi's component-provider rule)."""

WORKBENCH_INSTANCE: Final = "gcp:workbench/instance:Instance"
COMPUTE_INSTANCE: Final = "gcp:compute/instance:Instance"
COMPUTE_INSTANCE_TEMPLATE: Final = "gcp:compute/instanceTemplate:InstanceTemplate"
COMPUTE_REGION_INSTANCE_TEMPLATE: Final = (
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
)
COMPUTE_DISK: Final = "gcp:compute/disk:Disk"
COMPUTE_NETWORK: Final = "gcp:compute/network:Network"
COMPUTE_SUBNETWORK: Final = "gcp:compute/subnetwork:Subnetwork"
COMPUTE_ROUTER: Final = "gcp:compute/router:Router"
COMPUTE_ROUTER_NAT: Final = "gcp:compute/routerNat:RouterNat"
COMPUTE_ADDRESS: Final = "gcp:compute/address:Address"
COMPUTE_GLOBAL_ADDRESS: Final = "gcp:compute/globalAddress:GlobalAddress"
COMPUTE_RESOURCE_POLICY: Final = "gcp:compute/resourcePolicy:ResourcePolicy"
GKE_CLUSTER: Final = "gcp:container/cluster:Cluster"
GKE_NODE_POOL: Final = "gcp:container/nodePool:NodePool"
TPU_VM: Final = "gcp:tpu/v2Vm:V2Vm"
SQL_INSTANCE: Final = "gcp:sql/databaseInstance:DatabaseInstance"
SQL_DATABASE: Final = "gcp:sql/database:Database"
SQL_USER: Final = "gcp:sql/user:User"
BQ_DATASET: Final = "gcp:bigquery/dataset:Dataset"
BQ_DATASET_ACCESS: Final = "gcp:bigquery/datasetAccess:DatasetAccess"
BQ_TABLE: Final = "gcp:bigquery/table:Table"
BUDGET: Final = "gcp:billing/budget:Budget"
SPEND_CAP_BUDGET: Final = "pulumi-python:dynamic/mlgov:SpendCapBudget"
"""A Cloud Billing spend-cap budget: mlgov's own dynamic resource (pulumi-gcp has no spendCap).

Its inputs are the Budget API v1 `Budget` body plus `parent` (`billingAccounts/<id>`, the create
method's path parameter); governance/spend_caps/ owns it (docs/architecture.md#spend-caps)."""
PUBSUB_TOPIC: Final = "gcp:pubsub/topic:Topic"
PUBSUB_SUBSCRIPTION: Final = "gcp:pubsub/subscription:Subscription"
FUNCTION_V2: Final = "gcp:cloudfunctionsv2/function:Function"
SCHEDULER_JOB: Final = "gcp:cloudscheduler/job:Job"
STORAGE_BUCKET: Final = "gcp:storage/bucket:Bucket"
STORAGE_BUCKET_OBJECT: Final = "gcp:storage/bucketObject:BucketObject"
CLOUD_RUN_SERVICE: Final = "gcp:cloudrunv2/service:Service"
SERVICE_ACCOUNT: Final = "gcp:serviceaccount/account:Account"
PROJECT_CUSTOM_ROLE: Final = "gcp:projects/iAMCustomRole:IAMCustomRole"
PROJECT_IAM_MEMBER: Final = "gcp:projects/iAMMember:IAMMember"
PROJECT_IAM_BINDING: Final = "gcp:projects/iAMBinding:IAMBinding"
PROJECT_SERVICE: Final = "gcp:projects/service:Service"
RANDOM_PASSWORD: Final = "random:index/randomPassword:RandomPassword"  # noqa: S105 - a type token
PROVIDER_PREFIX: Final = "pulumi:providers:"
"""Provider resources are `pulumi:providers:<package>` (Pulumi's own token rule)."""
SERVICE_NETWORKING_CONNECTION: Final = "gcp:servicenetworking/connection:Connection"
# Artifact storage, query quotas, logging volume and Vertex AI (issue 15).
ARTIFACT_REPOSITORY: Final = "gcp:artifactregistry/repository:Repository"
QUOTA_OVERRIDE: Final = "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride"
LOGGING_EXCLUSION: Final = "gcp:logging/projectExclusion:ProjectExclusion"
LOGGING_BUCKET_CONFIG: Final = "gcp:logging/projectBucketConfig:ProjectBucketConfig"
VERTEX_ENDPOINT: Final = "gcp:vertex/aiEndpoint:AiEndpoint"
VERTEX_MODEL_GARDEN_ENDPOINT: Final = (
    "gcp:vertex/aiEndpointWithModelGardenDeployment:AiEndpointWithModelGardenDeployment"
)
VERTEX_DEPLOYMENT_POOL: Final = "gcp:vertex/aiDeploymentResourcePool:AiDeploymentResourcePool"
VERTEX_INDEX_ENDPOINT: Final = "gcp:vertex/aiIndexEndpoint:AiIndexEndpoint"
VERTEX_DEPLOYED_INDEX: Final = (
    "gcp:vertex/aiIndexEndpointDeployedIndex:AiIndexEndpointDeployedIndex"
)
VERTEX_PERSISTENT_RESOURCE: Final = "gcp:vertex/aiPersistentResource:AiPersistentResource"
VERTEX_FEATURE_ONLINE_STORE: Final = "gcp:vertex/aiFeatureOnlineStore:AiFeatureOnlineStore"
VERTEX_TENSORBOARD: Final = "gcp:vertex/aiTensorboard:AiTensorboard"
VERTEX_METADATA_STORE: Final = "gcp:vertex/aiMetadataStore:AiMetadataStore"
# What teams run beside mlgov's own resources, priced by governance/costs (issue 21).
COMPUTE_REGION_DISK: Final = "gcp:compute/regionDisk:RegionDisk"
COMPUTE_IMAGE: Final = "gcp:compute/image:Image"
COMPUTE_SNAPSHOT: Final = "gcp:compute/snapshot:Snapshot"
COMPUTE_INSTANCE_GROUP_MANAGER: Final = "gcp:compute/instanceGroupManager:InstanceGroupManager"
COMPUTE_REGION_INSTANCE_GROUP_MANAGER: Final = (
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
)
COMPUTE_PER_INSTANCE_CONFIG: Final = "gcp:compute/perInstanceConfig:PerInstanceConfig"
COMPUTE_REGION_PER_INSTANCE_CONFIG: Final = (
    "gcp:compute/regionPerInstanceConfig:RegionPerInstanceConfig"
)
FUNCTION_V1: Final = "gcp:cloudfunctions/function:Function"
CLOUD_RUN_JOB: Final = "gcp:cloudrunv2/job:Job"
CLOUD_RUN_V1_SERVICE: Final = "gcp:cloudrun/service:Service"
LOGGING_FOLDER_BUCKET_CONFIG: Final = "gcp:logging/folderBucketConfig:FolderBucketConfig"
LOGGING_ORGANIZATION_BUCKET_CONFIG: Final = (
    "gcp:logging/organizationBucketConfig:OrganizationBucketConfig"
)
LOGGING_BILLING_ACCOUNT_BUCKET_CONFIG: Final = (
    "gcp:logging/billingAccountBucketConfig:BillingAccountBucketConfig"
)
LOGGING_PROJECT_SINK: Final = "gcp:logging/projectSink:ProjectSink"
LOGGING_FOLDER_SINK: Final = "gcp:logging/folderSink:FolderSink"
LOGGING_ORGANIZATION_SINK: Final = "gcp:logging/organizationSink:OrganizationSink"
LOGGING_BILLING_ACCOUNT_SINK: Final = "gcp:logging/billingAccountSink:BillingAccountSink"
REDIS_INSTANCE: Final = "gcp:redis/instance:Instance"
REDIS_CLUSTER: Final = "gcp:redis/cluster:Cluster"
KMS_CRYPTO_KEY: Final = "gcp:kms/cryptoKey:CryptoKey"
KMS_KEY_RING: Final = "gcp:kms/keyRing:KeyRing"
SECRET: Final = "gcp:secretmanager/secret:Secret"  # noqa: S105 - a type token
SECRET_VERSION: Final = "gcp:secretmanager/secretVersion:SecretVersion"  # noqa: S105 - a type token
DNS_MANAGED_ZONE: Final = "gcp:dns/managedZone:ManagedZone"
DNS_RECORD_SET: Final = "gcp:dns/recordSet:RecordSet"
COMPUTE_FORWARDING_RULE: Final = "gcp:compute/forwardingRule:ForwardingRule"
COMPUTE_GLOBAL_FORWARDING_RULE: Final = "gcp:compute/globalForwardingRule:GlobalForwardingRule"
TARGET_PROXIES: Final = (
    "gcp:compute/targetGrpcProxy:TargetGrpcProxy",
    "gcp:compute/targetHttpProxy:TargetHttpProxy",
    "gcp:compute/targetHttpsProxy:TargetHttpsProxy",
    "gcp:compute/targetSSLProxy:TargetSSLProxy",
    "gcp:compute/targetTCPProxy:TargetTCPProxy",
    "gcp:compute/regionTargetHttpProxy:RegionTargetHttpProxy",
    "gcp:compute/regionTargetHttpsProxy:RegionTargetHttpsProxy",
    "gcp:compute/regionTargetTcpProxy:RegionTargetTcpProxy",
)
"""Load-balancer target proxies (global and regional), priced alike."""
COMPUTE_VPN_TUNNEL: Final = "gcp:compute/vPNTunnel:VPNTunnel"
COMPUTE_VPN_GATEWAY: Final = "gcp:compute/vPNGateway:VPNGateway"
COMPUTE_HA_VPN_GATEWAY: Final = "gcp:compute/haVpnGateway:HaVpnGateway"
COMPUTE_EXTERNAL_VPN_GATEWAY: Final = "gcp:compute/externalVpnGateway:ExternalVpnGateway"
COMPUTE_MACHINE_IMAGE: Final = "gcp:compute/machineImage:MachineImage"
CONTAINER_REGISTRY: Final = "gcp:container/registry:Registry"
MONITORING_METRIC_DESCRIPTOR: Final = "gcp:monitoring/metricDescriptor:MetricDescriptor"

# IAM grants: the member/binding/policy resources that can give a role to someone. The program
# creates some (function, Cloud Run, topic, bucket, dataset invokers/readers; the cost estimator
# lists those as no-charge); the IAM rules (rules/iam.py) guard all of them, since a user's own
# program may create any.
FUNCTION_V2_IAM_MEMBER: Final = "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember"
FUNCTION_V2_IAM_BINDING: Final = "gcp:cloudfunctionsv2/functionIamBinding:FunctionIamBinding"
FUNCTION_V2_IAM_POLICY: Final = "gcp:cloudfunctionsv2/functionIamPolicy:FunctionIamPolicy"
FUNCTION_V1_IAM_MEMBER: Final = "gcp:cloudfunctions/functionIamMember:FunctionIamMember"
FUNCTION_V1_IAM_BINDING: Final = "gcp:cloudfunctions/functionIamBinding:FunctionIamBinding"
CLOUD_RUN_SERVICE_IAM_MEMBER: Final = "gcp:cloudrunv2/serviceIamMember:ServiceIamMember"
CLOUD_RUN_SERVICE_IAM_BINDING: Final = "gcp:cloudrunv2/serviceIamBinding:ServiceIamBinding"
CLOUD_RUN_SERVICE_IAM_POLICY: Final = "gcp:cloudrunv2/serviceIamPolicy:ServiceIamPolicy"
CLOUD_RUN_JOB_IAM_MEMBER: Final = "gcp:cloudrunv2/jobIamMember:JobIamMember"
CLOUD_RUN_JOB_IAM_BINDING: Final = "gcp:cloudrunv2/jobIamBinding:JobIamBinding"
STORAGE_BUCKET_IAM_MEMBER: Final = "gcp:storage/bucketIAMMember:BucketIAMMember"
STORAGE_BUCKET_IAM_BINDING: Final = "gcp:storage/bucketIAMBinding:BucketIAMBinding"
STORAGE_BUCKET_IAM_POLICY: Final = "gcp:storage/bucketIAMPolicy:BucketIAMPolicy"
BQ_DATASET_IAM_MEMBER: Final = "gcp:bigquery/datasetIamMember:DatasetIamMember"
BQ_DATASET_IAM_BINDING: Final = "gcp:bigquery/datasetIamBinding:DatasetIamBinding"
BQ_DATASET_IAM_POLICY: Final = "gcp:bigquery/datasetIamPolicy:DatasetIamPolicy"
PUBSUB_TOPIC_IAM_MEMBER: Final = "gcp:pubsub/topicIAMMember:TopicIAMMember"
PUBSUB_TOPIC_IAM_BINDING: Final = "gcp:pubsub/topicIAMBinding:TopicIAMBinding"
PUBSUB_TOPIC_IAM_POLICY: Final = "gcp:pubsub/topicIAMPolicy:TopicIAMPolicy"
PUBSUB_SUBSCRIPTION_IAM_MEMBER: Final = "gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember"
PUBSUB_SUBSCRIPTION_IAM_BINDING: Final = "gcp:pubsub/subscriptionIAMBinding:SubscriptionIAMBinding"
PROJECT_IAM_POLICY: Final = "gcp:projects/iAMPolicy:IAMPolicy"
SERVICE_ACCOUNT_IAM_MEMBER: Final = "gcp:serviceaccount/iAMMember:IAMMember"
SERVICE_ACCOUNT_IAM_BINDING: Final = "gcp:serviceaccount/iAMBinding:IAMBinding"
# Grants above the project: on a folder or an organization, every project below inherits them.
FOLDER_IAM_MEMBER: Final = "gcp:folder/iAMMember:IAMMember"
FOLDER_IAM_BINDING: Final = "gcp:folder/iAMBinding:IAMBinding"
FOLDER_IAM_POLICY: Final = "gcp:folder/iAMPolicy:IAMPolicy"
ORG_IAM_MEMBER: Final = "gcp:organizations/iAMMember:IAMMember"
ORG_IAM_BINDING: Final = "gcp:organizations/iAMBinding:IAMBinding"
ORG_IAM_POLICY: Final = "gcp:organizations/iAMPolicy:IAMPolicy"
ORG_CUSTOM_ROLE: Final = "gcp:organizations/iAMCustomRole:IAMCustomRole"


def is_component(type_: str) -> bool:
    """Whether a type token names one of mlgov's component resources (no cloud cost of its own)."""
    return type_.startswith(COMPONENT_PREFIX)


def is_provider(type_: str) -> bool:
    """Whether a type token names a Pulumi provider resource (no cloud cost of its own)."""
    return type_.startswith(PROVIDER_PREFIX)


def component_type(class_name: str) -> str:
    """The type token of an mlgov component class: `mlgov:index:<ClassName>`."""
    return f"{COMPONENT_PREFIX}{class_name}"


# --- labels with a meaning (docs/architecture.md#labels) ---
REQUIRED_LABELS: Final = ("team", "env", "cost-center", "workload", "managed-by")
"""Cost attribution: every labelable resource carries these."""
EXEMPT_LABEL: Final = "mlgov-exempt"
"""`mlgov-exempt: "true"`: automation never stops or changes the resource."""
EXEMPT_VALUE: Final = "true"
EXPIRES_LABEL: Final = "mlgov-expires-on"
"""`mlgov-expires-on: "YYYY-MM-DD"`: `reap_expired` stops the resource after that date."""
UNDEPLOY_LABEL: Final = "mlgov-undeploy-at-cap"
"""`mlgov-undeploy-at-cap: "true"` on a Vertex AI endpoint: the budget cap may undeploy its models
(only where the stack opts in too, `automation.undeploy_endpoints_at_cap`)."""
UNDEPLOY_VALUE: Final = "true"
MANAGED_BY: Final = "mlgov"
"""The value of the `managed-by` label on everything mlgov creates."""

# --- meaningful values the program writes and the rules recognise ---
BUDGET_PUBLISHER: Final = "serviceAccount:billing-budget-alert@system.gserviceaccount.com"
"""Who publishes budget notifications: Cloud Billing's Google-managed account. Connecting a topic
to a budget grants it `roles/pubsub.publisher` on the topic (the caller needs
`pubsub.topics.setIamPolicy` for that: Budget API `NotificationsRule.pubsubTopic`); the budget
topic should have no other publisher (rule `mlgov-billing-budget-topic-publisher`)."""
WORKLOAD_LABEL: Final = "workload"
"""The required label that names what a resource is for (one of REQUIRED_LABELS)."""
BILLING_EXPORT_WORKLOAD: Final = "billing-export"
"""`workload` of the billing export dataset: BillingExport sets it, the expiry rules spare it."""
BQ_QUERY_QUOTA_METRIC: Final = "bigquery.googleapis.com/quota/query/usage"
"""BigQuery's daily query-bytes quota (MiB), as Service Usage names the metric
(https://cloud.google.com/bigquery/docs/custom-quotas; serviceusage v1beta1 consumerQuotaMetrics).
pulumi-gcp takes metric and limit URL-encoded (`%2F` for `/`)."""
BQ_QUERY_QUOTA_PROJECT_LIMIT: Final = "/d/project"
"""The per-project daily limit (the console's QueryUsagePerDay)."""
BQ_QUERY_QUOTA_USER_LIMIT: Final = "/d/project/user"
"""The per-user daily limit (the console's QueryUsagePerUserPerDay)."""
WORKBENCH_IDLE_TIMEOUT_KEY: Final = "idle-timeout-seconds"
"""Workbench `gceSetup.metadata` key: idle shutdown after this many seconds (a string)."""
WORKBENCH_GUEST_ATTRIBUTES_KEY: Final = "enable-guest-attributes"
"""Workbench `gceSetup.metadata` key: "TRUE" lets idle shutdown see activity."""
WORKBENCH_DISABLE_ROOT_KEY: Final = "notebook-disable-root"
"""Workbench `gceSetup.metadata` key: "true" takes root (sudo) away from notebook users."""
ROOT_ACCESS_LABEL: Final = "mlgov-root-access"
"""`mlgov-root-access: "true"`: the notebook deliberately keeps root access (the opt-in the
Workbench root-access rule accepts)."""
ROOT_ACCESS_VALUE: Final = "true"
GPU_DRIVER_METADATA_KEY: Final = "install-nvidia-driver"
"""VM and Workbench metadata key: "True" has the Deep Learning VM image install the GPU driver."""
