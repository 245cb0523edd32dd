"""Provider default labels (pulumi-gcp `defaultLabels`), merged into resources as the provider does.

pulumi-gcp v7+ (terraform-provider-google 5.0's `default_labels`) puts a provider's
`defaultLabels` on every resource it manages that has the new label model: the types whose
schema has the `pulumiLabels` output ("the combination of labels configured directly on the
resource and default labels configured on the provider"). Their label field is `labels`, or
`resourceLabels` for a GKE cluster (the one such type without `labels`). A label the resource
sets itself wins on the same key. Nested label fields (a VM's boot disk
`bootDisk.initializeParams.labels`, a node pool's `nodeConfig.resourceLabels`, Cloud SQL's
`settings.userLabels`) are not touched by the provider, so they are not merged here either.

Where the default labels come from, per resource, like project/region/zone (location.py): an
explicit provider's inputs (`defaultLabels`, a JSON-encoded string, as every provider config
value is), else the stack config `gcp:defaultLabels` (the hidden default provider of a preview)
or the default provider's inputs (a stack export).

A `mlgov-*` key there is **not honoured**: it would reach every resource of the program unseen
by a reviewer (`mlgov-exempt` exempts the whole program from the budget cap and the reapers),
which is why mlgov's own stacks refuse `gcp:defaultLabels` with such a key
(governance/settings/provider.py). Here the key is left out of every resource and reported as a
mandatory finding naming the provider (`mlgov-labels-provider-reserved`), so the preview fails
the check the way mlgov's own stack fails its settings, and nothing is exempted meanwhile.
Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from governance.inputs.values import SECRET, SIGNATURE_KEY, UNKNOWN
from governance.labels import reserved_label_problem
from governance.untrusted import UntrustedInputError, load_json
from mlgov_policies.schema.catalog import resource_entry

INPUT: Final = "defaultLabels"
CONFIG: Final = "gcp:defaultLabels"
RESERVED_POLICY: Final = "mlgov-labels-provider-reserved"
PROVIDER_TYPE: Final = "pulumi:providers:gcp"
_MERGED_OUTPUT: Final = "pulumiLabels"
FIELDS: Final = ("labels", "resourceLabels")
"""The label fields default labels go into (the only top-level ones of the typed schema)."""


@dataclass(frozen=True)
class DefaultLabels:
    """What one provider's `defaultLabels` put on its resources."""

    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    """The labels merged into resources (reserved `mlgov-*` keys left out)."""
    reserved: Mapping[str, str] = field(default_factory=dict[str, str])
    """`mlgov-*` keys the provider sets: not honoured, reported."""
    unknown: bool = False
    """The value is a secret or not known until apply: the resources' labels are unknown."""

    def __bool__(self) -> bool:
        return bool(self.labels or self.reserved or self.unknown)


NONE: Final = DefaultLabels()


def parse(value: Any) -> DefaultLabels | str:
    """The default labels of a `defaultLabels` value, or why it is not a map of labels.

    Provider config values are strings, so the map arrives JSON-encoded; an object is read as
    well (a checkpoint's config may hold one). Secrets and the unknown sentinel, as a string or
    as a state's signature object, make the labels unknown.
    """
    if value is None or value == "":
        return NONE
    if value in (SECRET, UNKNOWN) or (isinstance(value, dict) and SIGNATURE_KEY in value):
        return DefaultLabels(unknown=True)
    if isinstance(value, str):
        try:
            value = load_json(value)
        except UntrustedInputError as err:
            return f"must be a JSON object of labels: {err}"
    if not isinstance(value, dict):
        return f"must be a JSON object of labels, got {type(value).__name__}"
    labels: dict[str, str] = {}
    reserved: dict[str, str] = {}
    for key, label in cast(dict[str, Any], value).items():
        if not isinstance(label, str):
            return f"{key}: label values are strings, got {type(label).__name__}"
        (reserved if reserved_label_problem(key) else labels)[key] = label
    return DefaultLabels(labels, reserved)


def label_field(type_: str) -> str | None:
    """The label field the provider merges default labels into, for `type_` (None: none)."""
    entry = resource_entry(type_)
    if entry is None or _MERGED_OUTPUT not in (entry.get("outputs") or ()):
        return None
    properties = cast(Mapping[str, Any], entry.get("properties") or {})
    return next((name for name in FIELDS if name in properties), None)


def merge(type_: str, inputs: dict[str, Any], defaults: DefaultLabels, source: str) -> str | None:
    """Merge `defaults` into the type's label field of `inputs`; returns where they came from.

    The resource's own labels win on the same key (the provider's rule). A resource whose labels
    are unknown or secret stays so; unknown default labels make the field unknown (which of the
    required labels it will carry is not known until apply).
    """
    if not defaults or (name := label_field(type_)) is None:
        return None
    own = inputs.get(name)
    if own in (UNKNOWN, SECRET):
        return None
    if defaults.unknown:
        inputs[name] = UNKNOWN
        return f"unknown: {source} is secret or not known until apply"
    if not defaults.labels:
        return None
    mine = cast(dict[str, Any], own) if isinstance(own, dict) else {}
    inputs[name] = {**defaults.labels, **mine}
    added = sorted(set(defaults.labels) - set(mine))
    if not added:
        return None
    return f"{source}: {', '.join(added)}"


def applied(outputs: Mapping[str, Any], own: Any) -> dict[str, str] | None:
    """A stack export's labels as pulumi-gcp last applied them (the `pulumiLabels` output).

    pulumi-gcp applies a changed `defaultLabels` to a resource only when it next updates it
    (pulumi/pulumi-gcp#1275), so a deployed resource may carry other labels than its provider's
    current defaults give: `pulumiLabels` (labels + default labels, as applied) says which. None
    when absent, secret or not a map of strings. Reserved keys the resource does not set itself
    are left out, as in `merge`.
    """
    value = outputs.get(_MERGED_OUTPUT)
    if not isinstance(value, dict) or SIGNATURE_KEY in value:
        return None
    labels = cast(dict[str, Any], value)
    if not all(isinstance(v, str) for v in labels.values()):
        return None
    mine = cast(dict[str, Any], own) if isinstance(own, dict) else {}
    return {k: str(v) for k, v in labels.items() if k in mine or reserved_label_problem(k) is None}


def reserved_finding(provider: str, where: str, reserved: Mapping[str, str]) -> dict[str, Any]:
    """The mandatory finding for `mlgov-*` keys in a provider's default labels.

    `provider` names the provider ("provider 'eu'", or `gcp:defaultLabels` for the default
    provider a preview does not list), `where` the setting ("defaultLabels of provider 'eu'",
    "stack config gcp:defaultLabels").
    """
    keys = ", ".join(f"{k}: {v!r}" for k, v in sorted(reserved.items()))
    return {
        "policy": RESERVED_POLICY,
        "resource": provider,
        "type": PROVIDER_TYPE,
        "enforcement": "mandatory",
        "message": f"{where} sets reserved label(s) {keys} on every resource the provider "
        "manages: not applied to any of them",
        "why": "`mlgov-*` labels steer the automation (mlgov-exempt exempts a resource from the "
        "budget cap and the reapers); set provider-wide, they would reach every resource the "
        "provider manages without a reviewer seeing one, so mlgov's own stacks refuse them in "
        "gcp:defaultLabels too",
        "remediation": "remove the mlgov-* keys from the provider's defaultLabels and set them "
        "on the few resources that need them, where a reviewer sees each",
    }
