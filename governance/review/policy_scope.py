"""Which policies run on a plan document, at which level and with which settings.

mlgov's own plan documents are checked as their stack configured them (`policy_config`). A
document converted from Pulumi's formats (it carries `source`) is another team's program unless
its resources sit under mlgov's components (`mlgov:index:*` in their URNs): there mlgov's
stack-specific rules do not run and its cost house rules are advisory
(mlgov_policies/selection.py says which, and why). A converted stack named `prod` or `*-prod`
is checked as prod, the way the governance review already judges it (govdiff/review.py); its
region is its stack config's `gcp:region` (the document's top-level `region`).

A `--policy-config` (or the one a document carries from an earlier `check`,
`policy_pack_config`) then sets levels and settings over that. `scope_of` decides, `record`
writes the decision into the document (`policy_selection`, and the config itself) so a printed
plan says how it was checked and `check` of it checks it the same way. An own plan checked
without a policy config is left as it was. Pure but for the documents it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from governance.errors import CliError
from governance.inputs.document import PlanDocument, policy_config_of
from governance.inputs.urns import parse_urn
from governance.review.govdiff.review import is_prod
from mlgov_policies.config import PolicyConfig
from mlgov_policies.pack_config import Level, PackConfig
from mlgov_policies.registry import ALL_RULES
from mlgov_policies.rule import Enforcement
from mlgov_policies.selection import MLGOV, OTHER, Program, finding_level, rule_levels
from mlgov_policies.vocabulary import COMPONENT_PREFIX

# Where the environment a document is checked with came from (`policy_selection`).
FROM_FLAG, FROM_DOCUMENT, FROM_STACK_NAME, FROM_DEFAULT = (
    "--policy-config",
    "policy_config",
    "stack name",
    "default",
)


@dataclass(frozen=True)
class Scope:
    """How one document is checked: whose program, the settings, every rule's level."""

    program: Program
    config: PolicyConfig
    levels: Mapping[str, Level]
    environment_from: str
    pack: PackConfig | None = None

    def finding_level(self, policy: str, own: Enforcement) -> Level:
        """The level of a cost finding (its own unless the policy config sets one)."""
        return finding_level(policy, own, self.pack)


def program_of(doc: Mapping[str, Any]) -> Program:
    """`mlgov` for mlgov's own plans and programs built from its components, else `other`."""
    if not isinstance(doc.get("source"), dict):
        return MLGOV
    resources = cast(list[Mapping[str, Any]], doc.get("resources") or [])
    for resource in resources:
        urn = parse_urn(str(resource.get("urn") or ""))
        # mlgov's components are the parents of what they create: `mlgov:index:X$gcp:...`.
        if urn is not None and any(
            t.startswith(COMPONENT_PREFIX) for t in urn.qualified_type.split("$")
        ):
            return MLGOV
    return OTHER


def carried_pack(doc: Mapping[str, Any]) -> PackConfig | None:
    """The policy config an earlier `check` recorded in the document, checked again."""
    from governance.review.policy_config import parse_policy_config

    carried = doc.get("policy_pack_config")
    if carried is None:
        return None
    body: Mapping[str, Any] = cast(Mapping[str, Any], carried) if isinstance(carried, dict) else {}
    if not isinstance(body.get("policies"), dict):
        raise CliError("policy_pack_config.policies: must be an object of policy names")
    pack = parse_policy_config(body["policies"], "policy_pack_config.policies")
    return replace(pack, source=str(body.get("source") or "(in the document)"))


def scope_of(doc: PlanDocument, pack: PackConfig | None = None) -> Scope:
    """How `doc` is checked; `pack` (a `--policy-config`) replaces the one it carries."""
    program = program_of(doc)
    chosen = pack if pack is not None else carried_pack(doc)
    config = policy_config_of(doc)
    stated = cast(Mapping[str, Any], doc.get("policy_config") or {})
    region = doc.get("region")
    # Another team's program: each resource is judged against its own provider's region (the
    # location rule reads `provider_region`), not its default provider's for all of them.
    if program == MLGOV and config.region is None and isinstance(region, str) and region.strip():
        # Without this, a document without `policy_config` (a saved plan, a Pulumi preview) had
        # a region only when every resource agreed on one, so one resource in another region
        # made the location rule compare nothing.
        config = replace(config, region=region.strip())
    if chosen is not None and "environment" in chosen.values:
        source = FROM_FLAG
    elif stated.get("environment") is not None:
        source = FROM_DOCUMENT
    elif program == OTHER and is_prod(doc):
        config, source = replace(config, environment="prod"), FROM_STACK_NAME
    else:
        source = FROM_DEFAULT
    if chosen is not None and chosen.values:
        config = replace(config, **dict(chosen.values))
    return Scope(program, config, rule_levels(program, chosen), source, chosen)


def record(doc: PlanDocument, scope: Scope) -> None:
    """Write how `doc` was checked into it (nothing for an own plan without a policy config)."""
    raw = cast(dict[str, Any], doc)
    raw.pop("policy_selection", None)
    if scope.pack is None and not isinstance(raw.get("source"), dict):
        return
    changed = {
        name: level for name, level in scope.levels.items() if level != ALL_RULES[name].enforcement
    }
    selection: dict[str, Any] = {
        "program": "mlgov" if scope.program == MLGOV else "other Pulumi program",
        "environment": scope.config.environment,
        "environment_from": scope.environment_from,
        "not_run": sorted(n for n, level in changed.items() if level == "disabled"),
        "levels": {n: level for n, level in sorted(changed.items()) if level != "disabled"},
    }
    raw["policy_selection"] = selection
    if scope.pack is not None:
        raw["policy_pack_config"] = {"source": scope.pack.source, "policies": scope.pack.as_dict()}
    if scope.program == OTHER and scope.environment_from != FROM_DEFAULT:
        # The governance review (govdiff) reads the stack's environment from here.
        stated = cast(dict[str, Any], raw.setdefault("policy_config", {}))
        stated["environment"] = scope.config.environment


def _environment_source(selection: Mapping[str, Any]) -> str:
    """Where the environment came from, in words a reviewer can act on."""
    source = selection.get("environment_from")
    if source == FROM_DEFAULT:
        # Not the stack's own: nothing stated one, so say how to state it.
        return "mlgov's default: no policy config or stack name sets one; --policy-config can"
    return f"from the {source}" if source in (FROM_STACK_NAME, FROM_FLAG) else str(source)


def policy_note(doc: Mapping[str, Any]) -> str | None:
    """One line saying how a document's policies were chosen (None: as its stack configured)."""
    raw = doc.get("policy_selection")
    if not isinstance(raw, dict):
        return None
    selection = cast(Mapping[str, Any], raw)
    not_run = cast(list[str], selection.get("not_run") or [])
    levels = cast(Mapping[str, str], selection.get("levels") or {})
    lowered = sum(1 for level in levels.values() if level == "advisory")
    raised = sum(1 for level in levels.values() if level == "mandatory")
    parts = [
        f"{len(not_run)} rule(s) not run",
        *([f"{lowered} lowered to advisory"] if lowered else []),
        *([f"{raised} made mandatory"] if raised else []),
        "the others at their own level",
        f"environment {selection.get('environment')} ({_environment_source(selection)})",
    ]
    who = "mlgov's own program" if selection.get("program") == "mlgov" else "another Pulumi program"
    carried = cast(Mapping[str, Any], doc.get("policy_pack_config") or {})
    config = f"; --policy-config {carried['source']}" if carried.get("source") else ""
    # Said here too: a line of rules lowered and not run must not read as "nothing blocks".
    violations = cast(list[Any], doc.get("violations") or [])
    mandatory = sum(
        1
        for v in violations
        if isinstance(v, Mapping) and cast(Mapping[str, Any], v).get("enforcement") == "mandatory"
    )
    verdict = f"{mandatory} mandatory finding(s) block it" if mandatory else "no mandatory finding"
    return f"policies: {who}: {', '.join(parts)}; {verdict}{config} (docs/reference/preview.md)"
