"""The table of what governs a stack, and which direction of each change weakens governance.

Each row names a governed value (read from a plan document by read.py), what it governs, the
direction that weakens governance and what that direction loses. `judge` applies a row to a
before/after pair. Where a change cannot be judged (a value that is not a number, a schedule that
does not parse) it counts as weakening: a reviewer should look, and in prod acknowledge it.

Directions:
  higher / lower   a number above / below the old one weakens (`none_is` says what absent means)
  true / false     turning the flag on / off weakens
  removed / added  items leaving / joining the set weaken
  widened          an allow-list that allows any value when not configured (read.ANY_VALUE):
                   items joining it, or dropping it, weaken; emptying it allows none (stronger)
  narrowed         a filter set (empty = everything) that now covers less weakens
  rarer            a cron schedule whose longest gap between runs grows weakens (cron.py)
  later            a later date (absent = never) weakens
  any              every change weakens (a different project, account, target)
  ranked           a lower rank weakens (prod > staging > dev; MONTH < QUARTER < YEAR; ...)
  identity         running as the default Compute service account (or as nobody, where GCP then
                   uses it) weakens
  shown            listed for the reviewer, never weakening on its own
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from governance.review.govdiff.change import Kind, Value
from governance.review.govdiff.cron import CronError, longest_gap_minutes

ANY_VALUE = "(any: not configured)"
"""An allow-list a document does not configure (read.py puts it): every value passes."""

Direction = Literal[
    "higher",
    "lower",
    "true",
    "false",
    "removed",
    "added",
    "widened",
    "narrowed",
    "rarer",
    "later",
    "any",
    "ranked",
    "identity",
    "shown",
]
NoneIs = Literal["infinite", "zero", "unjudged"]

# `<project number>-compute@developer.gserviceaccount.com`: the Compute Engine default service
# account (Editor on the project unless an org policy stops it).
DEFAULT_COMPUTE_SA = re.compile(r"(serviceAccount:)?\d+-compute@developer\.gserviceaccount\.com")
DEFAULT_ACCOUNT = "default"  # what GKE's nodeConfig.serviceAccount accepts for the same account


@dataclass(frozen=True, slots=True)
class Aspect:
    """One row of the table: a governed value, and the direction that weakens it."""

    kind: Kind
    what: str
    """What the value governs (shown for every change)."""
    direction: Direction
    loses: str = ""
    """What a weakening change loses (shown for weakenings)."""
    none_is: NoneIs = "unjudged"
    """For higher/lower: an absent value is no limit (infinite), nothing (zero), or unjudged."""
    ranks: Mapping[str, int] = field(default_factory=dict[str, int])
    """For ranked: a rank per value; absent is the key ""."""
    absent_is_default_account: bool = False
    """For identity: GCP runs the resource as the default Compute account when none is set."""


_ENVIRONMENTS = {"prod": 2, "staging": 1, "dev": 0}
_CREDITS = {
    "EXCLUDE_ALL_CREDITS": 2,
    "INCLUDE_SPECIFIED_CREDITS": 1,
    "INCLUDE_ALL_CREDITS": 0,
    "": 0,
}
_PERIODS = {"YEAR": 2, "QUARTER": 1, "MONTH": 0, "": 0}
_PROFILES = {"OPTIMIZE_UTILIZATION": 1, "BALANCED": 0, "": 0}
_PROVISIONING = {"SPOT": 1, "STANDARD": 0, "": 0}
_RULE_LEVELS = {"mandatory": 2, "advisory": 1, "disabled": 0}
# A cost finding without a configured level keeps its own (mandatory or advisory by finding):
# between the two, so moving to or from it in either direction that may lower it is judged so.
_FINDING_LEVELS = {"mandatory": 3, "its own level": 2, "advisory": 1, "disabled": 0}

ASPECTS: Mapping[str, Aspect] = {
    # --- the stack as a whole ---
    "stack.project": Aspect(
        "stack",
        "the project the stack governs",
        "any",
        "a different project: the budget cap, reapers and limits now act elsewhere",
    ),
    "stack.region": Aspect("stack", "the region the stack deploys to", "shown"),
    # --- where the stack's config comes from (project.read_stack, stack_config.py) ---
    "stack.esc_environments": Aspect(
        "stack",
        "ESC environments the stack file imports, in order (later ones override earlier ones)",
        "added",
        "config from an ESC environment, which neither mlgov nor the pull request can read, now "
        "reaches the stack (it can set or merge into mlgov:settings and gcp:* keys)",
    ),
    "stack.config_key": Aspect(
        "stack",
        "a stack config key the settings do not model (a provider setting, such as an API "
        "endpoint, impersonation or billing project)",
        "any",
        "a provider setting mlgov cannot judge changed: it can send the budget, cap or reaper "
        "calls elsewhere, or deploy as another identity",
    ),
    "stack.from_project": Aspect(
        "stack",
        "config keys the project's config (Pulumi.yaml) supplies to every stack that leaves "
        "them out",
        "shown",
    ),
    "stack.environment": Aspect(
        "stack",
        "the environment (prod has the strictest rules)",
        "ranked",
        "a less strict environment: prod-only protections stop applying",
        ranks=_ENVIRONMENTS,
    ),
    # --- `limits` (the guardrails the policy pack enforces; the plan's policy_config) ---
    "limits.max_idle_minutes": Aspect(
        "limit",
        "longest idle time a notebook may keep before shutdown",
        "higher",
        "idle notebooks may run (and bill) longer",
        none_is="infinite",
    ),
    "limits.allowed": Aspect(
        "limit",
        "what the stack may create (machine types, GPUs, tiers, locations)",
        "added",
        "more expensive choices are allowed",
    ),
    "limits.allowed_or_any": Aspect(
        "limit",
        "what the stack may create (machine types, tiers; not configured: anything)",
        "widened",
        "more expensive choices are allowed (an allow-list not configured allows any)",
    ),
    "limits.max_gpu_vm_run_hours": Aspect(
        "limit",
        "longest run a standalone GPU VM may be given (maxRunDuration)",
        "higher",
        "GPU VMs may be set to run (and bill) longer before GCP stops them",
        none_is="infinite",
    ),
    "limits.budget_required": Aspect(
        "limit",
        "whether the stack must hold a budget (mlgov-budget-required)",
        "false",
        "the stack may have no budget: nothing alerts on or caps its spend",
    ),
    "limits.billing_export_dataset": Aspect(
        "limit",
        "the billing export dataset the retention rule protects",
        "any",
        "the rule now protects another dataset: the export may expire or be deleted",
    ),
    "limits.region": Aspect(
        "limit",
        "the region the location rule holds resources to",
        "any",
        "resources may sit in another region (or any, when none is set) unflagged",
    ),
    # --- which policies run, at which level (policy_selection, a --policy-config) ---
    "rule.level": Aspect(
        "rule",
        "the level a policy runs at (mandatory blocks the PR)",
        "ranked",
        "the policy no longer blocks (advisory) or no longer runs (disabled)",
        ranks=_RULE_LEVELS,
    ),
    "rule.finding_level": Aspect(
        "rule",
        "the level a cost finding is reported at (a policy config sets it)",
        "ranked",
        "the cost finding no longer blocks, or is no longer reported",
        ranks=_FINDING_LEVELS,
    ),
    "limits.max_log_retention_days": Aspect(
        "limit",
        "longest log retention",
        "higher",
        "logs may be kept (and billed) longer",
        none_is="infinite",
    ),
    "limits.required_labels": Aspect(
        "limit",
        "cost-attribution labels every resource must carry",
        "removed",
        "spend can no longer be attributed by those labels",
    ),
    # --- MLGOV_POLICY: what the deployed functions do ---
    "policy.function": Aspect(
        "policy",
        "a governance function",
        "removed",
        "the function is gone: nothing runs what it did",
    ),
    "policy.dry_run": Aspect(
        "policy",
        "whether the functions act or only simulate",
        "true",
        "enforcement off: the functions only log what they would stop",
    ),
    "policy.exempt_label": Aspect(
        "policy",
        "the label that exempts a resource from every action",
        "any",
        "resources carrying the new label are skipped",
    ),
    "policy.projects": Aspect(
        "policy",
        "projects the functions govern",
        "removed",
        "a project is no longer governed by the functions",
    ),
    "policy.project.environment": Aspect(
        "policy",
        "a governed project's environment",
        "ranked",
        "a less strict environment for the project",
        ranks=_ENVIRONMENTS,
    ),
    "policy.project.zones": Aspect(
        "policy",
        "zones the functions look at",
        "removed",
        "workloads in the dropped zones are never stopped",
    ),
    "policy.project.allow_billing_disable": Aspect(
        "policy",
        "whether the cap may unlink billing (never in prod)",
        "false",
        "the budget can no longer unlink billing at disable_billing_at",
    ),
    "policy.budgets": Aspect(
        "policy",
        "budgets whose notifications the functions act on",
        "removed",
        "a budget's notifications now stop nothing",
    ),
    "policy.budget.projects": Aspect(
        "policy",
        "projects a budget's cap stops",
        "removed",
        "the cap no longer stops workloads in the dropped projects",
    ),
    "policy.budget.stop_at": Aspect(
        "policy",
        "fraction of the budget at which workloads are stopped",
        "higher",
        "enforcement later (or never): more spend before anything stops",
        none_is="infinite",
    ),
    "policy.budget.disable_billing_at": Aspect(
        "policy",
        "fraction of the budget at which billing is unlinked",
        "higher",
        "billing is unlinked later (or never)",
        none_is="infinite",
    ),
    "policy.budget.amount": Aspect(
        "policy",
        "budget amount the functions check notifications against",
        "higher",
        "a larger budget: every threshold is reached later",
        none_is="unjudged",
    ),
    "policy.budget.billing_account": Aspect(
        "policy",
        "billing account the functions expect notifications from",
        "any",
        "notifications are checked against a different account",
    ),
    "policy.budget.currency": Aspect(
        "policy",
        "currency the functions expect budget notifications in",
        "any",
        "notifications are checked against a different currency",
    ),
    "policy.budget.period": Aspect(
        "policy",
        "budget period the functions judge notifications in",
        "ranked",
        "a shorter (or custom) period: the cap's spend count resets sooner",
        ranks=_PERIODS,
    ),
    "policy.idle.max_percent": Aspect(
        "policy",
        "utilization below which an accelerator counts as idle",
        "lower",
        "fewer idle GPUs/TPUs qualify for stopping",
        none_is="zero",
    ),
    "policy.idle.window_minutes": Aspect(
        "policy",
        "how long an accelerator must be idle before it is stopped",
        "higher",
        "idle accelerators run longer before they are stopped",
        none_is="infinite",
    ),
    "policy.idle.workloads": Aspect(
        "policy",
        "workloads the idle reaper looks at",
        "removed",
        "idle accelerators of the dropped workloads are never stopped",
    ),
    "policy.undeploy_endpoints": Aspect(
        "policy",
        "whether the cap undeploys labelled Vertex AI endpoints",
        "false",
        "serving endpoints keep running past the cap",
    ),
    # --- scopes, fan-out, the reapers' blast radius (docs/architecture.md#organization-scale) ---
    "policy.scopes": Aspect(
        "policy",
        "folders and organizations whose projects the functions govern",
        "removed",
        "the projects under a dropped scope are no longer governed",
    ),
    "policy.scope.organizations": Aspect(
        "policy",
        "organizations governed whole (every project in them)",
        "added",
        "a scope widened to a whole organization: the cap and the reapers may act on every "
        "project in it",
    ),
    "policy.scope.labels": Aspect(
        "policy",
        "the label selector of a scope (a project must carry every pair)",
        "removed",
        "the scope widened: projects without the dropped label are acted on too",
    ),
    "policy.scope.environment": Aspect(
        "policy",
        "a scope's environment",
        "ranked",
        "a less strict environment for the scope's projects",
        ranks=_ENVIRONMENTS,
    ),
    "policy.scope.allow_billing_disable": Aspect(
        "policy",
        "whether the cap may unlink billing in a scope's projects (never in prod)",
        "true",
        "billing unlink allowed in every project of the scope: it stops all their services",
    ),
    "policy.scope.vertex_regions": Aspect(
        "policy",
        "regions where a scope's Vertex AI jobs are read",
        "removed",
        "Vertex AI jobs in the dropped regions are never cancelled",
    ),
    "policy.budget.scopes": Aspect(
        "policy",
        "scopes a budget's cap acts in",
        "removed",
        "the cap no longer stops workloads in the dropped scopes",
    ),
    "policy.fan_out": Aspect(
        "policy",
        "whether a dispatcher publishes one work item per project (fan-out)",
        "ranked",
        "fan-out off for a scoped stack: one invocation runs out of time (540 s) long before "
        "a large scope is done",
        ranks={"on": 1, "off": 1, "off with scopes": 0},
    ),
    "policy.blast.max_stops_per_run": Aspect(
        "policy",
        "most stops one reaper run may make before it holds them all and pages",
        "higher",
        "a higher ceiling: a runaway reaper stops more before anyone is paged",
        none_is="infinite",
    ),
    "policy.blast.max_stop_percent": Aspect(
        "policy",
        "most of the running estate (percent) one reaper run may stop",
        "higher",
        "a higher (or no) share of the estate may be stopped in one run",
        none_is="infinite",
    ),
    "policy.blast.max_error_rate": Aspect(
        "policy",
        "share of failed calls at which a reaper run stops acting",
        "higher",
        "the breaker trips later: a run keeps acting through more failures",
        none_is="infinite",
    ),
    "policy.blast.canary": Aspect(
        "policy",
        "canary projects and folders a reaper acts on first",
        "removed",
        "no canary there: a bad reaper run reaches every project at once",
    ),
    "policy.blast.acting_reapers": Aspect(
        "policy",
        "reapers that act (any other simulates)",
        "widened",
        "another reaper acts instead of simulating (absent: every reaper, future ones "
        "included, acts)",
    ),
    "policy.other": Aspect("policy", "a setting of the functions' policy", "shown"),
    "policy.unreadable": Aspect(
        "policy",
        "the functions' MLGOV_POLICY",
        "any",
        "the functions cannot read their policy: they refuse to act",
    ),
    # --- budgets ---
    "budget.presence": Aspect(
        "budget",
        "a budget",
        "removed",
        "budget removed: nobody hears about overspend, and the cap never fires",
    ),
    "budget.amount": Aspect(
        "budget",
        "budget amount",
        "higher",
        "a larger budget: every threshold and the cap fire later",
        none_is="infinite",
    ),
    "budget.currency": Aspect(
        "budget",
        "budget currency",
        "any",
        "the same number in a different currency",
    ),
    "budget.billing_account": Aspect(
        "budget",
        "billing account the budget watches",
        "any",
        "a different billing account: the old one loses its budget",
    ),
    "budget.filter": Aspect(
        "budget",
        "what spend the budget counts (empty = all)",
        "narrowed",
        "budget narrowed: spend outside the filter is no longer counted",
    ),
    "budget.credits": Aspect(
        "budget",
        "how credits count against the budget",
        "ranked",
        "credits now hide more spend from the budget",
        ranks=_CREDITS,
    ),
    "budget.credit_types": Aspect(
        "budget",
        "credit types subtracted from spend",
        "added",
        "more credit types hide spend from the budget",
    ),
    "budget.period": Aspect(
        "budget",
        "budget period",
        "ranked",
        "a shorter period resets the count sooner",
        ranks=_PERIODS,
    ),
    "budget.custom_period": Aspect(
        "budget",
        "custom budget period",
        "any",
        "a different custom period",
    ),
    "budget.thresholds": Aspect(
        "budget",
        "alert thresholds (fractions of the amount)",
        "removed",
        "fewer alerts: a removed threshold no longer marks that spend",
    ),
    "budget.topic": Aspect(
        "budget",
        "Pub/Sub topic the budget publishes to (the cap listens there)",
        "any",
        "notifications go elsewhere: the cap may never hear them",
    ),
    "budget.channels": Aspect(
        "budget",
        "Monitoring channels that get budget e-mails",
        "removed",
        "fewer people hear about overspend",
    ),
    "budget.no_default_recipients": Aspect(
        "budget",
        "whether billing admins get budget e-mails",
        "true",
        "billing admins no longer get budget e-mails",
    ),
    # --- spend caps (Cloud Billing: block new usage of one service in one project) ---
    "spend_cap.presence": Aspect(
        "budget",
        "a spend cap (Google blocks new usage of its service in its project past the amount)",
        "removed",
        "spend cap removed: nothing blocks that service's spend any more",
    ),
    "spend_cap.amount": Aspect(
        "budget",
        "spend cap amount (the month's ceiling for its service)",
        "higher",
        "a higher spend cap: more of that service's spend before Google blocks it",
        none_is="infinite",
    ),
    "spend_cap.scope": Aspect(
        "budget",
        "what a spend cap covers (its project and service)",
        "any",
        "the cap now blocks another service or project, and no longer the old one",
    ),
    "spend_cap.armed": Aspect(
        "budget",
        "whether the budget is a spend cap at all (spendCap.inputState CONFIGURED)",
        "false",
        "no longer a cap: the service is only alerted on, never blocked",
    ),
    # --- autoscaling limits: node auto-provisioning and node pools ---
    "limit.nap": Aspect(
        "limit",
        "node auto-provisioning maximum of a resource (absent: NAP cannot create it)",
        "higher",
        "higher limits: autoscaling may create more (accelerator) capacity",
        none_is="zero",
    ),
    "limit.nap_profile": Aspect(
        "limit",
        "autoscaling profile",
        "ranked",
        "BALANCED keeps underused nodes longer than OPTIMIZE_UTILIZATION",
        ranks=_PROFILES,
    ),
    "limit.nap_enabled": Aspect("limit", "whether node auto-provisioning is on", "shown"),
    "limit.pool_max": Aspect(
        "limit",
        "most nodes a pool may scale to",
        "higher",
        "higher limits: the pool may scale to more (accelerator) nodes",
        none_is="zero",
    ),
    "limit.pool_min": Aspect(
        "limit",
        "nodes a pool keeps even when idle",
        "higher",
        "more nodes run (and bill) while idle",
        none_is="zero",
    ),
    "limit.pool": Aspect("limit", "an autoscaled node pool", "shown"),
    "limit.spot": Aspect(
        "limit",
        "whether capacity is spot",
        "false",
        "on-demand capacity (60-91% dearer)",
    ),
    "limit.provisioning": Aspect(
        "limit",
        "VM provisioning model",
        "ranked",
        "on-demand capacity (60-91% dearer)",
        ranks=_PROVISIONING,
    ),
    "limit.max_run": Aspect(
        "limit",
        "seconds after which GCP stops a VM (maxRunDuration)",
        "higher",
        "a forgotten VM runs longer (absent: forever)",
        none_is="infinite",
    ),
    "limit.idle_timeout": Aspect(
        "limit",
        "seconds after which an idle notebook shuts down",
        "higher",
        "idle notebooks run longer (absent: Workbench's own default, 180 min, or none)",
        none_is="infinite",
    ),
    "limit.quota": Aspect(
        "limit",
        "quota override (a hard cap on use)",
        "higher",
        "a higher (or no) cap on use",
        none_is="infinite",
    ),
    # --- labels with a meaning (docs/architecture.md#labels) ---
    "label.exempt": Aspect(
        "label",
        "`mlgov-exempt`: automation never stops or changes the resource",
        "true",
        "more exemptions: the cap and the reapers skip this resource",
    ),
    "label.expires_on": Aspect(
        "label",
        "`mlgov-expires-on`: reap_expired stops the resource after that date",
        "later",
        "the resource is stopped later (or never)",
    ),
    "label.undeploy_at_cap": Aspect(
        "label",
        "`mlgov-undeploy-at-cap`: the cap undeploys this endpoint",
        "false",
        "the endpoint keeps serving past the cap",
    ),
    "label.other": Aspect("label", "an `mlgov-` label", "shown"),
    # --- Cloud Scheduler jobs ---
    "schedule.presence": Aspect(
        "schedule",
        "a Cloud Scheduler job",
        "removed",
        "the job is gone: what it triggered no longer runs",
    ),
    "schedule.cron": Aspect(
        "schedule",
        "when the job runs",
        "rarer",
        "rarer schedule: a longer gap between runs, so idle and expired workloads run longer "
        "before they are stopped",
    ),
    "schedule.time_zone": Aspect("schedule", "time zone of the schedule", "shown"),
    "schedule.paused": Aspect(
        "schedule",
        "whether the job is paused",
        "true",
        "paused: the job never runs",
    ),
    "schedule.target": Aspect(
        "schedule",
        "what the job calls",
        "any",
        "the job calls something else: the governance it triggered may not run",
    ),
    "schedule.caller": Aspect(
        "schedule",
        "identity the job calls its target as",
        "any",
        "a different (or no) identity: the call may be refused",
    ),
    "schedule.retries": Aspect(
        "schedule",
        "retries of a failed run",
        "lower",
        "a failed run is retried less",
        none_is="zero",
    ),
    # --- IAM ---
    "iam.grant": Aspect(
        "iam",
        "a role granted to a principal",
        "shown",
    ),
    "iam.governance_grant": Aspect(
        "iam",
        "a role a governance identity acts with",
        "removed",
        "the function or job loses permissions it needs to act",
    ),
    "iam.role_permissions": Aspect(
        "iam",
        "permissions of a custom role",
        "removed",
        "whoever holds the role can no longer do what it did",
    ),
    # --- who workloads run as ---
    "identity.account": Aspect(
        "identity",
        "service account the workload runs as",
        "identity",
        "runs as the default Compute service account (Editor on the project by default)",
    ),
    "identity.account_defaulted": Aspect(
        "identity",
        "service account the workload runs as (absent: GCP's default)",
        "identity",
        "runs as the default Compute service account (Editor on the project by default)",
        absent_is_default_account=True,
    ),
    # --- issue 30 (judge): what else bounds the automation and the estimate -----------------
    # Timeouts and time budgets (time_budgets.py; a budget below the working minimum is refused
    # before any diff), authorized networks by the share of IPv4 they open (networks.py), the
    # usage assumptions behind every estimate (usage.py), lookalike labels (label_scripts.py).
    "timeout.function": Aspect(
        "limit",
        "seconds the platform lets a governance function run (serviceConfig.timeoutSeconds)",
        "lower",
        "the function is stopped sooner: a run may end before it has acted on everything",
    ),
    "timeout.time_budget": Aspect(
        "policy",
        "seconds a governance function gives itself to act (MLGOV_POLICY time_budget_seconds)",
        "lower",
        "the function stops acting sooner: fewer workloads are stopped per run",
    ),
    "timeout.call": Aspect(
        "policy",
        "seconds a governance function waits for one API answer (call_timeout_seconds)",
        "any",
        "a different per-call timeout: calls give up sooner, or fewer fit in the time budget",
    ),
    "timeout.attempt_deadline": Aspect(
        "schedule",
        "seconds Cloud Scheduler waits for a run to answer (attemptDeadline)",
        "lower",
        "Scheduler gives up on a run sooner and retries it, or reports it failed",
    ),
    "network.share": Aspect(
        "limit",
        "share of all IPv4 addresses that may reach the endpoint (authorized networks)",
        "higher",
        "more of the internet may reach the endpoint",
        none_is="unjudged",
    ),
    "network.google_ranges": Aspect(
        "limit",
        "whether every Google Cloud public IP may reach the control plane",
        "true",
        "any Compute Engine VM, in any project, may reach the control plane",
    ),
    "usage.amount": Aspect(
        "stack",
        "a usage assumption the estimate is priced with (settings: usage)",
        "lower",
        "less assumed usage: the estimate, budget findings and headline shrink without any "
        "resource changing",
    ),
    "usage.commitment": Aspect(
        "stack",
        "whether machines are priced at committed-use prices (settings: usage.commitment)",
        "ranked",
        "committed-use prices lower the estimate; the bill stays on-demand without a commitment",
        ranks={"none": 2, "": 2, "1y": 1, "3y": 0},
    ),
    "usage.shown": Aspect("stack", "an assumption on where or when the estimate applies", "shown"),
    "label.lookalike": Aspect(
        "label",
        "label keys or values that mix scripts or hold lookalike characters",
        "added",
        "a label that only looks like the real one: spend no longer matches its team, cost "
        "center or budget filter",
    ),
    # --- end issue 30 (judge) ------------------------------------------------------------------
}


def _number(value: Value, none_is: NoneIs) -> float | None:
    if value is None:
        return {"infinite": math.inf, "zero": 0.0, "unjudged": None}[none_is]
    if isinstance(value, bool | tuple):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _items(value: Value) -> set[str]:
    if value is None:
        return set()
    return set(value) if isinstance(value, tuple) else {str(value)}


def _truthy(value: Value) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _later(before: Value, after: Value) -> bool:
    if after is None:
        return before is not None  # an expiry removed: never stopped
    if before is None:
        return False  # an expiry added
    # ISO dates (YYYY-MM-DD) order as strings; anything else cannot be judged.
    iso = re.compile(r"\d{4}-\d{2}-\d{2}")
    if not (iso.fullmatch(str(before)) and iso.fullmatch(str(after))):
        return True
    return str(after) > str(before)


def _rarer(before: Value, after: Value) -> bool:
    # What governs is how long a workload can wait for the next run, not how many runs a year
    # make: `* * 1 * *` runs 1,440 times a month, all on one day.
    if after is None:
        return True
    try:
        old = longest_gap_minutes(str(before)) if before is not None else math.inf
        return longest_gap_minutes(str(after)) > old
    except CronError:
        return True


def is_default_account(value: Value, absent_is_default: bool) -> bool:
    """True for the default Compute service account (or nothing, where GCP then uses it)."""
    if value is None or value == "":
        return absent_is_default
    return value == DEFAULT_ACCOUNT or bool(DEFAULT_COMPUTE_SA.fullmatch(str(value)))


def judge(aspect: Aspect, before: Value, after: Value) -> bool:
    """Whether changing `before` to `after` weakens governance, by the aspect's direction."""
    d = aspect.direction
    if d in ("higher", "lower"):
        old, new = _number(before, aspect.none_is), _number(after, aspect.none_is)
        if old is None or new is None:
            return True
        return new > old if d == "higher" else new < old
    if d == "true":
        return _truthy(after) and not _truthy(before)
    if d == "false":
        return _truthy(before) and not _truthy(after)
    if d == "removed":
        return bool(_items(before) - _items(after)) or (before is not None and after is None)
    if d == "added":
        return bool(_items(after) - _items(before))
    if d == "widened":
        if before == ANY_VALUE:
            return False  # nothing is wider than any
        return after == ANY_VALUE or bool(_items(after) - _items(before))
    if d == "narrowed":
        old_items, new_items = _items(before), _items(after)
        return bool(new_items) and (not old_items or bool(old_items - new_items))
    if d == "rarer":
        return _rarer(before, after)
    if d == "later":
        return _later(before, after)
    if d == "any":
        return True
    if d == "ranked":
        old_rank = aspect.ranks.get("" if before is None else str(before))
        new_rank = aspect.ranks.get("" if after is None else str(after))
        return old_rank is None or new_rank is None or new_rank < old_rank
    if d == "identity":
        absent = aspect.absent_is_default_account
        return is_default_account(after, absent) and not is_default_account(before, absent)
    return False  # shown
