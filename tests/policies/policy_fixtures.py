"""A known-good mlgov stack (one resource per type, shapes from the program's RESOURCES list).

Every mutation case in test_policy_rules.py starts from a deep copy of GOOD_STACK and changes one
property, so each case shows exactly which input a rule reacts to.
"""

from __future__ import annotations

import copy
import json
from typing import Any

PROJECT = "acme-ml-prod"
REGION = "us-central1"
TOPIC = f"projects/{PROJECT}/topics/acme-prod-budget-topic"
NODES_SA = "acme-prod-gke-nodes@acme-ml-prod.iam.gserviceaccount.com"
GOV_SA = "acme-prod-gov@acme-ml-prod.iam.gserviceaccount.com"
WORK_TOPIC = f"projects/{PROJECT}/topics/acme-prod-work"
FOLDER = "folders/111222"
ORG_ID = "456789"

PROD_CONFIG: dict[str, Any] = {
    "environment": "prod",
    "region": REGION,
    "max_idle_minutes": 120,
    "notebook_machine_types": ["e2-standard-4", "n1-standard-8"],
    "notebook_gpu_types": ["NVIDIA_TESLA_T4"],
    "sql_tiers": ["db-custom-1-3840", "db-custom-2-7680"],
    "vertex_serving_gpu_types": ["NVIDIA_L4"],
    "max_log_retention_days": 90,
}


def labels(workload: str) -> dict[str, str]:
    return {
        "team": "research",
        "env": "prod",
        "cost-center": "cc-1234",
        "workload": workload,
        "managed-by": "mlgov",
    }


POLICY_JSON = json.dumps(
    {
        "dry_run": False,
        "exempt_label": {"key": "mlgov-exempt", "value": "true"},
        "projects": {
            PROJECT: {
                "environment": "prod",
                "zones": ["us-central1-a"],
                "allow_billing_disable": False,
            }
        },
        "budgets": {"b-1": {"projects": [PROJECT], "stop_at": 1.0, "disable_billing_at": 1.2}},
        "scopes": {FOLDER: {"environment": "prod", "allow_billing_disable": False}},
    }
)

_GOOD: list[dict[str, Any]] = [
    {
        "type": "gcp:compute/network:Network",
        "name": "net",
        "inputs": {"name": "acme-prod-net", "project": PROJECT, "autoCreateSubnetworks": False},
    },
    {
        "type": "gcp:compute/subnetwork:Subnetwork",
        "name": "subnet",
        "inputs": {
            "name": "acme-prod-subnet",
            "region": REGION,
            "network": "acme-prod-net",
            "ipCidrRange": "10.0.0.0/20",
            "privateIpGoogleAccess": True,
        },
    },
    {
        "type": "gcp:compute/router:Router",
        "name": "router",
        "inputs": {"name": "acme-prod-router", "region": REGION, "network": "acme-prod-net"},
    },
    {
        "type": "gcp:compute/routerNat:RouterNat",
        "name": "nat",
        "inputs": {
            "name": "acme-prod-nat",
            "region": REGION,
            "router": "acme-prod-router",
            "natIpAllocateOption": "AUTO_ONLY",
            "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES",
        },
    },
    {
        "type": "gcp:compute/globalAddress:GlobalAddress",
        "name": "peering-range",
        "inputs": {
            "name": "acme-prod-peering",
            "purpose": "VPC_PEERING",
            "addressType": "INTERNAL",
            "prefixLength": 16.0,
            "network": "acme-prod-net",
            "labels": labels("network"),
        },
    },
    {
        "type": "gcp:workbench/instance:Instance",
        "name": "nb-alice",
        "inputs": {
            "name": "acme-prod-nb-alice",
            "project": PROJECT,
            "location": "us-central1-a",
            "labels": labels("notebook"),
            "disableProxyAccess": False,
            "gceSetup": {
                "machineType": "n1-standard-8",
                "acceleratorConfigs": [{"type": "NVIDIA_TESLA_T4", "coreCount": "1"}],
                "disablePublicIp": True,
                "networkInterfaces": [{"network": "acme-prod-net", "subnet": "acme-prod-subnet"}],
                "metadata": {
                    "idle-timeout-seconds": "3600",
                    "enable-guest-attributes": "TRUE",
                    "notebook-disable-root": "true",
                    "install-nvidia-driver": "True",
                },
                "bootDisk": {"diskSizeGb": "150", "diskType": "PD_BALANCED"},
                "serviceAccounts": [{"email": "nb@acme-ml-prod.iam.gserviceaccount.com"}],
            },
        },
    },
    {
        "type": "gcp:cloudscheduler/job:Job",
        "name": "nb-alice-stop",
        "inputs": {
            "name": "acme-prod-nb-alice-stop",
            "region": REGION,
            "schedule": "0 19 * * 1-5",
            "timeZone": "Europe/Berlin",
            "httpTarget": {
                "uri": f"https://notebooks.googleapis.com/v2/projects/{PROJECT}/locations/"
                "us-central1-a/instances/acme-prod-nb-alice:stop",
                "httpMethod": "POST",
                "oauthToken": {"serviceAccountEmail": "sched@acme.iam.gserviceaccount.com"},
            },
        },
    },
    {
        "type": "gcp:cloudscheduler/job:Job",
        "name": "reap-idle",
        "inputs": {
            "name": "acme-prod-reap-idle",
            "region": REGION,
            "schedule": "*/30 * * * *",
            "httpTarget": {
                "uri": "https://acme-prod-reap-idle-abc123-uc.a.run.app",
                "httpMethod": "POST",
                "oidcToken": {
                    "serviceAccountEmail": "sched@acme.iam.gserviceaccount.com",
                    "audience": "https://acme-prod-reap-idle-abc123-uc.a.run.app",
                },
            },
        },
    },
    {
        "type": "gcp:serviceaccount/account:Account",
        "name": "gov-sa",
        "inputs": {"accountId": "acme-prod-gov", "displayName": "governance", "project": PROJECT},
    },
    {
        "type": "gcp:projects/iAMCustomRole:IAMCustomRole",
        "name": "gov-role",
        "inputs": {
            "roleId": "acmeProdGov",
            "title": "governance",
            "permissions": ["compute.instances.stop"],
            "project": PROJECT,
            "stage": "GA",
        },
    },
    {
        "type": "gcp:projects/iAMMember:IAMMember",
        "name": "gov-role-binding",
        "inputs": {
            "project": PROJECT,
            "role": f"projects/{PROJECT}/roles/acmeProdGov",
            "member": "serviceAccount:acme-prod-gov@acme-ml-prod.iam.gserviceaccount.com",
        },
    },
    {
        "type": "gcp:container/cluster:Cluster",
        "name": "gke",
        "inputs": {
            "name": "acme-prod-gke",
            "project": PROJECT,
            "location": REGION,
            "removeDefaultNodePool": True,
            "initialNodeCount": 1.0,
            "deletionProtection": True,
            "networkingMode": "VPC_NATIVE",
            "privateClusterConfig": {
                "enablePrivateNodes": True,
                "enablePrivateEndpoint": True,
                "masterIpv4CidrBlock": "172.16.0.32/28",
            },
            "controlPlaneEndpointsConfig": {"dnsEndpointConfig": {"allowExternalTraffic": True}},
            "costManagementConfig": {"enabled": True},
            "resourceLabels": labels("gke"),
            "clusterAutoscaling": {
                "enabled": True,
                "autoscalingProfile": "OPTIMIZE_UTILIZATION",
                "autoProvisioningDefaults": {"serviceAccount": NODES_SA},
                "resourceLimits": [
                    {"resourceType": "cpu", "minimum": 0.0, "maximum": 64.0},
                    {"resourceType": "memory", "minimum": 0.0, "maximum": 256.0},
                    {"resourceType": "nvidia-tesla-t4", "minimum": 0.0, "maximum": 4.0},
                ],
            },
        },
    },
    {
        "type": "gcp:container/nodePool:NodePool",
        "name": "gpu-pool",
        "inputs": {
            "name": "acme-prod-t4-spot",
            "cluster": "acme-prod-gke",
            "location": REGION,
            "nodeLocations": ["us-central1-a", "us-central1-b"],
            "initialNodeCount": 0.0,
            "autoscaling": {
                "totalMinNodeCount": 0.0,
                "totalMaxNodeCount": 4.0,
                "locationPolicy": "ANY",
            },
            "nodeConfig": {
                "machineType": "n1-standard-8",
                "spot": True,
                "serviceAccount": NODES_SA,
                "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}],
                "resourceLabels": labels("training"),
                "labels": {"mlgov.io/workload": "training"},
            },
        },
    },
    {
        "type": "gcp:container/nodePool:NodePool",
        "name": "system-pool",
        "inputs": {
            "name": "acme-prod-system",
            "cluster": "acme-prod-gke",
            "location": REGION,
            "initialNodeCount": 1.0,
            "autoscaling": {"totalMinNodeCount": 1.0, "totalMaxNodeCount": 3.0},
            "nodeConfig": {
                "machineType": "e2-standard-4",
                "spot": False,
                "serviceAccount": NODES_SA,
                "resourceLabels": labels("gke"),
            },
        },
    },
    {
        "type": "gcp:tpu/v2Vm:V2Vm",
        "name": "tpu",
        "inputs": {
            "name": "acme-prod-tpu",
            "zone": "us-central1-a",
            "acceleratorType": "v5litepod-8",
            "runtimeVersion": "v2-alpha-tpuv5-lite",
            "schedulingConfig": {"spot": True},
            "serviceAccount": {
                "email": "acme-prod-training-tpus@acme-ml-prod.iam.gserviceaccount.com"
            },
            "networkConfig": {"enableExternalIps": False},
            "labels": labels("training"),
        },
    },
    {
        "type": "gcp:compute/instance:Instance",
        "name": "gpu-vm",
        "inputs": {
            "name": "acme-prod-gpu-vm",
            "zone": "us-central1-b",
            "machineType": "g2-standard-8",
            "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0}],
            "scheduling": {
                "provisioningModel": "SPOT",
                "preemptible": True,
                "automaticRestart": False,
                "onHostMaintenance": "TERMINATE",
                "instanceTerminationAction": "STOP",
                "maxRunDuration": {"seconds": 28800.0},
            },
            "bootDisk": {
                "initializeParams": {
                    "image": "deeplearning-platform-release/common-cu121",
                    "size": 200.0,
                    "type": "pd-balanced",
                    "labels": labels("training"),
                }
            },
            "networkInterfaces": [{"network": "acme-prod-net", "subnetwork": "acme-prod-subnet"}],
            "serviceAccount": {
                "email": "acme-prod-training-vms@acme-ml-prod.iam.gserviceaccount.com",
                "scopes": ["https://www.googleapis.com/auth/cloud-platform"],
            },
            "labels": labels("training"),
        },
    },
    {
        "type": "gcp:sql/databaseInstance:DatabaseInstance",
        "name": "metadata-db",
        "inputs": {
            "name": "acme-prod-metadata",
            "region": REGION,
            "databaseVersion": "POSTGRES_15",
            "deletionProtection": True,
            "settings": {
                "tier": "db-custom-2-7680",
                "edition": "ENTERPRISE",
                "availabilityType": "REGIONAL",
                "deletionProtectionEnabled": True,
                "userLabels": labels("metadata"),
                "ipConfiguration": {
                    "ipv4Enabled": False,
                    "privateNetwork": "acme-prod-net",
                    "sslMode": "ENCRYPTED_ONLY",
                    "authorizedNetworks": [],
                },
                "backupConfiguration": {"enabled": True, "pointInTimeRecoveryEnabled": True},
            },
        },
    },
    {
        "type": "gcp:sql/database:Database",
        "name": "metadata",
        "inputs": {"name": "mlmd", "instance": "acme-prod-metadata"},
    },
    {
        "type": "gcp:sql/user:User",
        "name": "metadata-user",
        "inputs": {"name": "mlmd", "instance": "acme-prod-metadata", "password": "[secret]"},
    },
    {
        "type": "random:index/randomPassword:RandomPassword",
        "name": "metadata-password",
        "inputs": {"length": 32.0, "special": False},
    },
    {
        "type": "gcp:bigquery/dataset:Dataset",
        "name": "features",
        "inputs": {
            "datasetId": "features",
            "project": PROJECT,
            "location": REGION,
            "defaultTableExpirationMs": "7776000000",
            "deleteContentsOnDestroy": False,
            "labels": labels("data"),
        },
    },
    {
        "type": "gcp:bigquery/dataset:Dataset",
        "name": "billing-export",
        "inputs": {
            "datasetId": "billing_export",
            "project": PROJECT,
            "location": REGION,
            "deleteContentsOnDestroy": False,
            "labels": labels("billing-export"),
        },
    },
    {
        "type": "gcp:bigquery/table:Table",
        "name": "events",
        "inputs": {
            "datasetId": "features",
            "tableId": "events",
            "project": PROJECT,
            "timePartitioning": {"type": "DAY", "field": "ts", "expirationMs": 2592000000.0},
            "schema": '[{"mode": "REQUIRED", "name": "ts", "type": "TIMESTAMP"}]',
            "requirePartitionFilter": True,
            "labels": labels("data"),
        },
    },
    {
        "type": "gcp:pubsub/topic:Topic",
        "name": "budget-topic",
        "inputs": {
            "name": "acme-prod-budget-topic",
            "project": PROJECT,
            "labels": labels("budget"),
        },
    },
    {
        "type": "gcp:billing/budget:Budget",
        "name": "budget",
        "inputs": {
            "billingAccount": "000000-AAAAAA-BBBBBB",
            "displayName": "acme-prod",
            "budgetFilter": {"projects": ["projects/123456789012"], "calendarPeriod": "MONTH"},
            "amount": {"specifiedAmount": {"currencyCode": "USD", "units": "5000"}},
            "thresholdRules": [
                {"thresholdPercent": 0.5, "spendBasis": "CURRENT_SPEND"},
                {"thresholdPercent": 1.0, "spendBasis": "FORECASTED_SPEND"},
            ],
            "allUpdatesRule": {"pubsubTopic": TOPIC, "schemaVersion": "1.0"},
        },
    },
    # A spend cap on Vertex AI (the Budget API v1 body mlgov renders) and its alerts-only pair.
    {
        "type": "pulumi-python:dynamic/mlgov:SpendCapBudget",
        "name": "spend-cap",
        "inputs": {
            "parent": "billingAccounts/000000-AAAAAA-BBBBBB",
            "displayName": "acme-prod-cap-vertex-ai",
            "budgetFilter": {
                "projects": ["projects/123456789012"],
                "services": ["services/C7E2-9256-1C43"],
                "creditTypesTreatment": "EXCLUDE_ALL_CREDITS",
                "calendarPeriod": "MONTH",
            },
            "amount": {"specifiedAmount": {"units": "2000"}},
            "thresholdRules": [
                {"thresholdPercent": 0.5, "spendBasis": "CURRENT_SPEND"},
                {"thresholdPercent": 0.8, "spendBasis": "CURRENT_SPEND"},
                {"thresholdPercent": 1.0, "spendBasis": "CURRENT_SPEND"},
            ],
            "notificationsRule": {"enableProjectLevelRecipients": True},
            "ownershipScope": "ALL_USERS",
            "spendCap": {"inputState": "CONFIGURED"},
        },
    },
    {
        "type": "gcp:billing/budget:Budget",
        "name": "spend-cap-alerts",
        "inputs": {
            "billingAccount": "000000-AAAAAA-BBBBBB",
            "displayName": "acme-prod-cap-vertex-ai-alerts",
            "budgetFilter": {
                "projects": ["projects/123456789012"],
                "services": ["services/C7E2-9256-1C43"],
                "creditTypesTreatment": "EXCLUDE_ALL_CREDITS",
                "calendarPeriod": "MONTH",
            },
            "amount": {"specifiedAmount": {"units": "2000"}},
            "thresholdRules": [
                {"thresholdPercent": 0.5, "spendBasis": "CURRENT_SPEND"},
                {"thresholdPercent": 0.8, "spendBasis": "CURRENT_SPEND"},
                {"thresholdPercent": 1.0, "spendBasis": "CURRENT_SPEND"},
            ],
            "allUpdatesRule": {"pubsubTopic": TOPIC, "schemaVersion": "1.0"},
        },
    },
    {
        "type": "gcp:storage/bucket:Bucket",
        "name": "source",
        "inputs": {
            "name": "acme-prod-fn-source",
            "location": "US-CENTRAL1",
            "uniformBucketLevelAccess": True,
            "publicAccessPrevention": "enforced",
            "versioning": {"enabled": True},
            "lifecycleRules": [
                {
                    "action": {"type": "Delete"},
                    "condition": {"withState": "ARCHIVED", "daysSinceNoncurrentTime": 30.0},
                },
                {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 1.0}},
            ],
            "labels": labels("governance"),
        },
    },
    {
        "type": "gcp:storage/bucketObject:BucketObject",
        "name": "source-archive",
        "inputs": {"bucket": "acme-prod-fn-source", "name": "functions.zip"},
    },
    {
        "type": "gcp:cloudfunctionsv2/function:Function",
        "name": "budget-fn",
        "inputs": {
            "name": "acme-prod-on-budget-alert",
            "location": REGION,
            "labels": labels("governance"),
            "buildConfig": {
                "runtime": "python311",
                "entryPoint": "on_budget_alert",
                "source": {
                    "storageSource": {"bucket": "acme-prod-fn-source", "object": "functions.zip"}
                },
            },
            "serviceConfig": {
                "serviceAccountEmail": "acme-prod-gov@acme-ml-prod.iam.gserviceaccount.com",
                "environmentVariables": {"MLGOV_POLICY": POLICY_JSON},
                "maxInstanceCount": 1.0,
                "ingressSettings": "ALLOW_INTERNAL_ONLY",
            },
            "eventTrigger": {
                "eventType": "google.cloud.pubsub.topic.v1.messagePublished",
                "pubsubTopic": TOPIC,
                "retryPolicy": "RETRY_POLICY_RETRY",
                "serviceAccountEmail": "acme-prod-gov@acme-ml-prod.iam.gserviceaccount.com",
                "triggerRegion": REGION,
            },
        },
    },
    {
        "type": "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember",
        "name": "reap-invoker",
        "inputs": {
            "cloudFunction": "acme-prod-reap-idle",
            "role": "roles/cloudfunctions.invoker",
            "member": "serviceAccount:sched@acme.iam.gserviceaccount.com",
        },
    },
    {
        "type": "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
        "name": "reap-run-invoker",
        "inputs": {
            "name": "acme-prod-reap-idle",
            "role": "roles/run.invoker",
            "member": "serviceAccount:sched@acme.iam.gserviceaccount.com",
        },
    },
    {
        "type": "gcp:pubsub/topicIAMMember:TopicIAMMember",
        "name": "budget-publisher",
        "inputs": {
            "topic": TOPIC,
            "role": "roles/pubsub.publisher",
            "member": "serviceAccount:billing-budget-alert@system.gserviceaccount.com",
        },
    },
    {
        "type": "gcp:pubsub/topic:Topic",
        "name": "work-topic",
        "inputs": {"name": "acme-prod-work", "project": PROJECT, "labels": labels("governance")},
    },
    # The fan-out work topic and its one publisher grant; no function names it in
    # MLGOV_WORK_TOPIC here (test_rules_pubsub.py's cases turn fan-out on).
    {
        "type": "gcp:pubsub/topicIAMMember:TopicIAMMember",
        "name": "work-publisher",
        "inputs": {
            "project": PROJECT,
            "topic": "acme-prod-work",
            "role": "roles/pubsub.publisher",
            "member": f"serviceAccount:{GOV_SA}",
        },
    },
    {
        "type": "gcp:organizations/iAMCustomRole:IAMCustomRole",
        "name": "work-role",
        "inputs": {
            "orgId": ORG_ID,
            "roleId": "acme_prod_fn_work",
            "title": "mlgov functions: act on one project of a scope",
            "permissions": ["compute.instances.list", "compute.instances.stop"],
            "stage": "GA",
        },
    },
    {
        "type": "gcp:folder/iAMMember:IAMMember",
        "name": "work-folder-grant",
        "inputs": {
            "folder": FOLDER,
            "role": f"organizations/{ORG_ID}/roles/acme_prod_fn_work",
            "member": f"serviceAccount:{GOV_SA}",
        },
    },
    {
        "type": "gcp:storage/bucketIAMMember:BucketIAMMember",
        "name": "source-reader",
        "inputs": {
            "bucket": "acme-prod-fn-source",
            "role": "roles/storage.objectViewer",
            "member": "serviceAccount:build@acme.iam.gserviceaccount.com",
        },
    },
    {
        "type": "gcp:bigquery/datasetIamMember:DatasetIamMember",
        "name": "features-reader",
        "inputs": {
            "datasetId": "features",
            "role": "roles/bigquery.dataViewer",
            "member": "group:ml@acme.example",
        },
    },
    {
        "type": "gcp:bigquery/datasetAccess:DatasetAccess",
        "name": "features-owners",
        "inputs": {"datasetId": "features", "role": "OWNER", "specialGroup": "projectOwners"},
    },
    {
        "type": "gcp:storage/bucketIAMBinding:BucketIAMBinding",
        "name": "source-binding",
        "inputs": {
            "bucket": "acme-prod-fn-source",
            "role": "roles/storage.objectViewer",
            "members": ["serviceAccount:build@acme.iam.gserviceaccount.com"],
        },
    },
    {
        "type": "gcp:projects/iAMBinding:IAMBinding",
        "name": "log-writers",
        "inputs": {
            "project": PROJECT,
            "role": "roles/logging.logWriter",
            "members": ["serviceAccount:acme-prod-gov@acme-ml-prod.iam.gserviceaccount.com"],
        },
    },
    {
        "type": "gcp:artifactregistry/repository:Repository",
        "name": "images",
        "inputs": {
            "repositoryId": "acme-prod-images",
            "location": REGION,
            "format": "DOCKER",
            "cleanupPolicies": [
                {"id": "keep", "action": "KEEP", "mostRecentVersions": {"keepCount": 10.0}},
                {
                    "id": "untagged",
                    "action": "DELETE",
                    "condition": {"tagState": "UNTAGGED", "olderThan": "604800s"},
                },
            ],
            "cleanupPolicyDryRun": False,
            "labels": labels("artifacts"),
        },
    },
    {
        "type": "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride",
        "name": "query-quota",
        "inputs": {
            "project": PROJECT,
            "service": "bigquery.googleapis.com",
            "metric": "bigquery.googleapis.com%2Fquota%2Fquery%2Fusage",
            "limit": "%2Fd%2Fproject",
            "overrideValue": "10485760",
            "force": True,
        },
    },
    {
        "type": "gcp:logging/projectBucketConfig:ProjectBucketConfig",
        "name": "default-logs",
        "inputs": {
            "project": PROJECT,
            "location": "global",
            "bucketId": "_Default",
            "retentionDays": 30.0,
        },
    },
    {
        "type": "gcp:logging/projectExclusion:ProjectExclusion",
        "name": "exclude-gke-info",
        "inputs": {
            "name": "acme-prod-exclude-gke-info",
            "filter": 'resource.type="k8s_container" AND severity<=INFO',
        },
    },
    {
        "type": "gcp:vertex/aiEndpoint:AiEndpoint",
        "name": "endpoint",
        "inputs": {
            "name": "fraud",
            "displayName": "fraud",
            "location": REGION,
            "labels": labels("serving"),
        },
    },
    {
        "type": "gcp:vertex/aiEndpointWithModelGardenDeployment:AiEndpointWithModelGardenDeployment",
        "name": "gemma",
        "inputs": {
            "location": REGION,
            "publisherModelName": "publishers/google/models/gemma3@gemma-3-1b-it",
            "deployConfig": {
                "dedicatedResources": {
                    "machineSpec": {"machineType": "n1-standard-8"},
                    "minReplicaCount": 1.0,
                    "maxReplicaCount": 3.0,
                }
            },
        },
    },
    {
        "type": "gcp:vertex/aiDeploymentResourcePool:AiDeploymentResourcePool",
        "name": "pool",
        "inputs": {
            "name": "shared-cpu",
            "region": REGION,
            "dedicatedResources": {
                "machineSpec": {"machineType": "n1-standard-4"},
                "minReplicaCount": 1.0,
                "maxReplicaCount": 2.0,
            },
        },
    },
    {
        "type": "gcp:vertex/aiIndexEndpoint:AiIndexEndpoint",
        "name": "index-endpoint",
        "inputs": {
            "displayName": "search",
            "region": REGION,
            "publicEndpointEnabled": True,
            "labels": labels("serving"),
        },
    },
    {
        "type": "gcp:vertex/aiIndexEndpointDeployedIndex:AiIndexEndpointDeployedIndex",
        "name": "deployed-index",
        "inputs": {
            "deployedIndexId": "products",
            "index": f"projects/{PROJECT}/locations/{REGION}/indexes/1",
            "indexEndpoint": f"projects/{PROJECT}/locations/{REGION}/indexEndpoints/2",
            "region": REGION,
            "dedicatedResources": {
                "machineSpec": {"machineType": "e2-standard-16"},
                "minReplicaCount": 1.0,
                "maxReplicaCount": 2.0,
            },
        },
    },
    {
        "type": "gcp:vertex/aiPersistentResource:AiPersistentResource",
        "name": "train-cluster",
        "inputs": {
            "name": "train",
            "location": REGION,
            "resourcePools": [
                {
                    "machineSpec": {"machineType": "n1-standard-4"},
                    "replicaCount": 1.0,
                    "autoscalingSpec": {"minReplicaCount": 1.0, "maxReplicaCount": 4.0},
                }
            ],
            "labels": labels("training"),
        },
    },
    {
        "type": "gcp:vertex/aiFeatureOnlineStore:AiFeatureOnlineStore",
        "name": "online-store",
        "inputs": {
            "name": "features",
            "region": REGION,
            "bigtable": {
                "autoScaling": {
                    "minNodeCount": 1.0,
                    "maxNodeCount": 3.0,
                    "cpuUtilizationTarget": 60.0,
                }
            },
            "labels": labels("features"),
        },
    },
    {
        "type": "gcp:vertex/aiTensorboard:AiTensorboard",
        "name": "tensorboard",
        "inputs": {
            "displayName": "acme-prod-tensorboard",
            "region": REGION,
            "labels": labels("experiments"),
        },
    },
    {
        "type": "gcp:vertex/aiMetadataStore:AiMetadataStore",
        "name": "metadata-store",
        "inputs": {"name": "acme-prod-metadata", "region": REGION},
    },
    {
        "type": "mlgov:index:NotebookFleet",
        "name": "notebooks",
        "inputs": {},
    },
]


def good_stack() -> list[dict[str, Any]]:
    """A fresh deep copy of the known-good stack."""
    return copy.deepcopy(_GOOD)


RESOURCE_TYPES = frozenset(r["type"] for r in _GOOD)
