"""`mlgov plan` and `mlgov check`: build a plan document from a stack, or re-check one.

`plan_stack` runs the project's program under mocks (offline.py), evaluates the policy rules and
cost estimates over what it registered, and records the settings that do nothing under
`warnings` (`{"key", "message"}` each; the CLI prints them on stderr). `evaluate_document`
re-runs policies and costs over a document (read by document.py), which is all `check` does.
Rendering is in render.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from governance.costs.budget_fit import budget_violations
from governance.costs.catalog import default_catalog
from governance.costs.errors import CostError
from governance.costs.estimate import ResourceCost, estimate_resources
from governance.costs.findings import NOT_OFFERED, cost_findings
from governance.costs.usage_file import UsageFile, UsageFileError
from governance.errors import CliError, Exit
from governance.inputs.document import (
    SCHEMA_VERSION,
    PlanDocument,
    PlanResource,
    assumptions_of,
    usage_file_of,
)
from governance.inputs.project import (
    context_of,
    display,
    find_project,
    read_stack,
    stack_file_of,
)
from governance.inputs.stack_config import StackConfig
from governance.review.collector import fewer_collections
from governance.review.cost_findings import COST_FINDINGS
from governance.review.cost_lines import COST_LINE_KEYS, cost_line_keys
from governance.review.placeholders import placeholder_findings
from governance.review.policy_scope import Scope, record, scope_of
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.pack_config import PackConfig
from mlgov_policies.props import as_list, as_mapping
from mlgov_policies.vocabulary import is_component


def evaluate_document(
    doc: PlanDocument,
    usage_file: UsageFile | None = None,
    cost_lines: bool = True,
    policy_config: PackConfig | None = None,
) -> PlanDocument:
    """Fill `monthly_usd`, `cost` and `violations` of a (shape-checked) plan document, in place.

    `usage_file` (a `--usage-file`) replaces the usage file the document carries, if any, and
    `policy_config` (a `--policy-config`) the policy config it carries; which rules run, at
    which level, is policy_scope.py's decision (another team's program is not held to mlgov's
    own stack rules). `cost_lines=False` leaves the rows' cost lines out (the plan table does
    not show them, and for a large plan writing them is most of the time `check` spends on
    costs).
    """
    # Component resources (our own `mlgov:index:*` wrappers) hold no cloud resource themselves.
    resources = [r for r in doc["resources"] if not is_component(r["type"])]
    catalog = default_catalog()
    declared = usage_file if usage_file is not None else usage_file_of(doc)
    try:
        report = estimate_resources(resources, assumptions_of(doc), catalog, declared)
    except UsageFileError as err:
        raise CliError(err.problems) from None
    except CostError as err:
        raise CliError(f"cost: {err}") from None
    if declared is not None:
        doc["usage_file"] = declared.as_dict()
    costs = {(rc.type, rc.name): rc for rc in report.resources}
    for resource in resources:
        if (rc := costs.get((resource["type"], resource["name"]))) is not None:
            _cost_keys(resource, rc, cost_lines)
    stack = doc.get("stack") or ""
    scope = scope_of(doc, policy_config)
    # A preview's retained resources (deleted with retainOnDelete) still bill, but the stack no
    # longer manages them: priced above, not held to the rules.
    managed = [r for r in resources if not cast(Mapping[str, Any], r).get("retained")]
    found = evaluate_resources(managed, scope.config, stack=stack, levels=scope.levels)
    violations: list[dict[str, Any]] = [v.as_dict() for v in found]
    # Findings the reader of a Pulumi file made about the file's own settings (a provider's
    # reserved default labels): they concern no resource's inputs, so no rule sees them.
    violations += [dict(f) for f in doc.get("input_findings") or []]
    # A TPU in a zone Google's zone list rules out is already a finding (with the zone and its
    # source); the estimate's "not offered in this region" would say it a second time.
    zone_refused = {(v.type, v.resource) for v in found if v.policy == "mlgov-tpu-zone-offered"}
    violations += [
        f
        for f in cost_findings(report)
        if f["policy"] != NOT_OFFERED or (f["type"], f["resource"]) not in zone_refused
    ]
    try:
        violations += budget_violations(resources, report, stack=stack or "stack")
    except CostError as err:  # e.g. a budget amount that is not a number
        raise CliError(f"cost: {err}") from None
    # From the document's own record, so `check` and `comment` re-evaluating it keep the finding;
    # prod if the stack's own config or the policy config the document is checked with says so.
    own = as_mapping(cast(Mapping[str, Any], doc).get("policy_config"))
    prod = "prod" in (scope.config.environment, own.get("environment"))
    violations += esc_findings(doc, prod)
    violations += placeholder_findings(doc, prod)
    violations = _at_levels(violations, scope)
    record(doc, scope)
    doc.setdefault("schema_version", SCHEMA_VERSION)
    doc["currency"] = catalog.currency
    doc["price_catalog"] = {"version": catalog.version, "date": catalog.generated}
    if catalog.refreshed:
        doc["price_catalog"]["refreshed"] = catalog.refreshed
    sources = report.price_sources()
    if cost_lines:
        # where each price a cost line used comes from, once per document (lines name the key)
        doc["price_catalog"]["sources"] = sources
    # The catalog's date is its Billing export's; prices read from Google's pricing pages carry
    # their own. A reader of the total needs the span of the ones this plan used.
    if dates := sorted({s["date"] for s in sources.values() if s.get("date")}):
        doc["price_catalog"]["price_dates"] = {"first": dates[0], "last": dates[-1]}
    doc["violations"] = violations
    doc["cost"] = report.as_dict()
    if waiting := report.depends_on_usage():
        doc["cost"]["depends_on_usage"] = waiting
    return doc


def _at_levels(violations: list[dict[str, Any]], scope: Scope) -> list[dict[str, Any]]:
    """Cost findings at the level the policy config gives them (`disabled`: dropped).

    Rule findings already carry theirs (evaluate_resources).
    """
    kept: list[dict[str, Any]] = []
    for v in violations:
        if v.get("policy") in COST_FINDINGS:
            own = "mandatory" if v.get("enforcement") == "mandatory" else "advisory"
            level = scope.finding_level(str(v["policy"]), own)
            if level == "disabled":
                continue
            v["enforcement"] = level
        kept.append(v)
    return kept


def _cost_keys(resource: PlanResource, rc: ResourceCost, lines: bool = True) -> None:
    """Set a row's cost keys from its estimate.

    `monthly_usd` (null when unpriced, with `unpriced` saying why), the list price beside a
    committed one, and the nearest-location prices it used.
    """
    doc = cast(dict[str, Any], resource)
    for key in ("unpriced", "list_monthly_usd", "price_fallbacks", "worst_case_monthly_usd",
                *COST_LINE_KEYS):  # fmt: skip
        doc.pop(key, None)  # `check` re-evaluates a document that may carry old values
    if lines:
        cost_line_keys(doc, rc)
    if rc.unpriced:
        doc["monthly_usd"] = None
        doc["unpriced"] = rc.unpriced
        return
    doc["monthly_usd"] = round(rc.monthly_usd, 2)
    if rc.worst_case_usd is not None:
        # Informational (a query quota's worst case), not part of any total.
        doc["worst_case_monthly_usd"] = round(rc.worst_case_usd, 2)
    if rc.list_monthly_usd is not None:
        doc["list_monthly_usd"] = round(rc.list_monthly_usd, 2)
    groups: dict[tuple[str, str], list[str]] = {}
    for f in rc.fallbacks:
        groups.setdefault((f.used, f.requested), []).append(f.key)
    if groups:
        doc["price_fallbacks"] = [
            {"from": used, "to": requested, "keys": sorted(set(keys))}
            for (used, requested), keys in groups.items()
        ]


def plan_config(
    config: Mapping[str, Any], stack: str, program: Path, source: Path,
    usage_file: UsageFile | None = None, cost_lines: bool = True,
    policy_config: PackConfig | None = None, stack_config: StackConfig | None = None,
    project_name: str = "mlgov",
) -> PlanDocument:  # fmt: skip
    """The plan document for one stack's config (runs `program` under mocks).

    `stack_config` (project.read_stack) says where the config came from: the document records
    it under `stack_config` (ESC environments imported, keys the project's config supplied, and
    every other key the settings do not model), so the governance diff shows a change to any of
    them; a stack that imports an ESC environment gets a finding, mandatory in prod.

    `policy_config` (a `--policy-config`, e.g. the `policies/config.NAME.json` the preview passes
    to CrossGuard) sets rule levels and settings over the stack's, and the document keeps it
    (`policy_pack_config`, `policy_selection`), so the governance diff shows what it changed.

    The stack file is either mlgov's own (`mlgov:settings`, validated whole before the program
    runs) or one of a program of the user's own (`gcp:project`, optional `mlgov:plan`); see
    governance/settings/context.py. Settings errors name `source`, the user's stack file, also
    when the program itself raises them.
    """
    from governance.review.offline import run_program
    from governance.settings import SettingsError
    from governance.text import progress

    context = context_of(config, source)  # fail fast, before importing pulumi_gcp
    progress.detail("running the Pulumi program under mocks")
    # The program's objects and the plan live to the end: see collector.py.
    with fewer_collections():
        try:
            recorded = run_program(config, stack, program, project_name)
        except SettingsError as err:  # a program that reads settings the file does not have
            raise CliError([f"{display(source)}: {p}" for p in err.problems]) from None
        # Registration order depends on async timing; sort so plans and their diffs are stable.
        resources: list[PlanResource] = [
            {"type": r.type, "name": r.name, "inputs": r.inputs}
            for r in sorted(recorded, key=lambda r: (r.name, r.type))
        ]
        fields: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "stack": stack,
            "project": context.project,
            "region": context.region,
            "resources": resources,
            "violations": [],
            "warnings": [w.as_dict() for w in context.warnings],
            "policy_config": context.policy_config,
            "assumptions": context.assumptions,
            "limits": context.limits,
        }
        if context.region is None:  # a program of one's own may leave gcp:region unset
            del fields["region"]
        settings = context.settings
        if settings is not None and settings.acknowledge:
            # For `comment`/`diff`: the weakening changes this stack accepts (govdiff/review.py).
            fields["acknowledgements"] = [a.model_dump() for a in settings.acknowledge]
        if stack_config is not None and (
            stack_config.environments or stack_config.from_project or stack_config.shown
        ):  # only when there is something to record: most stacks' documents stay as they were
            fields["stack_config"] = {
                "esc_environments": list(stack_config.environments),
                "from_project": list(stack_config.from_project),
                "keys": stack_config.shown,
            }
        doc = cast(PlanDocument, fields)
        # What the program rendered but no one could judge (a function left below its working
        # minimum, a size no API accepts) is refused here as it is when a plan is read back.
        from governance.review.unjudgeable import problems as unjudgeable

        if refused := unjudgeable(doc, display(source)):
            raise CliError(refused)
        progress.detail("checking policies and costs")
        return evaluate_document(doc, usage_file, cost_lines, policy_config)


ESC_FINDING = "mlgov-stack-esc-environment"


def esc_findings(doc: Mapping[str, Any], prod: bool) -> list[dict[str, Any]]:
    """The finding of a document whose `stack_config` records ESC imports (none otherwise)."""
    imports = as_list(as_mapping(doc.get("stack_config")).get("esc_environments"))
    if not imports:
        return []
    names = tuple(str(x) for x in imports)
    return [_esc_finding(str(doc.get("stack") or ""), names, prod)]


def _esc_finding(stack: str, environments: tuple[str, ...], prod: bool) -> dict[str, Any]:
    """The stack imports ESC environments: config this plan cannot see (mandatory in prod).

    Pulumi merges an environment's `pulumiConfig` into the stack's config (workspace/config.go,
    mergeConfig): it fills every key the file leaves out and adds keys inside object values, so
    `automation.dry_run: true` can reach `mlgov:settings` from an environment edited outside the
    repository. No policy config can lower this finding: it is not a rule of the pack.
    """
    return {
        "policy": ESC_FINDING,
        "resource": stack or "stack",
        "type": "pulumi:pulumi:Stack",
        "enforcement": "mandatory" if prod else "advisory",
        "message": (
            f"the stack file imports ESC environments ({', '.join(environments)}); Pulumi merges "
            "their pulumiConfig into this stack's config (mlgov:settings and gcp:* included), "
            "which this plan and the pull request cannot see"
        ),
        "why": "an environment edited in Pulumi Cloud could switch governance off (dry run, "
        "exemptions, budget, billing account) with no change in the repository",
        "remediation": "remove `environment:` from the stack file and give the deployment its "
        "credentials through the CI job's environment (e.g. `pulumi env run` or OIDC), or keep "
        "every mlgov:* and gcp:* key out of the environments' pulumiConfig and out of prod",
    }


def plan_stack(
    stack: str | None = None,
    config: str | None = None,
    usage_file: UsageFile | None = None,
    cost_lines: bool = True,
    policy_config: PackConfig | None = None,
) -> PlanDocument:
    """The plan document for `--stack NAME` or `--config PATH` (project found from here)."""
    name, path = stack_file_of(stack, config)
    project = find_project(Path.cwd(), path.parent)
    read = read_stack(path, project if project.owns(path) else None)
    return plan_config(
        read.config, name, project.program, path, usage_file, cost_lines, policy_config, read,
        project.name,
    )  # fmt: skip


def exit_code(doc: Mapping[str, Any]) -> Exit:
    """FAILED if any mandatory violation, else OK (advisory findings allowed)."""
    violations: list[Mapping[str, Any]] = doc.get("violations") or []
    return Exit.FAILED if any(v.get("enforcement") == "mandatory" for v in violations) else Exit.OK
