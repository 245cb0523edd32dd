"""NotebookFleet under mocks: root access for notebook users is off unless a notebook opts in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from governance.components import Notebook, NotebookFleet, NotebookFleetArgs
from governance.components.notebooks import notebook_metadata
from governance.labels import base_labels
from governance.review.offline import RecordedResource

Run = Callable[..., list[RecordedResource]]
WORKBENCH = "gcp:workbench/instance:Instance"


def instances(under_mocks: Run, notebooks: dict[str, Notebook]) -> dict[str, dict[str, Any]]:
    args = NotebookFleetArgs(
        prefix="acme-dev",
        project="acme-ml-dev",
        region="us-central1",
        notebooks=notebooks,
        labels=base_labels("dev", {"team": "research", "cost-center": "cc-1"}),
        network_id="net",
        subnet_id="sub",
    )
    resources = under_mocks(lambda: NotebookFleet("nb", args))
    return {r.name: r.inputs for r in resources if r.type == WORKBENCH}


def test_root_is_off_by_default_and_labelled_when_opted_in(under_mocks: Run) -> None:
    found = instances(
        under_mocks,
        {
            "carol": Notebook(zone="us-central1-a"),
            "dave": Notebook(zone="us-central1-a", root_access=True),
        },
    )
    carol, dave = found["nb-carol"], found["nb-dave"]
    assert carol["gceSetup"]["metadata"]["notebook-disable-root"] == "true"
    assert "mlgov-root-access" not in carol["labels"]
    assert dave["gceSetup"]["metadata"]["notebook-disable-root"] == "false"
    assert dave["labels"]["mlgov-root-access"] == "true"
    assert dave["labels"]["workload"] == "notebook"


def test_root_key_sits_beside_idle_shutdown() -> None:
    assert notebook_metadata(Notebook(zone="us-central1-a", idle_minutes=30)) == {
        "idle-timeout-seconds": "1800",
        "enable-guest-attributes": "TRUE",
        "disable-mixer": "false",
        "notebook-disable-root": "true",
    }
