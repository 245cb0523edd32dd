"""Which rules run on a plan, and at which level: mlgov's own stacks, other programs, a config.

mlgov's own stacks get every rule at its own level (registry.py). Another team's Pulumi
program did not adopt mlgov's components, labels or limits, so `OTHER_PROGRAM` says, rule by
rule and with the reason, what changes there: rules whose premise is mlgov's own stack do not
run (`disabled`), and mlgov's cost house rules are reported without blocking (`advisory`).
Every other rule (Google's acceptance limits, public exposure, default service accounts, the
region, label syntax, production safety) runs as it does on mlgov's stacks.

A policy-pack config (pack_config.py) wins over both: a policy it gives a level (or `all`)
runs at that level; a policy it lists without one runs at its own level (listing or configuring
a rule asks for it); a rule off only for want of a setting (`unless`) runs once the config gives
that setting. Pure: no pulumi, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from mlgov_policies.pack_config import Level, PackConfig
from mlgov_policies.registry import RULES
from mlgov_policies.rule import Enforcement

Program = Literal["mlgov", "other"]
MLGOV: Program = "mlgov"
OTHER: Program = "other"


@dataclass(frozen=True)
class OtherProgram:
    """How a rule runs on a program that is not mlgov's own, and why."""

    level: Literal["disabled", "advisory"]
    why: str
    unless: str | None = None
    """A PolicyConfig key: when the policy config gives it, the rule runs at its own level."""


_HOUSE_GPU = (
    "mlgov's cost rule for training capacity; on-demand or always-on GPUs can be another "
    "team's deliberate choice (serving, reservations)"
)
_HOUSE_BUCKET = (
    "mlgov's storage hygiene; another program's bucket may have to keep every object (a "
    "compliance archive)"
)

OTHER_PROGRAM: Mapping[str, OtherProgram] = {
    # --- not run: the premise is mlgov's own stack -------------------------------------------
    "mlgov-labels-required": OtherProgram(
        "disabled",
        "mlgov's five cost-attribution labels; another program has its own scheme: configure "
        "required_labels to check yours",
        unless="required_labels",
    ),
    "mlgov-labels-expiry-not-exempt": OtherProgram(
        "disabled", "reads mlgov-expires-on and mlgov-exempt, labels only mlgov's functions act on"
    ),
    "mlgov-workbench-gpu-allowed": OtherProgram(
        "disabled",
        "mlgov's per-environment GPU allow-list (default T4 and L4): configure "
        "notebook_gpu_types to check yours",
        unless="notebook_gpu_types",
    ),
    "mlgov-vertex-serving-accelerators": OtherProgram(
        "disabled",
        "mlgov's per-environment accelerator allow-list (default: none on Vertex serving): "
        "configure vertex_serving_gpu_types to check yours",
        unless="vertex_serving_gpu_types",
    ),
    "mlgov-vertex-min-replicas": OtherProgram(
        "disabled",
        "limits idle capacity outside prod, and only mlgov's own stacks say their environment: "
        "configure environment to check it",
        unless="environment",
    ),
    "mlgov-gke-autoprovisioning-limits": OtherProgram(
        "disabled",
        "mlgov's GKE design (node auto-provisioning with CPU, memory and GPU limits); fixed or "
        "autoscaled node pools serve other programs as well",
    ),
    "mlgov-gke-autopilot-not-capped": OtherProgram(
        "disabled", "about the reach of mlgov's budget cap function"
    ),
    "mlgov-budget-required": OtherProgram(
        "disabled",
        "expects the stack to hold its own budget (mlgov's ProjectBudget); other teams' budgets "
        "often live on the billing account or in another stack",
    ),
    "mlgov-budget-topic-wired": OtherProgram(
        "disabled", "expects mlgov's budget guard function to listen on the budget topic"
    ),
    "mlgov-billing-budget-topic-publisher": OtherProgram(
        "disabled", "protects mlgov's budget cap function, which acts on what the topic delivers"
    ),
    "mlgov-billing-disable-not-in-prod": OtherProgram(
        "disabled", "reads MLGOV_POLICY, the configuration of mlgov's own functions"
    ),
    "mlgov-bigquery-billing-export-retained": OtherProgram(
        "disabled", "finds the billing export dataset by mlgov's dataset name and workload label"
    ),
    "mlgov-billing-spend-cap-paired": OtherProgram(
        "disabled", "pairs mlgov's spend caps with the budget its budget function listens to"
    ),
    "mlgov-billing-spend-cap-blocks-automation": OtherProgram(
        "disabled", "protects mlgov's own governance functions from its spend caps"
    ),
    # --- advisory: mlgov's cost house rules, shown to reviewers but never blocking ----------------
    "mlgov-workbench-idle-shutdown": OtherProgram(
        "advisory", "mlgov's idle limit for notebooks; another team may run them differently"
    ),
    "mlgov-workbench-guest-attributes": OtherProgram(
        "advisory", "needed by mlgov's idle shutdown (advisory here too)"
    ),
    "mlgov-workbench-root-access": OtherProgram(
        "advisory", "its opt-in is mlgov's label mlgov-root-access"
    ),
    "mlgov-training-spot": OtherProgram("advisory", _HOUSE_GPU),
    "mlgov-training-scale-from-zero": OtherProgram("advisory", _HOUSE_GPU),
    "mlgov-training-max-run-duration": OtherProgram("advisory", _HOUSE_GPU),
    "mlgov-gke-no-gpu-default-pool": OtherProgram("advisory", _HOUSE_GPU),
    "mlgov-bigquery-dataset-expiration": OtherProgram(
        "advisory", "another program's datasets may hold data it must keep"
    ),
    "mlgov-bigquery-table-partitioned": OtherProgram(
        "advisory", "mlgov's query-cost rule; small or external tables need no partitions"
    ),
    "mlgov-storage-lifecycle-required": OtherProgram("advisory", _HOUSE_BUCKET),
    "mlgov-storage-abort-incomplete-uploads": OtherProgram(
        "advisory",
        "mlgov's storage hygiene; a bucket that never takes multipart uploads needs none",
    ),
    "mlgov-artifactregistry-cleanup-policies": OtherProgram(
        "advisory", "mlgov's image retention; another team may keep every image it shipped"
    ),
    "mlgov-logging-retention-bounded": OtherProgram(
        "advisory", "mlgov's 30-day log limit; other programs may have to retain logs longer"
    ),
    "mlgov-vertex-autoscaling-bounds": OtherProgram(
        "advisory", "mlgov's capacity rule; another team may size replicas by hand"
    ),
    "mlgov-location-in-region": OtherProgram(
        "advisory",
        "another program may place resources in several regions on purpose: each is judged "
        "against the region its own provider gives it, and one set elsewhere is shown, not "
        "blocked; configure region to hold every resource to one",
        unless="region",
    ),
    "mlgov-schema-valid-inputs": OtherProgram(
        "advisory",
        "checks inputs against the pulumi-gcp version mlgov installs; another program may pin "
        "another major version, whose inputs differ",
    ),
}


def _default(rule_level: Enforcement, program: Program, name: str, pack: PackConfig) -> Level:
    other = OTHER_PROGRAM.get(name) if program == OTHER else None
    if other is None or (other.unless is not None and other.unless in pack.values):
        return rule_level
    if other.level == "advisory" and rule_level == "advisory":
        return rule_level
    return other.level


def rule_levels(program: Program = MLGOV, pack: PackConfig | None = None) -> dict[str, Level]:
    """Every rule's level for a plan of `program` under `pack` (`disabled`: not run)."""
    config = pack if pack is not None else PackConfig()
    levels: dict[str, Level] = {}
    for rule in RULES:
        chosen = config.level(rule.name)
        if chosen is None and rule.name in config.named:
            chosen = rule.enforcement  # listed without a level: asked for, at its own level
        levels[rule.name] = (
            chosen if chosen is not None else _default(rule.enforcement, program, rule.name, config)
        )
    return levels


def finding_level(name: str, own: Enforcement, pack: PackConfig | None) -> Level:
    """The level of a finding outside the rule index (a cost finding) under `pack`."""
    chosen = pack.level(name) if pack is not None else None
    return chosen if chosen is not None else own
