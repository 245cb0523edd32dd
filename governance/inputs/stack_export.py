"""`pulumi stack export` (deployment v3 and v4, FORMAT §2) as a plan document.

The envelope is `{"version": 3|4, "deployment": DeploymentV3}` (FORMAT §2.1; v4 adds a
`features` list and may use fields v3 lacks, which are ignored); the DIY backend's checkpoint
file `{"version": 3, "checkpoint": {"stack", "config", "latest": DeploymentV3}}` is read too.
Every resource after the last update is in `deployment.resources` with its inputs and outputs
(FORMAT §2.3); default and explicit providers are there as resources, so project, region and
zone resolve through the provider's inputs, then the resource's outputs (FORMAT §3, location.py).
Operations still pending when the state was saved (`pending_operations`, §2.2) are warned about:
such a state may not match the cloud.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from governance.errors import CliError
from governance.inputs.document import SCHEMA_VERSION, PlanDocument
from governance.inputs.location import (
    GCP_PROVIDER,
    ProviderDefaults,
    Providers,
    from_config,
    from_provider,
    location_problems,
)
from governance.inputs.plan_input import PlanInput, as_object, first_names, warning
from governance.inputs.resources import Collected, is_provider, state_at, unique_names
from governance.inputs.urns import is_default_provider
from governance.inputs.values import Cleaner

FORMAT = "pulumi stack export"
VERSIONS = (3, 4)
# Deployment features a v4 file may list (FORMAT §2.1); none changes what a resource's inputs
# mean, and views (`viewOf`) are skipped as resources.
FEATURES = frozenset(
    {
        "refreshBeforeUpdate",
        "views",
        "hooks",
        "taint",
        "replaceWith",
        "snippets-prototype",
        "extensionParameterization",
        "byteString",
    }
)


def read_stack_export(doc: Mapping[str, Any], source: str) -> PlanInput:
    """The plan document of a stack's state; CliError naming the key when unusable."""
    version = doc.get("version")
    if isinstance(version, bool) or version not in VERSIONS:
        raise CliError(
            f"{source}: version: {version!r} is not a deployment version mlgov reads "
            f"({' or '.join(map(str, VERSIONS))}, what `pulumi stack export` writes)"
        )
    deployment, where, config = _deployment(doc, source)
    resources_raw: Any = deployment.get("resources")
    if resources_raw is None:  # omitempty: a stack without resources
        resources_raw = []
    if not isinstance(resources_raw, list):
        raise CliError(f"{source}: {where}.resources: must be a list of resources")
    states = [
        state_at(item, f"{source}: {where}.resources[{i}]")
        for i, item in enumerate(cast(list[Any], resources_raw))
    ]
    problems = [f"config.{p}" for p in location_problems(config, "gcp:")]
    for state, _ in states:
        if state.get("type") == GCP_PROVIDER:
            problems += [
                f"provider {state['urn']}: inputs.{p}" for p in location_problems(_inputs(state))
            ]
    if problems:  # a region or zone Google does not offer, or a newline in a finding
        raise CliError([f"{source}: {p}" for p in problems])
    by_urn = {
        str(state["urn"]): from_provider(str(state["urn"]), _inputs(state))
        for state, _ in states
        if is_provider(state)
    }
    fallback = from_config(config)
    defaults = _stack_defaults(states, by_urn, fallback)
    providers = Providers(by_urn, fallback)
    cleaner = Cleaner()
    collected = Collected()
    for state, urn in states:
        collected.add(
            state, urn, cleaner, providers.of(state.get("provider")), outputs_fallback=True
        )
    unique_names(collected.resources)
    collected.resources.sort(key=lambda r: (r["name"], r["type"]))
    warnings = collected.warnings(source) + _warnings(doc, deployment, source, where, bool(states))
    warnings += _pending_deletes(states, source, where)
    manifest = deployment.get("manifest")
    cli = cast(Mapping[str, Any], manifest).get("version") if isinstance(manifest, dict) else None
    plan: PlanDocument = {
        "schema_version": SCHEMA_VERSION,
        "stack": states[0][1].stack if states else "",
        "resources": collected.resources,
        "source": {
            "format": f"{FORMAT} (deployment v{version})",
            "file": source,
            **({"cli": cli} if isinstance(cli, str) else {}),
            "read": len(collected.resources),
            "skipped": dict(sorted(collected.skipped.items())),
            "secrets": cleaner.secrets,
            "unknowns": cleaner.unknowns,
        },
    }
    if project := defaults.values.get("project"):
        plan["project"] = project
    if region := defaults.region:
        plan["region"] = region
        plan["assumptions"] = {"default_region": region}
    if warnings:
        plan["warnings"] = warnings
    if found := providers.reserved_label_findings():
        plan["input_findings"] = found
    return PlanInput(plan=plan, format=f"{FORMAT} v{version}")


def _deployment(
    doc: Mapping[str, Any], source: str
) -> tuple[Mapping[str, Any], str, Mapping[str, Any]]:
    """(deployment, its key path, stack config) of an export or a DIY checkpoint (§2.1)."""
    if "checkpoint" in doc:
        checkpoint = doc.get("checkpoint")
        if not isinstance(checkpoint, dict):
            raise CliError(f"{source}: checkpoint: must be an object")
        latest = cast(Mapping[str, Any], checkpoint).get("latest")
        config = cast(Mapping[str, Any], checkpoint).get("config")
        if latest is None:
            raise CliError(
                f"{source}: checkpoint.latest: empty: the stack has never been deployed, so there "
                "is no state to read; check `pulumi preview --json` output instead"
            )
        if not isinstance(latest, dict):
            raise CliError(f"{source}: checkpoint.latest: must be a deployment object")
        return cast(Mapping[str, Any], latest), "checkpoint.latest", as_object(config)
    deployment = doc.get("deployment")
    if not isinstance(deployment, dict):
        raise CliError(f"{source}: deployment: required, must be the deployment object")
    return cast(Mapping[str, Any], deployment), "deployment", {}


def _inputs(state: Mapping[str, Any]) -> Mapping[str, Any]:
    inputs = state.get("inputs")
    return cast(Mapping[str, Any], inputs) if isinstance(inputs, dict) else {}


def _stack_defaults(
    states: list[tuple[dict[str, Any], Any]],
    by_urn: Mapping[str, ProviderDefaults],
    fallback: ProviderDefaults,
) -> ProviderDefaults:
    """The stack's own project and region: its default gcp provider's, when they agree."""
    found = [
        by_urn[str(state["urn"])]
        for state, _ in states
        if state.get("type") == GCP_PROVIDER and is_default_provider(str(state["urn"]))
    ]
    if not found:
        return fallback
    values: dict[str, str] = {}
    for key in ("project", "region"):
        seen = {d.region if key == "region" else d.values.get(key) for d in found} - {None}
        if len(seen) == 1:
            values[key] = str(seen.pop())
    return ProviderDefaults(found[0].source, values)


def _pending_deletes(
    states: list[tuple[dict[str, Any], Any]], source: str, where: str
) -> list[dict[str, str]]:
    """A warning naming resources still in the state with `delete: true` (FORMAT §2.3).

    They are left out of the totals (the next `pulumi up` deletes them), but until then they
    exist, and bill: a reviewer of "what is deployed now" should know they are not counted.
    """
    names = sorted(
        urn.name
        for state, urn in states
        if state.get("delete") is True and state.get("custom") is True and not is_provider(state)
    )
    if not names:
        return []
    listed = first_names(names)
    return [
        warning(
            source,
            f"{where}.resources: {len(names)} resource(s) ({listed}) are marked `delete: true` "
            "(a replacement or delete that has not finished): they are left out of the totals, "
            "but still exist and bill until the next `pulumi up` deletes them",
        )
    ]


def _warnings(
    doc: Mapping[str, Any],
    deployment: Mapping[str, Any],
    source: str,
    where: str,
    has_resources: bool,
) -> list[dict[str, str]]:
    warnings: list[dict[str, str]] = []
    pending = deployment.get("pending_operations")
    if isinstance(pending, list) and pending:
        warnings.append(
            warning(
                source,
                f"{where}.pending_operations: {len(cast(list[Any], pending))} operation(s) were "
                "still running when this state was saved, so it may not match the cloud: run "
                "`pulumi refresh` (or `pulumi cancel`), then export again",
            )
        )
    features = doc.get("features")
    if isinstance(features, list):
        unknown = sorted({str(f) for f in cast(list[Any], features)} - FEATURES)
        if unknown:
            warnings.append(
                warning(source, f"features: {', '.join(unknown)} not known to mlgov: ignored")
            )
    if not has_resources:
        warnings.append(warning(source, f"{where}.resources: the stack holds no resources"))
    return warnings
