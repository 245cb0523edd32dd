"""GovernanceFunctions: the Cloud Functions (2nd gen) from functions/, and what calls them.

It owns the source bucket and the content-addressed archive of functions/, the four functions,
one runtime service account per function with a project custom role holding only the
permissions that function's actions need (`PERMISSIONS`, pinned to the functions' own list by
tests/contract), the Eventarc trigger identity of the budget function, the Scheduler identity and
jobs (OIDC) for the three reapers, and the invoker grants. With fan-out on it also deploys the
worker (`on_work_item`, sized in worker_sizing.py) and `on_dead_letter`, their Pub/Sub push
identity, the work queue (fan_out.py) and, for a stack with scopes, the grants on each folder or
organization (scope_grants.py). The policy the functions run under is rendered in
action_settings.py; the budget and its topic live in budgets.py. The code in functions/ is
archived from its folder (bundled in the installed package, or the repository checkout) and
never imported here.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pulumi
import pulumi_gcp as gcp

from governance.components.action_settings import (
    DISPATCHERS,
    SCHEDULED,
    WORKERS,
    ActionSettings,
    function_name,
    job_id,
    short_name,
)
from governance.components.fan_out import WorkQueue, WorkQueueArgs, work_topic_path
from governance.components.identity import member
from governance.components.scope_grants import Scope, ScopeGrants, ScopeGrantsArgs
from governance.components.worker_sizing import WorkerSize
from governance.labels import Labels
from governance.naming import account_id, resource_name, role_id
from mlgov_policies.vocabulary import component_type

RUNTIME = "python311"
PUBSUB_PUBLISHED = "google.cloud.pubsub.topic.v1.messagePublished"
# Event-driven 2nd gen functions may run at most 540 s.
EVENT_TIMEOUT_SECONDS = 540
# Leave the function this long after its work budget to log and answer its report.
REPORT_MARGIN_SECONDS = 60
# Superseded (noncurrent) archive versions stay restorable this long after Pulumi replaced them.
ARCHIVE_RETENTION_DAYS = 30
# Eventarc's Pub/Sub push counts as internal traffic for a service in the same project, so the
# budget function needs no wider ingress: "Internal ... Allows requests from ... Eventarc,
# Pub/Sub" (Restrict network ingress for Cloud Run, https://cloud.google.com/run/docs/securing/ingress).
EVENT_INGRESS = "ALLOW_INTERNAL_ONLY"
_SKIP_PARTS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
_SKIP_SUFFIXES = (".pyc", ".pyo")

# --------------------------------------------------------------------------- permissions
# What each function's code calls, as the functions derive it in govern/permissions.py from
# each flow's reads and action kinds (authoritative there; tests/contract/test_permissions.py
# fails when the two drift apart). Nothing beyond what the code calls.
# Every stop is confirmed by its operation (functions/govern/operations.py): *.operations.get.
# instances.get: a VM an earlier, unconfirmed stop left STOPPING is read again on redelivery.
STOP_INSTANCES = (
    "compute.instances.get",
    "compute.instances.list",
    "compute.instances.stop",
    "compute.zoneOperations.get",
)
STOP_NOTEBOOKS = (
    "notebooks.instances.list",
    "notebooks.instances.stop",
    "notebooks.operations.get",
)
# reap_idle_gpus finds Workbench GPU VMs through Compute and stops them through Notebooks: it
# never lists Workbench instances.
STOP_NOTEBOOKS_FOUND_ELSEWHERE = ("notebooks.instances.stop", "notebooks.operations.get")
STOP_TPUS = ("tpu.nodes.list", "tpu.nodes.stop", "tpu.operations.get")
# The budget cap withdraws TPU queued resources still waiting for capacity (they bill the moment
# it arrives); only the budget cap does, never a reaper.
WITHDRAW_QUEUED_TPUS = ("tpu.queuedResources.delete", "tpu.queuedResources.list")
REAP_RECOMMENDATIONS = (
    "compute.instances.list",
    "compute.instances.stop",
    "compute.zoneOperations.get",  # a recommendation is marked SUCCEEDED once the stop is DONE
    "recommender.computeInstanceIdleResourceRecommendations.list",
    "recommender.computeInstanceIdleResourceRecommendations.update",
)
READ_GPU_METRICS = ("monitoring.timeSeries.list",)
# The budget cap on GKE: list clusters, read each pool's size (its instance groups), write node
# pools and NAP limits, wait for the operations, read a cluster again after a label conflict.
CAP_GKE = (
    "compute.instanceGroupManagers.get",
    "container.clusters.get",
    "container.clusters.list",
    "container.clusters.update",
    "container.operations.get",
)
CANCEL_VERTEX_JOBS = (
    "aiplatform.customJobs.cancel",
    "aiplatform.customJobs.list",
    "aiplatform.hyperparameterTuningJobs.cancel",
    "aiplatform.hyperparameterTuningJobs.list",
)
# Only in the budget function's role, and only where the stack opts in to undeploying endpoints.
# Each deployment is recorded in the endpoint's labels first (endpoints.patch, and .get again
# after a stale etag), so that `mlgov cap restore` can deploy it again.
UNDEPLOY_ENDPOINTS = (
    "aiplatform.endpoints.get",
    "aiplatform.endpoints.list",
    "aiplatform.endpoints.undeploy",
    "aiplatform.endpoints.update",
    "aiplatform.operations.get",  # each undeploy confirmed by its operation
)
# Only in the budget function's role, and only where the stack allows unlinking billing.
UNLINK_BILLING = (
    "resourcemanager.projects.deleteBillingAssignment",
    "resourcemanager.projects.get",
)
# Only in the budget function's role, and only where the stack declares spend caps: reading a
# single-project budget with project permissions (Budget API access control, GetBudget).
READ_SPEND_CAPS = ("billing.resourcebudgets.read", "resourcemanager.projects.get")
# Organization scale (docs/architecture.md#organization-scale). The dispatchers find a scope's
# projects through Cloud Asset Inventory (granted on each scope's parent, scope_grants.py) and
# publish work items (granted on the work topic only, fan_out.py): neither is in their project role.
RESOLVE_SCOPES = ("cloudasset.assets.searchAllResources",)
PUBLISH_WORK = ("pubsub.topics.publish",)
GRANTED_ELSEWHERE = frozenset({*RESOLVE_SCOPES, *PUBLISH_WORK})


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({p for group in groups for p in group}))


# One project's part of the budget cap; reading the stack's spend caps is the budget function's
# own (it reports them when a cap's alert arrives), never a work item's.
_CAP_ONE_PROJECT = _union(
    STOP_INSTANCES,
    STOP_NOTEBOOKS,
    STOP_TPUS,
    WITHDRAW_QUEUED_TPUS,
    UNLINK_BILLING,
    CAP_GKE,
    CANCEL_VERTEX_JOBS,
    UNDEPLOY_ENDPOINTS,
)
_REAP_IDLE_VMS = _union(REAP_RECOMMENDATIONS)
_REAP_EXPIRED = _union(STOP_INSTANCES, STOP_NOTEBOOKS, STOP_TPUS)
_REAP_IDLE_GPUS = _union(
    STOP_INSTANCES, STOP_NOTEBOOKS_FOUND_ELSEWHERE, STOP_TPUS, READ_GPU_METRICS
)
_DISPATCH = _union(RESOLVE_SCOPES, PUBLISH_WORK)

PERMISSIONS: dict[str, tuple[str, ...]] = {
    "on_budget_alert": _union(_CAP_ONE_PROJECT, READ_SPEND_CAPS, _DISPATCH),
    "reap_idle_vms": _union(_REAP_IDLE_VMS, _DISPATCH),
    "reap_expired": _union(_REAP_EXPIRED, _DISPATCH),
    "reap_idle_gpus": _union(_REAP_IDLE_GPUS, _DISPATCH),
    # One project's part of any of the four: what each of them does to a project when it acts.
    "on_work_item": _union(_CAP_ONE_PROJECT, _REAP_IDLE_VMS, _REAP_EXPIRED, _REAP_IDLE_GPUS),
    # Logs each dead letter; calls nothing.
    "on_dead_letter": (),
}


def function_permissions(
    entry_point: str,
    *,
    allow_billing_disable: bool,
    undeploy_endpoints: bool = False,
    read_spend_caps: bool = False,
) -> tuple[str, ...]:
    """The permissions of one function's project custom role (sorted), less the opt-outs.

    Permissions granted on their own resource (GRANTED_ELSEWHERE: a scope's parent, the work
    topic) are never in the project role.
    """
    mine = set(PERMISSIONS[entry_point])
    # An opt-in counts only for a function that does that thing at all (the worker unlinks but
    # never reads spend caps: their shared resourcemanager.projects.get follows the unlink).
    opt_ins = tuple(
        (group, on and set(group) <= mine)
        for group, on in (
            (UNLINK_BILLING, allow_billing_disable),
            (UNDEPLOY_ENDPOINTS, undeploy_endpoints),
            (READ_SPEND_CAPS, read_spend_caps),
        )
    )
    # A permission two opt-ins share (resourcemanager.projects.get) stays if either is on.
    kept = {p for group, on in opt_ins if on for p in group}
    dropped = ({p for group, on in opt_ins if not on for p in group} - kept) | GRANTED_ELSEWHERE
    return tuple(p for p in PERMISSIONS[entry_point] if p not in dropped)


def scope_work_permissions(*, undeploy_endpoints: bool) -> tuple[str, ...]:
    """What the worker may do in every project of a scope: its actions, billing unlink apart.

    Unlinking is its own role, granted only on a scope that allows it (scope_grants.py).
    """
    return function_permissions(
        "on_work_item",
        allow_billing_disable=False,
        undeploy_endpoints=undeploy_endpoints,
        read_spend_caps=False,
    )


# --------------------------------------------------------------------------- source archive
def functions_dir() -> Path:
    """The functions' source: bundled in the installed package, else the repository checkout."""
    bundled = importlib.resources.files("governance") / "_functions"
    if isinstance(bundled, Path) and (bundled / "main.py").is_file():
        return bundled
    return Path(__file__).resolve().parents[2] / "functions"


def source_files(root: Path) -> dict[str, Path]:
    """The files deployed from `root`, by archive path (sorted; caches and bytecode left out)."""
    files: dict[str, Path] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or _SKIP_PARTS & set(rel.parts) or path.suffix in _SKIP_SUFFIXES:
            continue
        files[rel.as_posix()] = path
    return files


def source_hash(files: Mapping[str, Path]) -> str:
    """A hash of every archive path and its bytes: changes exactly when the code changes."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode())
        digest.update(b"\0")
        digest.update(files[rel].read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


# --------------------------------------------------------------------------- the component
@dataclass(frozen=True, kw_only=True)
class GovernanceFunctionsArgs:
    """What GovernanceFunctions needs.

    `policy` is the rendered policy (it depends on the budget's server-assigned id);
    `allow_billing_disable` must be the same decision the policy carries (never true in prod),
    and so must `undeploy_endpoints`.
    """

    prefix: str
    project: str
    region: str
    labels: Labels
    budget_topic_id: pulumi.Input[str]
    policy: pulumi.Output[ActionSettings]
    allow_billing_disable: bool
    # unix-cron per scheduled entry point (SCHEDULED), in `time_zone`.
    schedules: Mapping[str, str]
    time_zone: str = "Etc/UTC"
    # Timeout of the HTTP (scheduled) functions and their Scheduler attempt deadline.
    http_timeout_seconds: int = 900
    max_instances: int = 1
    # Ingress of the Scheduler-called (HTTP) functions; see docs/reference/functions.md,
    # "Deployment and operations".
    scheduled_ingress: str = "ALLOW_ALL"
    undeploy_endpoints: bool = False
    read_spend_caps: bool = False
    """The stack declares spend caps: the budget function reads their state."""
    fan_out: FanOut | None = None
    """Fan-out on: the worker, the dead-letter logger and the work queue."""
    source_dir: Path = field(default_factory=functions_dir)


@dataclass(frozen=True, kw_only=True)
class FanOut:
    """The fan-out pieces of a stack: the queue's delivery bound, the worker's size, the scopes.

    `organization` is None exactly when there are no scopes.
    """

    project_number: str
    max_delivery_attempts: int
    worker: WorkerSize
    organization: str | None = None
    scopes: tuple[Scope, ...] = ()


@dataclass(frozen=True)
class _Deployed:
    function: gcp.cloudfunctionsv2.Function
    service: pulumi.Output[str]
    uri: pulumi.Output[str]
    """The Cloud Run (run.app) URL: the one Scheduler traffic counts as internal on."""
    account: gcp.serviceaccount.Account


@dataclass(frozen=True)
class _Shape:
    """How one function runs: its timeout, instances, concurrency and size."""

    timeout: int
    max_instances: int
    concurrency: int = 1
    memory: str = "512Mi"
    cpu: str | None = None  # None: what the memory comes with; more than 1 item at once needs 1
    extra_env: tuple[tuple[str, str], ...] = ()


def _collect(outputs: Mapping[str, pulumi.Output[str]]) -> pulumi.Output[dict[str, str]]:
    return pulumi.Output.all(**outputs).apply(lambda v: {k: str(x) for k, x in v.items()})


class GovernanceFunctions(pulumi.ComponentResource):
    """The budget guard and the three reapers, deployed with least privilege."""

    function_names: pulumi.Output[dict[str, str]]
    function_urls: pulumi.Output[dict[str, str]]
    job_names: pulumi.Output[dict[str, str]]
    source_bucket: pulumi.Output[str]
    source_object: pulumi.Output[str]

    def __init__(
        self, name: str, args: GovernanceFunctionsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("GovernanceFunctions"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        labels = args.labels.for_workload("governance").as_dict()

        bucket, archive = self._source(name, args, labels, child)
        trigger_sa = gcp.serviceaccount.Account(
            f"{name}-trigger-sa",
            account_id=account_id(args.prefix, "fn-trigger"),
            project=args.project,
            display_name="mlgov budget alerts -> on_budget_alert (Eventarc)",
            opts=child,
        )
        scheduler_sa = gcp.serviceaccount.Account(
            f"{name}-scheduler-sa",
            account_id=account_id(args.prefix, "fn-scheduler"),
            project=args.project,
            display_name="mlgov Cloud Scheduler -> cleanup functions (OIDC)",
            opts=child,
        )

        topic = work_topic_path(args.prefix, args.project) if args.fan_out is not None else None
        deployed: dict[str, _Deployed] = {}
        jobs: dict[str, gcp.cloudscheduler.Job] = {}
        for entry_point in DISPATCHERS:
            is_event = entry_point not in SCHEDULED
            shape = _Shape(
                timeout=EVENT_TIMEOUT_SECONDS if is_event else args.http_timeout_seconds,
                max_instances=args.max_instances,
                # The dispatchers publish one work item per project instead of acting.
                extra_env=(("MLGOV_WORK_TOPIC", topic),) if topic else (),
            )
            fn = self._function(
                name, args, entry_point, labels, bucket, archive, trigger_sa, is_event, shape, child
            )
            deployed[entry_point] = fn
            invoker = trigger_sa if is_event else scheduler_sa
            self._invokers(name, args, entry_point, fn, invoker, is_event, child)
            if not is_event:
                jobs[entry_point] = self._job(name, args, entry_point, fn, scheduler_sa, child)
        if args.fan_out is not None:
            deployed.update(
                self._fan_out(name, args, args.fan_out, labels, bucket, archive, deployed, child)
            )

        self.function_names = _collect({ep: d.function.name for ep, d in deployed.items()})
        self.function_urls = _collect({ep: d.function.url for ep, d in deployed.items()})
        self.job_names = _collect({ep: j.name for ep, j in jobs.items()})
        self.source_bucket = bucket.name
        self.source_object = archive.name
        self.register_outputs(
            {
                "function_names": self.function_names,
                "function_urls": self.function_urls,
                "job_names": self.job_names,
                "source_bucket": self.source_bucket,
                "source_object": self.source_object,
            }
        )

    def _fan_out(
        self,
        name: str,
        args: GovernanceFunctionsArgs,
        fan: FanOut,
        labels: dict[str, str],
        bucket: gcp.storage.Bucket,
        archive: gcp.storage.BucketObject,
        dispatchers: Mapping[str, _Deployed],
        child: pulumi.ResourceOptions,
    ) -> dict[str, _Deployed]:
        """The worker and the dead-letter logger, their push identity, queue and scope grants."""
        push_sa = gcp.serviceaccount.Account(
            f"{name}-push-sa",
            account_id=account_id(args.prefix, "fn-push"),
            project=args.project,
            display_name="mlgov work queue (Pub/Sub push, OIDC) -> on_work_item, on_dead_letter",
            opts=child,
        )
        w = fan.worker
        shapes = {
            # Sized from the quotas (worker_sizing.py); more than one item at once needs 1 vCPU.
            "on_work_item": _Shape(
                timeout=w.timeout_seconds,
                max_instances=w.instances,
                concurrency=w.concurrency,
                memory="2Gi",
                cpu="1",
            ),
            # It only logs, but every function gets a work budget above one call's timeout.
            "on_dead_letter": _Shape(timeout=120, max_instances=1),
        }
        workers: dict[str, _Deployed] = {}
        for entry_point in WORKERS:
            fn = self._function(
                name,
                args,
                entry_point,
                labels,
                bucket,
                archive,
                push_sa,
                False,
                shapes[entry_point],
                child,
                pushed=True,
            )
            workers[entry_point] = fn
            gcp.cloudrunv2.ServiceIamMember(
                f"{name}-{short_name(entry_point)}-run-invoker",
                project=args.project,
                location=args.region,
                name=fn.service,
                role="roles/run.invoker",
                member=member(push_sa.email),
                opts=child,
            )
        publishers = {ep: member(d.account.email) for ep, d in dispatchers.items()}
        WorkQueue(
            f"{name}-work",
            WorkQueueArgs(
                prefix=args.prefix,
                project=args.project,
                project_number=fan.project_number,
                labels=labels,
                max_delivery_attempts=fan.max_delivery_attempts,
                worker_uri=workers["on_work_item"].uri,
                dead_letter_uri=workers["on_dead_letter"].uri,
                push_account=push_sa,
                dispatchers=publishers,
            ),
            opts=child,
        )
        if fan.organization is not None and fan.scopes:
            ScopeGrants(
                f"{name}-scopes",
                ScopeGrantsArgs(
                    prefix=args.prefix,
                    organization=fan.organization,
                    scopes=fan.scopes,
                    dispatchers=publishers,
                    worker=member(workers["on_work_item"].account.email),
                    dispatch_permissions=RESOLVE_SCOPES,
                    work_permissions=scope_work_permissions(
                        undeploy_endpoints=args.undeploy_endpoints
                    ),
                    unlink_permissions=UNLINK_BILLING,
                ),
                opts=child,
            )
        return workers

    # ----------------------------------------------------------------------- pieces
    @staticmethod
    def _source(
        name: str,
        args: GovernanceFunctionsArgs,
        labels: dict[str, str],
        child: pulumi.ResourceOptions,
    ) -> tuple[gcp.storage.Bucket, gcp.storage.BucketObject]:
        files = source_files(args.source_dir)
        if "main.py" not in files:
            raise pulumi.RunError(f"{args.source_dir}: no main.py to deploy the functions from")
        bucket = gcp.storage.Bucket(
            f"{name}-source",
            # Bucket names are global: the project id makes this one unique.
            name=resource_name(args.project, "mlgov-fn-source"),
            project=args.project,
            location=args.region.upper(),
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            labels=labels,
            # The functions' buildConfig names the live archive, and Cloud Functions reads it
            # again whenever it rebuilds them, so nothing deletes a live object: Google keeps
            # the source of functions it deploys itself with "no retention period" (Build
            # process overview, https://cloud.google.com/functions/docs/building). Pulumi
            # deletes a superseded archive only after the functions moved to the new one; with
            # versioning that delete leaves a noncurrent version, restorable for the retention
            # period and then removed by the one lifecycle rule (noncurrent versions only).
            versioning=gcp.storage.BucketVersioningArgs(enabled=True),
            lifecycle_rules=[
                gcp.storage.BucketLifecycleRuleArgs(
                    action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
                    condition=gcp.storage.BucketLifecycleRuleConditionArgs(
                        with_state="ARCHIVED", days_since_noncurrent_time=ARCHIVE_RETENTION_DAYS
                    ),
                ),
                # Required of every bucket (mlgov-storage-abort-incomplete-uploads); it never
                # touches a complete object, so the archive a function refers to is safe.
                gcp.storage.BucketLifecycleRuleArgs(
                    action=gcp.storage.BucketLifecycleRuleActionArgs(
                        type="AbortIncompleteMultipartUpload"
                    ),
                    condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=1),
                ),
            ],
            force_destroy=True,
            opts=child,
        )
        archive = gcp.storage.BucketObject(
            f"{name}-archive",
            bucket=bucket.name,
            # The content hash in the name: a code change is a new object, so a new build.
            name=f"functions-{source_hash(files)[:16]}.zip",
            source=pulumi.AssetArchive(
                {rel: pulumi.FileAsset(str(path)) for rel, path in files.items()}
            ),
            opts=child,
        )
        return bucket, archive

    @staticmethod
    def _runtime_identity(
        name: str, args: GovernanceFunctionsArgs, entry_point: str, child: pulumi.ResourceOptions
    ) -> tuple[gcp.serviceaccount.Account, gcp.projects.IAMMember | None]:
        slug = short_name(entry_point)
        account = gcp.serviceaccount.Account(
            f"{name}-{slug}-sa",
            account_id=account_id(args.prefix, f"fn-{slug}"),
            project=args.project,
            display_name=f"mlgov function {entry_point}",
            opts=child,
        )
        permissions = function_permissions(
            entry_point,
            allow_billing_disable=args.allow_billing_disable,
            undeploy_endpoints=args.undeploy_endpoints,
            read_spend_caps=args.read_spend_caps,
        )
        if not permissions:  # on_dead_letter calls nothing; a custom role needs a permission
            return account, None
        role = gcp.projects.IAMCustomRole(
            f"{name}-{slug}-role",
            role_id=role_id(args.prefix, f"fn_{entry_point}"),
            project=args.project,
            title=f"mlgov function {entry_point}",
            description="Only what this function's code calls (functions/govern/permissions.py).",
            permissions=list(permissions),
            stage="GA",
            opts=child,
        )
        binding = gcp.projects.IAMMember(
            f"{name}-{slug}-role-binding",
            project=args.project,
            role=role.name,
            member=member(account.email),
            opts=child,
        )
        return account, binding

    def _function(
        self,
        name: str,
        args: GovernanceFunctionsArgs,
        entry_point: str,
        labels: dict[str, str],
        bucket: gcp.storage.Bucket,
        archive: gcp.storage.BucketObject,
        trigger_sa: gcp.serviceaccount.Account,
        is_event: bool,
        shape: _Shape,
        child: pulumi.ResourceOptions,
        *,
        pushed: bool = False,
    ) -> _Deployed:
        """One function; `pushed`: Pub/Sub pushes to it (internal ingress, no trigger)."""
        account, binding = self._runtime_identity(name, args, entry_point, child)
        timeout = shape.timeout
        budget = float(timeout - REPORT_MARGIN_SECONDS)
        policy_json = args.policy.apply(
            lambda p: p.model_copy(update={"time_budget_seconds": budget}).model_dump_json()
        )
        trigger = (
            gcp.cloudfunctionsv2.FunctionEventTriggerArgs(
                event_type=PUBSUB_PUBLISHED,
                pubsub_topic=args.budget_topic_id,
                # The v2 default drops a failed delivery; a missed budget alert is expensive.
                retry_policy="RETRY_POLICY_RETRY",
                service_account_email=trigger_sa.email,
                trigger_region=args.region,
            )
            if is_event
            else None
        )
        function = gcp.cloudfunctionsv2.Function(
            f"{name}-{short_name(entry_point)}",
            name=function_name(args.prefix, entry_point),
            project=args.project,
            location=args.region,
            description=f"mlgov {entry_point}",
            labels=labels,
            build_config=gcp.cloudfunctionsv2.FunctionBuildConfigArgs(
                runtime=RUNTIME,
                entry_point=entry_point,
                source=gcp.cloudfunctionsv2.FunctionBuildConfigSourceArgs(
                    storage_source=gcp.cloudfunctionsv2.FunctionBuildConfigSourceStorageSourceArgs(
                        bucket=bucket.name, object=archive.name
                    )
                ),
            ),
            service_config=gcp.cloudfunctionsv2.FunctionServiceConfigArgs(
                service_account_email=account.email,
                environment_variables={"MLGOV_POLICY": policy_json, **dict(shape.extra_env)},
                min_instance_count=0,
                max_instance_count=shape.max_instances,
                max_instance_request_concurrency=shape.concurrency,
                available_memory=shape.memory,
                available_cpu=shape.cpu,
                timeout_seconds=timeout,
                # As narrow as each trigger allows; IAM (no allUsers invoker) gates both. Pub/Sub
                # push to the run.app URL is internal traffic, as Eventarc's is.
                ingress_settings=EVENT_INGRESS if is_event or pushed else args.scheduled_ingress,
                all_traffic_on_latest_revision=True,
            ),
            event_trigger=trigger,
            # The role must be bound before the first invocation can succeed.
            opts=pulumi.ResourceOptions.merge(
                child, pulumi.ResourceOptions(depends_on=[binding] if binding else [])
            ),
        )
        service = function.service_config.apply(
            lambda c: c.service if c is not None and c.service else ""
        )
        uri = function.service_config.apply(lambda c: c.uri if c is not None and c.uri else "")
        return _Deployed(function, service, uri, account)

    @staticmethod
    def _invokers(
        name: str,
        args: GovernanceFunctionsArgs,
        entry_point: str,
        fn: _Deployed,
        invoker: gcp.serviceaccount.Account,
        is_event: bool,
        child: pulumi.ResourceOptions,
    ) -> None:
        slug = short_name(entry_point)
        invoker_member = member(invoker.email)
        # A 2nd gen function is a Cloud Run service: calls are checked against run.invoker on
        # the service. cloudfunctions.invoker covers the Functions API (and `gcloud functions
        # call`); Eventarc's push needs only run.invoker.
        if not is_event:
            gcp.cloudfunctionsv2.FunctionIamMember(
                f"{name}-{slug}-fn-invoker",
                project=args.project,
                location=args.region,
                cloud_function=fn.function.name,
                role="roles/cloudfunctions.invoker",
                member=invoker_member,
                opts=child,
            )
        gcp.cloudrunv2.ServiceIamMember(
            f"{name}-{slug}-run-invoker",
            project=args.project,
            location=args.region,
            name=fn.service,
            role="roles/run.invoker",
            member=invoker_member,
            opts=child,
        )

    @staticmethod
    def _job(
        name: str,
        args: GovernanceFunctionsArgs,
        entry_point: str,
        fn: _Deployed,
        scheduler_sa: gcp.serviceaccount.Account,
        child: pulumi.ResourceOptions,
    ) -> gcp.cloudscheduler.Job:
        timeout = args.http_timeout_seconds
        return gcp.cloudscheduler.Job(
            f"{name}-{short_name(entry_point)}-job",
            name=job_id(args.prefix, entry_point),
            project=args.project,
            region=args.region,
            description=f"mlgov: POST {entry_point}",
            schedule=args.schedules[entry_point],
            time_zone=args.time_zone,
            # Scheduler waits at most 30 minutes; the function's own timeout is the real limit.
            attempt_deadline=f"{timeout}s",
            # One retry: a reaper that missed a run catches up on the next schedule anyway.
            retry_config=gcp.cloudscheduler.JobRetryConfigArgs(
                retry_count=1, min_backoff_duration="60s", max_backoff_duration="300s"
            ),
            # The run.app URL, not the cloudfunctions.net one: same-project Scheduler requests
            # count as internal only on the default run.app URL (Restrict network ingress for
            # Cloud Run), so the job keeps working when `scheduled_ingress` is internal-only.
            http_target=gcp.cloudscheduler.JobHttpTargetArgs(
                uri=fn.uri,
                http_method="POST",
                headers={"Content-Type": "application/json"},
                oidc_token=gcp.cloudscheduler.JobHttpTargetOidcTokenArgs(
                    service_account_email=scheduler_sa.email, audience=fn.uri
                ),
            ),
            opts=child,
        )
