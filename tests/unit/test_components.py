"""Components built alone, with args the shipped stacks don't exercise."""

from __future__ import annotations

from collections.abc import Callable

from governance.components import (
    Notebook,
    NotebookFleet,
    NotebookFleetArgs,
    OfficeHours,
    PartitionedDataset,
    PartitionedDatasetArgs,
    ProjectBudget,
    ProjectBudgetArgs,
    SpotTrainingPools,
    SpotTrainingPoolsArgs,
    Table,
    TpuVm,
    TrainingPool,
)
from governance.components.notebooks import office_hours_cron
from governance.labels import base_labels
from governance.review.offline import RecordedResource

LABELS = base_labels("dev", {"team": "research", "cost-center": "cc-1"})
Run = Callable[..., list[RecordedResource]]


def by_type(resources: list[RecordedResource], type_: str) -> list[RecordedResource]:
    return [r for r in resources if r.type == type_]


def test_notebooks_without_office_hours_create_no_scheduler(under_mocks: Run) -> None:
    resources = under_mocks(
        lambda: NotebookFleet(
            "nb",
            NotebookFleetArgs(
                prefix="acme-dev",
                project="acme-ml-dev",
                region="us-central1",
                notebooks={"carol": Notebook(zone="us-central1-a")},
                labels=LABELS,
                network_id="net",
                subnet_id="sub",
            ),
        )
    )
    assert by_type(resources, "gcp:cloudscheduler/job:Job") == []
    assert len(by_type(resources, "gcp:serviceaccount/account:Account")) == 1
    [nb] = by_type(resources, "gcp:workbench/instance:Instance")
    assert nb.inputs["location"] == "us-central1-a"
    assert nb.inputs["gceSetup"]["metadata"]["idle-timeout-seconds"] == "3600"
    assert "install-nvidia-driver" not in nb.inputs["gceSetup"]["metadata"]
    assert nb.inputs["gceSetup"]["networkInterfaces"] == [{"network": "net", "subnet": "sub"}]


def test_office_hours_stop_only(under_mocks: Run) -> None:
    hours = OfficeHours(stop="18:30", days="1-4", timezone="America/New_York")
    resources = under_mocks(
        lambda: NotebookFleet(
            "nb",
            NotebookFleetArgs(
                prefix="acme-dev",
                project="acme-ml-dev",
                region="us-central1",
                labels=LABELS,
                network_id="n",
                subnet_id="s",
                notebooks={"dan": Notebook(zone="us-central1-b", office_hours=hours, exempt=True)},
            ),
        )
    )
    [job] = by_type(resources, "gcp:cloudscheduler/job:Job")
    assert job.inputs["schedule"] == "30 18 * * 1-4"
    assert job.inputs["timeZone"] == "America/New_York"
    assert job.inputs["httpTarget"]["uri"].endswith(
        "/locations/us-central1-b/instances/acme-dev-nb-dan:stop"
    )
    [nb] = by_type(resources, "gcp:workbench/instance:Instance")
    assert nb.inputs["labels"]["mlgov-exempt"] == "true"


def test_office_hours_cron() -> None:
    assert office_hours_cron("08:05", "1-5") == "5 8 * * 1-5"
    assert office_hours_cron("00:00", "0,6") == "0 0 * * 0,6"


def test_tpu_pool_and_tpu_vm(under_mocks: Run) -> None:
    pool = TrainingPool(
        kind="tpu", machine_type="ct5lp-hightpu-4t", tpu_topology="2x4", max_nodes=2
    )
    resources = under_mocks(
        lambda: SpotTrainingPools(
            "t",
            SpotTrainingPoolsArgs(
                prefix="acme-dev",
                project="acme-ml-dev",
                region="us-central1",
                zones=("us-central1-a",),
                labels=LABELS,
                pools={"v5e": pool},
                tpu_vms={"r": TpuVm(zone="us-central1-a", exempt=True)},
                gpu_vms={},
                network_id="n",
                subnet_id="s",
                cluster_name="c",
                node_service_account="sa@x",
            ),
        )
    )
    [np] = by_type(resources, "gcp:container/nodePool:NodePool")
    assert np.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "2x4"}
    assert np.inputs["nodeConfig"]["spot"] is True
    assert [t["key"] for t in np.inputs["nodeConfig"]["taints"]] == ["mlgov.io/workload"]
    [tpu] = by_type(resources, "gcp:tpu/v2Vm:V2Vm")
    assert tpu.inputs["zone"] == "us-central1-a"
    assert tpu.inputs["labels"]["workload"] == "training"
    assert tpu.inputs["labels"]["mlgov-exempt"] == "true"
    # The TPU VM runs as its own account (never the default Compute one), which may write logs
    # and metrics and nothing else; no GPU VMs, so no account for them.
    [sa] = by_type(resources, "gcp:serviceaccount/account:Account")
    assert sa.inputs["accountId"] == "acme-dev-training-tpus"
    assert tpu.inputs["serviceAccount"]["email"].startswith("acme-dev-training-tpus@")
    roles = sorted(r.inputs["role"] for r in by_type(resources, "gcp:projects/iAMMember:IAMMember"))
    assert roles == ["roles/logging.logWriter", "roles/monitoring.metricWriter"]


def test_dataset_tables_and_ingestion_time_partitioning(under_mocks: Run) -> None:
    resources = under_mocks(
        lambda: PartitionedDataset(
            "d",
            PartitionedDatasetArgs(
                project="p-123456",
                dataset="raw-events",
                location="us-central1",
                labels=LABELS,
                deletion_protection=False,
                table_expiration_days=7,
                partition_expiration_days=None,
                tables={"raw": Table(partition_type="HOUR")},
            ),
        )
    )
    [dataset] = by_type(resources, "gcp:bigquery/dataset:Dataset")
    assert dataset.inputs["datasetId"] == "raw_events"
    assert dataset.inputs["defaultTableExpirationMs"] == 7 * 86_400_000
    assert "defaultPartitionExpirationMs" not in dataset.inputs
    [table] = by_type(resources, "gcp:bigquery/table:Table")
    assert table.inputs["timePartitioning"] == {"type": "HOUR"}
    assert "schema" not in table.inputs
    assert table.inputs["requirePartitionFilter"] is False


def test_budget_without_forecast_thresholds(under_mocks: Run) -> None:
    resources = under_mocks(
        lambda: ProjectBudget(
            "b",
            ProjectBudgetArgs(
                prefix="acme-dev",
                project="acme-ml-dev",
                project_number="123456",
                billing_account="01D4EE-079462-DFD6EC",
                labels=LABELS,
                amount_usd=100,
                thresholds=(0.5, 1.0),
                forecast_thresholds=(),
            ),
        )
    )
    [b] = by_type(resources, "gcp:billing/budget:Budget")
    assert b.inputs["thresholdRules"] == [
        {"thresholdPercent": 0.5, "spendBasis": "CURRENT_SPEND"},
        {"thresholdPercent": 1.0, "spendBasis": "CURRENT_SPEND"},
    ]
    assert b.inputs["billingAccount"] == "01D4EE-079462-DFD6EC"


def test_an_exempt_training_pool_carries_the_exemption_label(under_mocks):
    # The budget cap leaves node pools labelled mlgov-exempt alone (functions/govern/cap.py).
    import pulumi

    from governance.components.training import (
        SpotTrainingPools,
        SpotTrainingPoolsArgs,
        TrainingPool,
    )
    from governance.labels import base_labels

    def build() -> None:
        SpotTrainingPools(
            "t",
            SpotTrainingPoolsArgs(
                prefix="p",
                project="proj",
                region="us-central1",
                zones=("us-central1-a",),
                labels=base_labels("dev", {"team": "t", "cost-center": "c"}),
                pools={
                    "keep": TrainingPool(accelerator="nvidia-l4", exempt=True),
                    "cap": TrainingPool(accelerator="nvidia-l4"),
                },
                tpu_vms={},
                gpu_vms={},
                network_id="n",
                subnet_id="s",
                cluster_name=pulumi.Output.from_input("c"),
                node_service_account="sa@x",
            ),
        )

    pools = {r.name: r.inputs for r in under_mocks(build, {"gcp:project": "proj"})}
    assert pools["t-keep"]["nodeConfig"]["resourceLabels"]["mlgov-exempt"] == "true"
    assert "mlgov-exempt" not in pools["t-cap"]["nodeConfig"]["resourceLabels"]
