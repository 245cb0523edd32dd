"""Project, region and zone a resource inherits from its provider (FORMAT §3, "Location").

pulumi-gcp resources often omit `project`, `region` and `zone`: the provider fills them in when
it creates the resource, so neither a preview's inputs nor a state's inputs hold them. To price
a resource where it will run, and to hold it to the stack's region, a reader writes the
provider's values into the inputs of the types whose input schema has those properties (the
schema archive `check` already validates against), and records where each came from under the
resource's `inherited` key. The order (FORMAT §3):

1. the resource's own inputs: a resource that names a `location`, `region` or `zone` (even an
   unknown one) inherits no location at all;
2. its explicit provider's inputs (a `pulumi:providers:gcp` step or state resource);
3. for a default provider: the stack config `gcp:project|region|zone` in a preview (default
   providers never appear as preview steps, FORMAT §1.5), the default provider's inputs in a
   stack export; in a stack export, then the resource's own outputs;
4. else unknown: the provider may read GOOGLE_REGION etc. from the environment, which no file
   shows. A region or zone is then written as the unknown sentinel (priced as unknown, never as
   a guess); an unknown project is left out (it changes no price and no rule).

GKE clusters and node pools have no `zone` input, yet an unset `location` is not "anywhere": the
provider takes the provider's **zone** (a zonal cluster there), never its region
(terraform-provider-google `tpgresource.GetLocation`, which both resources use: location, then
region, then zone, then the provider's zone, else "Cannot determine zone"). So their `location`
is inherited from the provider's zone (a state's outputs next), and a node pool whose `cluster`
is a full `projects/P/locations/L/clusters/C` path takes L from it instead, as the provider does.

Explicit providers do not read the stack config, so an explicit provider the preview does not
list (unchanged, without `--show-sames`) leaves its resources' region and zone unknown. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from governance.costs.regions import is_zone, region_of
from governance.inputs import default_labels
from governance.inputs.default_labels import DefaultLabels
from governance.inputs.urns import is_default_provider, parse_urn, provider_urn
from governance.inputs.values import SECRET, UNKNOWN
from mlgov_policies.schema.catalog import resource_entry

KEYS = ("project", "region", "zone")
LOCATION_KEYS = ("location", "region", "zone")
GCP_PROVIDER = "pulumi:providers:gcp"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
ZONE_AS_LOCATION = frozenset({GKE_CLUSTER, GKE_NODE_POOL})
"""Types whose unset `location` is the provider's zone (`GetLocation`, module docstring)."""
_CLUSTER_PATH = re.compile(r"projects/[^/]+/locations/[^/]+/clusters/[^/]+")


@dataclass(frozen=True)
class ProviderDefaults:
    """What one provider gives the resources that leave project, region or zone unset."""

    source: str
    """How to name where each value comes from: "provider 'eu'" or "stack config"."""
    values: Mapping[str, str] = field(default_factory=dict[str, str])
    """Known values by key (project, region, zone)."""
    missing: str = "{key} is not set"
    """Why a key without a value is unknown (`{key}` stands for the key)."""
    config_keys: bool = False
    """Values are stack config keys (`gcp:zone`), named as such."""
    labels: DefaultLabels = default_labels.NONE
    """The provider's `defaultLabels` (default_labels.py), merged into its resources' labels."""

    @property
    def labels_source(self) -> str:
        """Where the default labels come from, for `inherited` and findings."""
        if self.config_keys:
            return f"stack config {default_labels.CONFIG}"
        return f"{default_labels.INPUT} of {self.source}"

    def where(self, key: str) -> str:
        """Where the value of `key` comes from, for `inherited`."""
        return f"stack config gcp:{key}" if self.config_keys else f"{key} of {self.source}"

    @property
    def region(self) -> str | None:
        """The region these defaults put resources in (from `region`, else from `zone`)."""
        found = self.region_source()
        return found[0] if found is not None else None

    def region_source(self) -> tuple[str, str] | None:
        """(region, where it comes from): `region`, else the region of `zone`; None if neither."""
        if region := self.values.get("region"):
            return region, self.where("region")
        zone = self.values.get("zone") or ""
        return (region_of(zone), self.where("zone")) if is_zone(zone) else None


def known(value: Any) -> str | None:
    """A usable location value: a non-empty string that is neither unknown nor a secret."""
    if isinstance(value, str) and value.strip() and value not in (UNKNOWN, SECRET):
        return value.strip()
    return None


def location_problems(values: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`project|region|zone` values Google would refuse, as `KEY: why` lines (keys `prefix`ed).

    And a `defaultLabels` that is not a map of labels (default_labels.py).

    For a stack config (`gcp:` keys) and a gcp provider's inputs alike: the region and zone
    are held to what a stack file's are (governance/settings/context.py), so the stack region the
    location rule uses is one Google offers and never carries a newline into a finding. Unknown
    and secret values are not judged.
    """
    from governance.settings.base import REGION_PATTERN, ZONE_PATTERN, shown
    from governance.settings.locations import region_problem, zone_problem

    shapes = {
        # Any project without spaces: legacy domain-scoped ids (example.com:proj) are real, and
        # the project changes no price and no rule; it is quoted in findings, so one line.
        "project": (r"\S+", "a project id (no spaces or line breaks)", None),
        "region": (REGION_PATTERN, "a region name such as us-central1", region_problem),
        "zone": (ZONE_PATTERN, "a zone name such as us-central1-a", zone_problem),
    }
    problems: list[str] = []
    for key, (pattern, meaning, offered) in shapes.items():
        value = values.get(f"{prefix}{key}")
        if value is None or value in (UNKNOWN, SECRET):
            continue
        if not isinstance(value, str):
            problems.append(f"{prefix}{key}: must be a string, got {shown(value)}")
        elif re.fullmatch(pattern, value) is None:
            problems.append(f"{prefix}{key}: {shown(value)} is not {meaning}")
        elif offered is not None and (found := offered(value)):
            problems.append(f"{prefix}{key}: {found}")
    labels = default_labels.parse(values.get(f"{prefix}{default_labels.INPUT}"))
    if isinstance(labels, str):
        problems.append(f"{prefix}{default_labels.INPUT}: {labels}")
    return problems


def from_config(config: Mapping[str, Any]) -> ProviderDefaults:
    """The hidden default provider's defaults: the stack config `gcp:*` keys (FORMAT §1.2)."""
    values = {key: v for key in KEYS if (v := known(config.get(f"gcp:{key}"))) is not None}
    return ProviderDefaults(
        "stack config",
        values,
        missing="gcp:{key} is not in the stack config (the provider may read it from the "
        "environment, which the file does not show)",
        config_keys=True,
        labels=_labels(config.get(default_labels.CONFIG)),
    )


def from_provider(urn: str, inputs: Mapping[str, Any]) -> ProviderDefaults:
    """The defaults an explicit or default provider's (checked) inputs give."""
    values = {key: v for key in KEYS if (v := known(inputs.get(key))) is not None}
    name = _provider_name(urn)
    return ProviderDefaults(
        name,
        values,
        missing=f"{name} sets no {{key}} (it may come from the environment, which the file "
        "does not show)",
        labels=_labels(inputs.get(default_labels.INPUT)),
    )


def _labels(value: Any) -> DefaultLabels:
    """Parsed default labels; a value the readers refuse (location_problems) reads as none."""
    parsed = default_labels.parse(value)
    return parsed if isinstance(parsed, DefaultLabels) else default_labels.NONE


def unlisted(urn: str) -> ProviderDefaults:
    """An explicit provider the file does not list: nothing is known about its config."""
    name = _provider_name(urn)
    return ProviderDefaults(
        name,
        missing=f"{name} is not in the preview (unchanged providers are listed only with "
        "`pulumi preview --json --show-sames`)",
    )


def _provider_name(urn: str) -> str:
    parsed = parse_urn(urn)
    return f"provider {parsed.name!r}" if parsed is not None else f"provider {urn!r}"


@dataclass(frozen=True)
class Providers:
    """The provider configs of one file: providers by URN, and the default one's."""

    by_urn: Mapping[str, ProviderDefaults]
    default: ProviderDefaults
    """For a default provider the file does not list (every default provider of a preview)."""
    _seen: dict[str, ProviderDefaults] = field(default_factory=dict[str, ProviderDefaults])

    def of(self, reference: Any) -> ProviderDefaults:
        """The defaults of the provider a resource references (FORMAT §1.6)."""
        key = reference if isinstance(reference, str) else ""
        if (found := self._seen.get(key)) is None:
            found = self._seen[key] = self._resolve(key)
        return found

    def reserved_label_findings(self) -> list[dict[str, Any]]:
        """A mandatory finding per provider whose defaultLabels set `mlgov-*` keys."""
        found = [self.default, *(self.by_urn[urn] for urn in sorted(self.by_urn))]
        return [
            default_labels.reserved_finding(
                default_labels.CONFIG if d.config_keys else d.source,
                d.labels_source,
                d.labels.reserved,
            )
            for d in found
            if d.labels.reserved
        ]

    def _resolve(self, reference: str) -> ProviderDefaults:
        urn = provider_urn(reference)
        if urn in self.by_urn:
            return self.by_urn[urn]
        if not urn or is_default_provider(urn):
            return self.default
        return unlisted(urn)


def _schema_properties(type_: str) -> Mapping[str, Any] | None:
    entry = resource_entry(type_)
    if entry is None:
        return None
    return cast(Mapping[str, Any], entry.get("properties") or {})


def inherit(
    type_: str,
    inputs: dict[str, Any],
    defaults: ProviderDefaults,
    outputs: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """Write the inherited project/region/zone into `inputs`; returns where each came from.

    Only for properties the type's input schema has (types mlgov does not describe, e.g. AWS,
    are left as they are). `outputs` is the stack-export fallback after the provider.
    """
    properties = _schema_properties(type_)
    if properties is None:
        return {}
    sets_location = any(inputs.get(key) not in (None, "") for key in LOCATION_KEYS)
    wanted = ("project",) if sets_location else KEYS
    inherited: dict[str, str] = {}
    if type_ in ZONE_AS_LOCATION and not sets_location:
        _zone_as_location(type_, inputs, defaults, outputs, inherited)
    for key in wanted:
        if key not in properties or inputs.get(key) not in (None, ""):
            continue
        value, where = defaults.values.get(key), defaults.where(key)
        if value is None and outputs is not None and (value := known(outputs.get(key))):
            where = "the resource's outputs"
        if value is None:
            if key == "project":
                continue
            value, where = UNKNOWN, f"unknown: {defaults.missing.format(key=key)}"
        inputs[key] = value
        inherited[key] = where
    return inherited


def _zone_as_location(
    type_: str,
    inputs: dict[str, Any],
    defaults: ProviderDefaults,
    outputs: Mapping[str, Any] | None,
    inherited: dict[str, str],
) -> None:
    """A GKE cluster's or node pool's unset `location`: its provider's zone (`GetLocation`)."""
    cluster = inputs.get("cluster")
    if type_ == GKE_NODE_POOL and (
        cluster == UNKNOWN
        or (isinstance(cluster, str) and _CLUSTER_PATH.search(cluster) is not None)
    ):
        return  # the provider reads the location from the cluster's id (known after apply)
    value = defaults.values.get("zone")
    where = f"{defaults.where('zone')} (GKE takes an unset location from the provider's zone)"
    if value is None and outputs is not None and (value := known(outputs.get("location"))):
        where = "the resource's outputs"
    if value is None:
        if type_ == GKE_NODE_POOL:
            return  # priced where its cluster is (node_pool.py); the provider would need a zone
        value = UNKNOWN
        where = f"unknown: {defaults.missing.format(key='zone')}"
    inputs["location"] = value
    inherited["location"] = where
