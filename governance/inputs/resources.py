"""One Pulumi resource state (`apitype.ResourceV3`) as a plan-document resource, or why not.

Both formats carry resources as ResourceV3 objects (FORMAT §1.8): a preview step's `oldState` and
`newState`, a stack export's `deployment.resources[]`. Only custom cloud resources are priced and
checked (FORMAT §1.6, §2.3, §6 item 3): the root stack, components (`custom: false`), providers
(`pulumi:providers:*`, kept only to resolve config), resources read with `get` (`external`),
views (`viewOf`) and resources pending deletion or replacement are skipped and counted.
Unknown fields are ignored (FORMAT §1.8: the list keeps growing). The logical name is the URN's
last part; `Names` makes (type, name) unique the way the plan document requires.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from governance.errors import CliError
from governance.inputs import default_labels
from governance.inputs.document import PlanResource
from governance.inputs.location import ProviderDefaults, inherit
from governance.inputs.plan_input import warning
from governance.inputs.urns import Urn, parse_urn
from governance.inputs.values import UNKNOWN, Cleaner

STACK_TYPE = "pulumi:pulumi:Stack"
PROVIDER_PREFIX = "pulumi:providers:"


def is_provider(state: Mapping[str, Any]) -> bool:
    """Whether a state is a provider resource (default or explicit)."""
    type_ = state.get("type")
    return isinstance(type_, str) and type_.startswith(PROVIDER_PREFIX)


def skip_reason(state: Mapping[str, Any]) -> str | None:
    """Why a state is not priced or checked ("component", "provider", ...), None if it is."""
    if state.get("type") == STACK_TYPE:
        return "stack"
    if is_provider(state):
        return "provider"
    if state.get("custom") is not True:
        return "component"
    if state.get("external") is True:
        return "read"
    if state.get("viewOf"):
        return "view"
    if state.get("delete") is True:
        return "pending delete"
    if state.get("pendingReplacement") is True:
        return "pending replacement"
    return None


def state_at(value: Any, path: str) -> tuple[dict[str, Any], Urn]:
    """A state object and its parsed URN; CliError naming `path` when it is not one."""
    if not isinstance(value, dict):
        raise CliError(f"{path}: must be a resource state object")
    state = cast(dict[str, Any], value)
    urn = state.get("urn")
    parsed = parse_urn(urn) if isinstance(urn, str) else None
    if parsed is None:
        raise CliError(f"{path}.urn: must be a Pulumi URN (urn:pulumi:STACK::PROJECT::TYPE::NAME)")
    type_ = state.get("type")
    if not isinstance(type_, str) or not type_:
        raise CliError(f"{path}.type: required, must be a type token")
    return state, parsed


@dataclass
class Collected:
    """The resources one side of a file yields, and what was skipped."""

    resources: list[PlanResource] = field(default_factory=list[PlanResource])
    skipped: Counter[str] = field(default_factory=Counter[str])
    unknown_locations: dict[tuple[str, str], list[str]] = field(
        default_factory=dict[tuple[str, str], list[str]]
    )
    """(region or zone, why it is unknown) -> the names of the resources it leaves unknown."""
    stale_labels: list[str] = field(default_factory=list[str])
    """Resources of a stack export whose applied labels differ from their provider's defaults."""

    def add(
        self,
        state: Mapping[str, Any],
        urn: Urn,
        cleaner: Cleaner,
        defaults: ProviderDefaults,
        *,
        outputs_fallback: bool = False,
        extra: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        """Add one state (or count it skipped); `name` replaces the URN's name."""
        if (reason := skip_reason(state)) is not None:
            self.skipped[reason] += 1
            return
        type_ = str(state["type"])
        inputs = cleaner.inputs(state.get("inputs"))
        raw_outputs = state.get("outputs") if outputs_fallback else None
        outputs = cast(Mapping[str, Any], raw_outputs) if isinstance(raw_outputs, dict) else None
        inherited = inherit(type_, inputs, defaults, outputs)
        label_key = default_labels.label_field(type_) if defaults.labels else None
        if label_key is not None:
            own = inputs.get(label_key)
            where = default_labels.merge(type_, inputs, defaults.labels, defaults.labels_source)
            applied = default_labels.applied(outputs, own) if outputs is not None else None
            if applied is not None and applied != inputs.get(label_key):
                inputs[label_key] = applied
                where = f"pulumiLabels output: as last applied, not {defaults.labels_source}"
                self.stale_labels.append(urn.name)
            if where:
                inherited[label_key] = where
        resource: dict[str, Any] = {"type": type_, "name": name or urn.name, "inputs": inputs}
        resource["urn"] = state["urn"]
        if extra:
            resource.update(extra)
        if inherited:
            resource["inherited"] = inherited
        if (own := defaults.region_source()) is not None:
            # the region its provider gives it, even where it names its own: the location rule
            # judges another team's resources against it (mlgov_policies/rules/location.py)
            resource["provider_region"] = {"region": own[0], "from": own[1]}
        for key, where in inherited.items():
            if key not in default_labels.FIELDS and inputs.get(key) == UNKNOWN:
                reason = where.removeprefix("unknown: ")
                self.unknown_locations.setdefault((key, reason), []).append(urn.name)
        self.resources.append(cast(PlanResource, resource))

    def warnings(self, source: str) -> list[dict[str, str]]:
        """One warning per reason a region or zone is unknown, naming the resources.

        And one naming the resources whose labels, as last applied, are not what their
        provider's defaultLabels give now.
        """
        found: list[dict[str, str]] = []
        if self.stale_labels:
            names = sorted(self.stale_labels)
            listed = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            found.append(
                warning(
                    source,
                    f"{len(names)} resource(s) ({listed}) carry other labels than their "
                    "provider's defaultLabels give now (their pulumiLabels output, as last "
                    "applied): pulumi-gcp applies changed default labels to a resource only when "
                    "it next updates it, so they are checked with the labels they carry",
                )
            )
        for (key, reason), names in sorted(self.unknown_locations.items()):
            listed = ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")
            found.append(
                warning(
                    source,
                    f"{len(names)} resource(s) ({listed}) have no known {key}: {reason}; "
                    f"they stay unpriced and the location rule skips them until the {key} is "
                    "set in the resource, its provider or the stack config",
                )
            )
        return found


def unique_names(resources: list[PlanResource]) -> None:
    """Make (type, name) unique, in place, as the plan document requires.

    Pulumi keys resources by URN, which also holds the parent types, so two components can each
    have a child `bucket` of one type. Those get the parent types in their name
    (`bucket (acme:ml:Lake)`); a name that still repeats gets `#2`, `#3`.
    """
    counts = Counter((r["type"], r["name"]) for r in resources)
    seen: set[tuple[str, str]] = set()
    for resource in sorted(resources, key=lambda r: str(cast(Mapping[str, Any], r).get("urn"))):
        key = (resource["type"], resource["name"])
        if counts[key] > 1:
            urn = parse_urn(str(cast(Mapping[str, Any], resource).get("urn", "")))
            if urn is not None and urn.parent_types:
                resource["name"] = f"{resource['name']} ({urn.parent_types})"
        base, n = resource["name"], 1
        while (resource["type"], resource["name"]) in seen:
            n += 1
            resource["name"] = f"{base} #{n}"
        seen.add((resource["type"], resource["name"]))
