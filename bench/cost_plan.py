"""One resource of every type the mlgov program emits, shaped as a plan document holds them.

`full_plan` is the cost benchmark's template (bench/cost_bench.py grows it to 10,000 resources)
and the cost tests' vocabulary: tests/costs/cost_plans.py re-exports it with the builders of its
parts (`notebook`, `office_hours`, `node_pool`). It lives here, not in tests/, because nothing
outside tests/ imports tests/ (tests/layout/test_import_rules.py); the tests may import bench/.
"""

from __future__ import annotations

from typing import Any


def notebook(name: str = "nb-alice", **gce: Any) -> dict[str, Any]:
    setup: dict[str, Any] = {
        "machineType": "n1-standard-4",
        "acceleratorConfigs": [{"type": "NVIDIA_TESLA_T4", "coreCount": "1"}],
        "disablePublicIp": True,
        "metadata": {"idle-timeout-seconds": "3600", "enable-guest-attributes": "TRUE"},
        "bootDisk": {"diskSizeGb": "150", "diskType": "PD_BALANCED"},
        "dataDisks": [{"diskSizeGb": "100", "diskType": "PD_BALANCED"}],
    }
    setup.update(gce)
    return {
        "type": "gcp:workbench/instance:Instance",
        "name": name,
        "inputs": {
            "name": f"acme-dev-{name}",
            "location": "us-central1-a",
            "labels": {"team": "research", "env": "dev", "managed-by": "mlgov"},
            "gceSetup": setup,
        },
    }


def office_hours(notebook_gcp_name: str, start: str = "0 8 * * 1-5", stop: str = "0 19 * * 1-5"):
    base = "https://notebooks.googleapis.com/v2/projects/acme-ml-dev/locations/us-central1-a"
    return [
        {
            "type": "gcp:cloudscheduler/job:Job",
            "name": f"{notebook_gcp_name}-{verb}",
            "inputs": {
                "region": "us-central1",
                "schedule": cron,
                "timeZone": "Europe/Amsterdam",
                "httpTarget": {
                    "uri": f"{base}/instances/{notebook_gcp_name}:{verb}",
                    "httpMethod": "POST",
                    "oauthToken": {"serviceAccountEmail": "sa@x", "scope": "s"},
                },
            },
        }
        for verb, cron in (("start", start), ("stop", stop))
    ]


def node_pool(name: str = "t4-spot", spot: bool = True, low: int = 0, high: int = 4, **node: Any):
    config: dict[str, Any] = {
        "machineType": "n1-standard-8",
        "spot": spot,
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1}],
        "diskSizeGb": 100,
        "diskType": "pd-balanced",
    }
    config.update(node)
    return {
        "type": "gcp:container/nodePool:NodePool",
        "name": name,
        "inputs": {
            "name": name,
            "cluster": "acme-dev-gke",
            "location": "us-central1",
            "nodeLocations": ["us-central1-a", "us-central1-b"],
            "initialNodeCount": 0,
            "autoscaling": {
                "totalMinNodeCount": low,
                "totalMaxNodeCount": high,
                "locationPolicy": "ANY",
            },
            "nodeConfig": config,
        },
    }


def full_plan() -> list[dict[str, Any]]:
    """One resource of every type RESOURCES.md lists (the program's vocabulary)."""
    nb = notebook()
    return [
        {"type": "gcp:compute/network:Network", "name": "net", "inputs": {"name": "acme-dev-net"}},
        {
            "type": "gcp:compute/subnetwork:Subnetwork",
            "name": "subnet",
            "inputs": {"region": "us-central1"},
        },
        {
            "type": "gcp:compute/router:Router",
            "name": "router",
            "inputs": {"region": "us-central1"},
        },
        {
            "type": "gcp:compute/routerNat:RouterNat",
            "name": "nat",
            "inputs": {"region": "us-central1", "natIpAllocateOption": "AUTO_ONLY"},
        },
        {
            "type": "gcp:compute/globalAddress:GlobalAddress",
            "name": "psa",
            "inputs": {"purpose": "VPC_PEERING", "addressType": "INTERNAL", "prefixLength": 16},
        },
        {
            "type": "gcp:servicenetworking/connection:Connection",
            "name": "psa-conn",
            "inputs": {"service": "servicenetworking.googleapis.com"},
        },
        nb,
        *office_hours(nb["inputs"]["name"]),
        {
            "type": "gcp:serviceaccount/account:Account",
            "name": "sa",
            "inputs": {"accountId": "gov"},
        },
        {
            "type": "gcp:projects/iAMCustomRole:IAMCustomRole",
            "name": "role",
            "inputs": {"roleId": "r"},
        },
        {"type": "gcp:projects/iAMMember:IAMMember", "name": "member", "inputs": {"role": "r"}},
        {
            "type": "gcp:container/cluster:Cluster",
            "name": "gke",
            "inputs": {
                "name": "acme-dev-gke",
                "location": "us-central1",
                "removeDefaultNodePool": True,
                "initialNodeCount": 1,
                "clusterAutoscaling": {"enabled": True},
            },
        },
        node_pool(),
        node_pool(
            "system", spot=False, low=1, high=3, machineType="e2-standard-4", guestAccelerators=[]
        ),
        node_pool("tpu-v5e", machineType="ct5lp-hightpu-4t", guestAccelerators=[]),
        {
            "type": "gcp:tpu/v2Vm:V2Vm",
            "name": "tpu",
            "inputs": {
                "zone": "us-central1-a",
                "acceleratorType": "v5litepod-8",
                "schedulingConfig": {"spot": True},
            },
        },
        {
            "type": "gcp:compute/instance:Instance",
            "name": "gpu-vm",
            "inputs": {
                "zone": "us-central1-a",
                "machineType": "g2-standard-8",
                "guestAccelerators": [{"type": "nvidia-l4", "count": 1}],
                "scheduling": {
                    "provisioningModel": "SPOT",
                    "preemptible": True,
                    "maxRunDuration": {"seconds": 28800},
                },
                "bootDisk": {"initializeParams": {"size": 200, "type": "pd-balanced"}},
            },
        },
        {
            "type": "gcp:sql/databaseInstance:DatabaseInstance",
            "name": "metadata",
            "inputs": {
                "region": "us-central1",
                "databaseVersion": "POSTGRES_15",
                "settings": {
                    "tier": "db-custom-1-3840",
                    "edition": "ENTERPRISE",
                    "availabilityType": "ZONAL",
                    "diskSize": 20,
                    "diskType": "PD_SSD",
                    "backupConfiguration": {"enabled": True},
                },
            },
        },
        {"type": "gcp:sql/database:Database", "name": "db", "inputs": {"instance": "x"}},
        {"type": "gcp:sql/user:User", "name": "user", "inputs": {"instance": "x"}},
        {
            "type": "random:index/randomPassword:RandomPassword",
            "name": "pw",
            "inputs": {"length": 24},
        },
        {
            "type": "gcp:bigquery/dataset:Dataset",
            "name": "features",
            "inputs": {
                "datasetId": "features",
                "location": "us-central1",
                "defaultPartitionExpirationMs": "5184000000",
            },
        },
        {
            "type": "gcp:bigquery/table:Table",
            "name": "events",
            "inputs": {
                "datasetId": "features",
                "tableId": "events",
                "timePartitioning": {"type": "DAY"},
            },
        },
        {
            "type": "gcp:bigquery/dataset:Dataset",
            "name": "billing-export",
            "inputs": {"datasetId": "billing_export", "location": "us-central1"},
        },
        {"type": "gcp:pubsub/topic:Topic", "name": "budget-topic", "inputs": {"name": "t"}},
        {
            "type": "gcp:billing/budget:Budget",
            "name": "budget",
            "inputs": {"amount": {"specifiedAmount": {"currencyCode": "USD", "units": "5000"}}},
        },
        {"type": "gcp:storage/bucket:Bucket", "name": "src", "inputs": {"location": "US-CENTRAL1"}},
        {
            "type": "gcp:storage/bucketObject:BucketObject",
            "name": "archive",
            "inputs": {"bucket": "src"},
        },
        {
            "type": "gcp:cloudfunctionsv2/function:Function",
            "name": "reaper",
            "inputs": {
                "location": "us-central1",
                "serviceConfig": {"availableMemory": "256M", "maxInstanceCount": 1},
            },
        },
        {
            "type": "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember",
            "name": "inv",
            "inputs": {"role": "roles/cloudfunctions.invoker"},
        },
        {
            "type": "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
            "name": "run-inv",
            "inputs": {"role": "roles/run.invoker"},
        },
        {
            "type": "gcp:pubsub/topicIAMMember:TopicIAMMember",
            "name": "pub",
            "inputs": {"role": "roles/pubsub.publisher"},
        },
        {"type": "gcp:compute/resourcePolicy:ResourcePolicy", "name": "sched", "inputs": {}},
        {"type": "mlgov:index:NotebookFleet", "name": "fleet", "inputs": {}},
    ]
