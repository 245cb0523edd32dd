"""Vertex AI as the budget cap sees it: training jobs to cancel, endpoints whose models to undeploy.

Custom jobs and hyperparameter tuning jobs bill while they are queued, pending or running; the
cap cancels them. Endpoints bill for every deployed model's nodes; the cap undeploys them only
where the policy opts in (`undeploy_endpoints`) and the endpoint carries the opt-in label, since
undeploying breaks serving. Before undeploying, the cap records each deployment on the endpoint
as two labels per deployed model (keys and values: lowercase letters, digits, `-`, `_`, at most
63 characters), which `mlgov cap restore` reads back (governance/cap/marks.py;
tests/contract/test_cap_marks.py pins the two) to deploy it again with its traffic share:

- `mlgov-cap-dm-<deployedModelId>`:
  `<traffic %>_<d|a><minReplicas>-<maxReplicas>_<machineType>_<acceleratorType>_<count>`;
  `d` dedicatedResources, `a` automaticResources (machine and accelerator then empty); the
  accelerator enum lowercased with `-` for `_` (NVIDIA_TESLA_T4 -> nvidia-tesla-t4).
- `mlgov-cap-dm-<deployedModelId>-m`: `<version>_<location>_<modelId>`: the model's version id
  (empty: its default), its location when not the endpoint's (empty otherwise), its id.

A deployment that cannot be written so (a shared deployment resource pool, a model in another
project, a value over 63 characters) is undeployed all the same and the report says restore
cannot deploy it again, with what it was. REST shapes are parsed in parse/vertex.py, calls are
gcp/vertex.py's. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

JobKind = Literal["customJobs", "hyperparameterTuningJobs"]
JOB_KINDS: Final[tuple[JobKind, ...]] = ("customJobs", "hyperparameterTuningJobs")
# The JobState values in which a job holds (or waits for) paid resources; CANCELLING and the
# final states need nothing. Enum: aiplatform v1 discovery document, CustomJob.state.
ACTIVE_STATES: Final = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")


def region_of(zone: str) -> str:
    """`us-central1` for `us-central1-a` (a region stays as it is)."""
    head, _, tail = zone.rpartition("-")
    return head if head and len(tail) == 1 else zone


@dataclass(frozen=True)
class VertexJob:
    """A custom job or hyperparameter tuning job."""

    kind: JobKind
    project: str
    region: str
    job_id: str
    state: str
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    display_name: str = ""

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/R/<kind>/ID`."""
        return f"projects/{self.project}/locations/{self.region}/{self.kind}/{self.job_id}"

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return f"//aiplatform.googleapis.com/{self.path}"

    @property
    def active(self) -> bool:
        """True while the job holds or waits for paid resources."""
        return self.state in ACTIVE_STATES


@dataclass(frozen=True)
class DeployedModel:
    """One model deployed on an endpoint, with what it takes to deploy it again.

    `model` is the Model's resource name as listed (`projects/P/locations/L/models/M`), `version`
    its modelVersionId; `resources` says which DeployedModel field held the replicas:
    `dedicated` (machine spec and replica counts), `automatic` (replica counts only) or `shared`
    (a deployment resource pool, which the cap cannot record).
    """

    id: str
    model: str = ""
    version: str = ""
    resources: str = ""
    machine_type: str = ""
    accelerator_type: str = ""
    accelerator_count: int = 0
    min_replicas: int = 0
    max_replicas: int = 0

    def describe(self, traffic: int) -> str:
        """What it was, for the report: model, machine, replicas and traffic share."""
        model = self.model.rsplit("/", 1)[-1] + (f"@{self.version}" if self.version else "")
        spec = self.machine_type or "automatic resources"
        if self.accelerator_type and self.accelerator_count:
            spec += f" + {self.accelerator_count} {self.accelerator_type}"
        return (
            f"{self.id}: model {model} on {spec}, {self.min_replicas}-{self.max_replicas} "
            f"replicas, {traffic}% of traffic"
        )


@dataclass(frozen=True)
class Endpoint:
    """A Vertex AI endpoint with its deployed models and its traffic split.

    `deployed` are the deployed model ids in the listed order, `models` their deployments;
    `name_project` is the project segment of the endpoint's name as the API gave it (often the
    project number), to tell a model in the endpoint's own project; `etag` guards label writes.
    """

    project: str
    region: str
    endpoint_id: str
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    deployed: tuple[str, ...] = ()
    traffic: Mapping[str, int] = field(default_factory=dict[str, int])
    display_name: str = ""
    models: tuple[DeployedModel, ...] = ()
    etag: str = ""
    name_project: str = ""

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/R/endpoints/ID`."""
        return f"projects/{self.project}/locations/{self.region}/endpoints/{self.endpoint_id}"

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return f"//aiplatform.googleapis.com/{self.path}"

    def deployment_marks(self) -> tuple[dict[str, str], dict[str, str]]:
        """(labels recording each deployed model's deployment, {model id: why it cannot be}).

        Marks already on the endpoint win: a redelivered alert keeps the first cap's record,
        taken before any traffic moved. Formats: the module docstring.
        """
        marks: dict[str, str] = {}
        problems: dict[str, str] = {}
        room = MAX_LABELS - len(self.labels)
        for model in self.models:
            if model_key(model.id) in self.labels:
                continue
            try:
                pair = encode_deployment(self, model)
            except ValueError as err:
                problems[model.id] = str(err)
                continue
            if len(pair) > room:
                problems[model.id] = f"no room for its labels ({MAX_LABELS} per resource)"
                continue
            room -= len(pair)
            marks.update(pair)
        return marks, problems


DEPLOYMENT_PREFIX: Final = "mlgov-cap-dm-"
"""Endpoint label prefix: `mlgov-cap-dm-<id>` and `mlgov-cap-dm-<id>-m` record one deployment."""
MODEL_SUFFIX: Final = "-m"
# "Each resource can have multiple labels, up to a maximum of 64":
# https://cloud.google.com/resource-manager/docs/labels-overview#requirements
MAX_LABELS: Final = 64
LABEL_MAX: Final = 63  # characters in a key or value (mlgov keeps to GCP's common limit)
_LABEL_TEXT = re.compile(r"[a-z0-9_-]*")
_MODEL = re.compile(r"projects/([^/]+)/locations/([^/]+)/models/([^/@]+)(?:@([^/]+))?")


def model_key(deployed_model_id: str) -> str:
    """The label key whose value records a deployment's resources and traffic."""
    return f"{DEPLOYMENT_PREFIX}{deployed_model_id}"


def model_mark_key(deployed_model_id: str) -> str:
    """The label key whose value records which model (and version) was deployed."""
    return f"{DEPLOYMENT_PREFIX}{deployed_model_id}{MODEL_SUFFIX}"


def encode_deployment(endpoint: Endpoint, model: DeployedModel) -> dict[str, str]:
    """The two labels recording one deployed model (module docstring); ValueError if it can't.

    Raises:
        ValueError: why this deployment cannot be kept in labels (shared resources, a model
            in another project, a value too long or with characters labels cannot hold).
    """
    if model.resources not in ("dedicated", "automatic"):
        raise ValueError("it runs on a shared deployment resource pool, which is not recorded")
    m = _MODEL.fullmatch(model.model)
    if m is None:
        raise ValueError(f"unexpected model name {model.model!r}")
    if m[1] not in (endpoint.project, endpoint.name_project):
        raise ValueError(f"its model is in another project ({m[1]})")
    version = model.version or (m[4] or "")
    location = "" if m[2] == endpoint.region else m[2]
    kind = "d" if model.resources == "dedicated" else "a"
    accelerator = model.accelerator_type.lower().replace("_", "-")
    traffic = endpoint.traffic.get(model.id, 0)
    value = (
        f"{traffic}_{kind}{model.min_replicas}-{model.max_replicas}_{model.machine_type}_"
        f"{accelerator}_{model.accelerator_count}"
    )
    which = f"{version}_{location}_{m[3]}"
    for text in (value, which, model.id):
        if len(text) > LABEL_MAX or not _LABEL_TEXT.fullmatch(text):
            raise ValueError(f"{text!r} cannot be a label value (lowercase, digits, - and _)")
    return {model_key(model.id): value, model_mark_key(model.id): which}
