"""`python -m governance cap` against the fake GKE, after the budget function capped it.

The prod stack (stacks/Pulumi.prod.yaml: prefix acme-prod, project acme-ml-prod, region
europe-west4) gets a cluster named as MlCluster names it; the budget flow caps it with the real
adapter; then status, restore --dry-run and restore run through the CLI's `main`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from govern import execute, flows, gcp, parse
from govern.models import ActionPolicy
from governance.tools.cli import main
from tests.fakegcp.clock import FakeClock
from tests.fakegcp.container import FakeContainer
from tests.fakegcp.server import FakeGcp
from tests.functions.conftest import budget_data, pubsub_event

REPO = Path(__file__).resolve().parents[2]
PROJECT, REGION, CLUSTER = "acme-ml-prod", "europe-west4", "acme-prod-ml"
POLICY = {
    "dry_run": False,
    "exempt_label": {"key": "mlgov-exempt", "value": "true"},
    "projects": {
        PROJECT: {
            "environment": "prod",
            "zones": ["europe-west4-a", "europe-west4-b"],
            "allow_billing_disable": False,
        }
    },
    "budgets": {"b1": {"projects": [PROJECT], "stop_at": 1.0, "disable_billing_at": None}},
}
ATTRIBUTES = {"budgetId": "b1", "schemaVersion": "1.0"}


class _Ports:
    """Only the container port: the cap's GKE part, with the real adapter."""

    def __init__(self, url: str) -> None:
        self.container = gcp.ADAPTERS["container"](url)
        self.vertex = _NoVertex()
        self.compute = self.notebooks = self.tpus = self.billing = _Nothing()


class _Nothing:
    def __getattr__(self, name: str):
        return lambda *args: []


class _NoVertex(_Nothing):
    pass


@pytest.fixture
def gke() -> Iterator[tuple[FakeGcp, FakeContainer]]:
    with FakeGcp() as server:
        fake = FakeContainer().install(server)
        fake.add_cluster(PROJECT, REGION, CLUSTER, nap={"cpu": (0, 512), "nvidia-l4": (0, 32)})
        fake.add_pool(
            PROJECT,
            REGION,
            CLUSTER,
            "system",
            nodes=1,
            initial=1,
            autoscaling={"enabled": True, "totalMinNodeCount": 1, "totalMaxNodeCount": 5},
        )
        fake.add_pool(
            PROJECT,
            REGION,
            CLUSTER,
            "l4-spot",
            machine_type="g2-standard-16",
            gpus=1,
            autoscaling={
                "enabled": True,
                "totalMinNodeCount": 0,
                "totalMaxNodeCount": 16,
                "locationPolicy": "ANY",
            },
            nodes=6,
        )
        fake.add_pool(
            PROJECT,
            REGION,
            CLUSTER,
            "a100",
            machine_type="a2-highgpu-1g",
            autoscaling={"enabled": True, "minNodeCount": 1, "maxNodeCount": 2},
            nodes=2,
        )
        fake.add_pool(
            PROJECT,
            REGION,
            CLUSTER,
            "t4-fixed",
            machine_type="n1-standard-8",
            gpus=2,
            nodes=2,
            initial=2,
        )
        yield server, fake


def _cap(server: FakeGcp, capsys: pytest.CaptureFixture[str]) -> None:
    alert = parse.budget_alert(pubsub_event(budget_data(1.5, 1500), ATTRIBUTES).data)
    runner = execute.Runner(ActionPolicy.from_json(json.dumps(POLICY)), FakeClock())
    flows.budget_alert(alert, _Ports(server.url), runner)  # pyright: ignore[reportArgumentType]
    capsys.readouterr()  # the function's log lines


def cap(server: FakeGcp, *argv: str) -> int:
    return main(["cap", *argv, "--stack", "prod", "--endpoint", server.url])


def test_status_shows_what_the_cap_changed(gke, capsys):
    server, fake = gke
    _cap(server, capsys)
    assert fake.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 0
    writes = len([r for r in server.calls() if r.method != "GET"])
    assert cap(server, "status") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"projects/{PROJECT}/locations/{REGION}/clusters/{CLUSTER}"
    assert (
        "  node pool l4-spot: capped; before the cap: autoscaling 0-16 nodes in total, "
        "location policy ANY" in out
    )
    assert "  node pool a100: capped; before the cap: autoscaling 1-2 nodes per zone" in out
    assert "  node pool t4-fixed: capped; before the cap: fixed size, 2 node(s)" in out
    assert "  NAP limit nvidia-l4: now 0-0; before the cap: 0-32" in out
    assert not any("system" in line for line in out)
    assert len([r for r in server.calls() if r.method != "GET"]) == writes  # status only reads


def test_restore_dry_run_changes_nothing(gke, capsys):
    server, _fake = gke
    _cap(server, capsys)
    writes = len([r for r in server.calls() if r.method != "GET"])
    assert cap(server, "restore", "--dry-run", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dry_run"] is True
    assert [p["pool"] for p in doc["pools"]] == ["l4-spot", "a100", "t4-fixed"]
    assert len([r for r in server.calls() if r.method != "GET"]) == writes


def test_restore_puts_sizes_autoscaling_and_nap_limits_back(gke, capsys):
    server, fake = gke
    _cap(server, capsys)
    assert cap(server, "restore") == 0
    pool = lambda name: fake.pool(PROJECT, REGION, CLUSTER, name)  # noqa: E731
    size = lambda name: fake.sizes[(PROJECT, REGION, CLUSTER, name)]  # noqa: E731
    assert pool("l4-spot")["autoscaling"] == {
        "enabled": True,
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": 16,
        "locationPolicy": "ANY",
    }
    assert size("l4-spot") == 0  # min 0: the autoscaler adds nodes as pods need them
    assert pool("a100")["autoscaling"] == {"enabled": True, "minNodeCount": 1, "maxNodeCount": 2}
    assert size("a100") == 1  # back to its minimum per zone
    assert size("t4-fixed") == 2  # a fixed pool gets its size back
    for name in ("l4-spot", "a100", "t4-fixed"):
        assert "mlgov-cap-prev" not in pool(name)["config"]["resourceLabels"]
    assert fake.limits(PROJECT, REGION, CLUSTER) == {"cpu": (0, 512), "nvidia-l4": (0, 32)}
    cluster = fake.clusters[(PROJECT, REGION, CLUSTER)]
    assert not [k for k in cluster["resourceLabels"] if k.startswith("mlgov-cap")]
    # Every write waited for the previous operation: GKE never refused one.
    assert all(r.status != 400 for _q, r in server.exchanges)
    capsys.readouterr()
    assert cap(server, "status") == 0
    assert capsys.readouterr().out.splitlines()[1] == "  nothing capped"


def test_a_stack_without_gke_and_a_bad_endpoint_are_invalid_input(gke, capsys, tmp_path):
    server, _fake = gke
    stack = tmp_path / "Pulumi.nogke.yaml"
    # The dev stack without its gke section (and the training pools that need one).
    import yaml

    config = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    settings = config["config"]["mlgov:settings"]
    for key in ("gke", "training_pools"):
        settings.pop(key, None)
    stack.write_text(yaml.safe_dump(config))
    code = main(["cap", "status", "--config", str(stack), "--endpoint", server.url])
    assert code == 2
    assert "no `gke:` section" in capsys.readouterr().err
    assert main(["cap", "status", "--stack", "prod", "--endpoint", "ftp://x"]) == 2
    assert main(["cap", "status", "--stack", "prod", "--dry-run", "--endpoint", server.url]) == 2


def test_an_unreachable_api_exits_4(capsys):
    assert main(["cap", "status", "--stack", "prod", "--endpoint", "http://127.0.0.1:9"]) == 4
    assert "gke: GET" in capsys.readouterr().err
