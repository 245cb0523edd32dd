"""Label rules: cost-attribution labels are present and follow GCP's label syntax.

LABEL_FIELDS says where each labelable type keeps its GCP labels; a new labelable type is one
entry there. Which labels are required comes from PolicyConfig (default: the vocabulary's
REQUIRED_LABELS). Location rules live in location.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies import label_syntax
from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_mapping, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

# Where each labelable type keeps its GCP labels (dotted path into the inputs). GKE node-pool
# `nodeConfig.labels` are Kubernetes labels, not GCP billing labels, so they are not listed.
LABEL_FIELDS: Mapping[str, tuple[str, ...]] = {
    v.WORKBENCH_INSTANCE: ("labels",),
    v.GKE_CLUSTER: ("resourceLabels",),
    v.GKE_NODE_POOL: ("nodeConfig.resourceLabels",),
    v.TPU_VM: ("labels",),
    v.COMPUTE_INSTANCE: ("labels", "bootDisk.initializeParams.labels"),
    v.COMPUTE_DISK: ("labels",),
    v.COMPUTE_GLOBAL_ADDRESS: ("labels",),
    v.SQL_INSTANCE: ("settings.userLabels",),
    v.BQ_DATASET: ("labels",),
    v.BQ_TABLE: ("labels",),
    v.PUBSUB_TOPIC: ("labels",),
    v.PUBSUB_SUBSCRIPTION: ("labels",),
    v.STORAGE_BUCKET: ("labels",),
    v.FUNCTION_V2: ("labels",),
    v.CLOUD_RUN_SERVICE: ("labels",),
    v.ARTIFACT_REPOSITORY: ("labels",),
    v.VERTEX_ENDPOINT: ("labels",),
    v.VERTEX_INDEX_ENDPOINT: ("labels",),
    v.VERTEX_PERSISTENT_RESOURCE: ("labels",),
    v.VERTEX_FEATURE_ONLINE_STORE: ("labels",),
    v.VERTEX_TENSORBOARD: ("labels",),
}
# Label fields whose parent block may legitimately be absent (a boot disk attached from an
# existing `source` has no initializeParams); absent parent means nothing to check.
_OPTIONAL_PARENT = frozenset({"bootDisk.initializeParams.labels"})

# GCP label syntax: label_syntax.py (Resource Manager's "Requirements for labels"; the
# pulumi-gcp `labels` property docs repeat its expressions and the 64-label limit).
_MAX_LABELS: Final = 64


def _label_maps(type_: str, props: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for field in LABEL_FIELDS.get(type_, ()):
        path = field.split(".")
        if field in _OPTIONAL_PARENT and dig(props, *path[:-1]) is None:
            continue
        yield field, dig(props, *path)


def required_labels(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Every labelable resource carries the cost-attribution labels, with non-empty values."""
    for field, labels in _label_maps(type_, props):
        if is_unknown(labels):
            continue
        present = as_mapping(labels)
        if labels is not None and not present and not isinstance(labels, Mapping):
            yield f"'{field}' is not a map of labels"
            continue
        missing = [key for key in config.required_labels if key not in present]
        empty = [
            key
            for key in config.required_labels
            if key in present and not is_unknown(present[key]) and not as_str(present[key])
        ]
        if missing:
            yield f"'{field}' lacks required labels {missing}"
        if empty:
            yield f"'{field}' has empty required labels {empty}"


REQUIRED = ResourceRule(
    name="mlgov-labels-required",
    check=required_labels,
    types=frozenset(LABEL_FIELDS),
    enforcement="mandatory",
    config_keys=("required_labels",),
    why="Billing reports, budgets and the cleanup functions attribute spend by these labels; "
    "an unlabelled resource is spend nobody owns.",
    remediation="Pass labels from governance.labels.Labels (team, env, cost-center, workload, "
    "managed-by) into the resource's label field.",
)


def valid_labels(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Label keys and values follow GCP's rules (lowercase incl. international, <=63 chars)."""
    del config
    for field, labels in _label_maps(type_, props):
        present = as_mapping(labels)
        if len(present) > _MAX_LABELS:
            yield f"'{field}' has {len(present)} labels; GCP allows at most {_MAX_LABELS}"
        for key, value in present.items():
            if not isinstance(key, str) or not label_syntax.key_ok(key):  # pyright: ignore[reportUnnecessaryIsInstance]
                yield f"'{field}' key {key!r} is invalid: it must {label_syntax.KEY_RULE}"
            if is_unknown(value):
                continue
            if not isinstance(value, str) or not label_syntax.value_ok(value):
                rule = label_syntax.VALUE_RULE
                yield f"'{field}' value {value!r} of {key!r} is invalid: it may {rule}"


VALID = ResourceRule(
    name="mlgov-labels-valid",
    check=valid_labels,
    types=frozenset(LABEL_FIELDS),
    enforcement="mandatory",
    why="GCP rejects invalid labels at apply time, after a preview looked fine.",
    remediation="Lowercase keys and values, keys start with a letter, only [a-z0-9_-], "
    "at most 63 characters, at most 64 labels.",
)


# What reap_expired stops (docs/reference/functions.md); on other types the date does nothing.
_EXPIRING_TYPES = frozenset({v.WORKBENCH_INSTANCE, v.COMPUTE_INSTANCE, v.TPU_VM})


def expiry_not_exempt(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """A workload with an expiry date is not also exempt (exempt wins, so nothing stops it)."""
    del type_, config
    labels = dig(props, "labels")
    if is_unknown(labels):
        return
    present = as_mapping(labels)
    expires, exempt = present.get(v.EXPIRES_LABEL), present.get(v.EXEMPT_LABEL)
    if expires is None or is_unknown(expires) or exempt != v.EXEMPT_VALUE:
        return
    yield (
        f"'labels' has {v.EXPIRES_LABEL}: {expires!r} and {v.EXEMPT_LABEL}: '{v.EXEMPT_VALUE}': "
        "the automation never touches exempt resources, so nothing stops it on that date"
    )


EXPIRY_NOT_EXEMPT = ResourceRule(
    name="mlgov-labels-expiry-not-exempt",
    check=expiry_not_exempt,
    types=_EXPIRING_TYPES,
    enforcement="advisory",
    why="An expiry date on an exempt workload reads like a promise that it stops, but reap_expired "
    "leaves exempt resources alone: it runs (and bills) past the date.",
    remediation=f"Remove {v.EXEMPT_LABEL} (settings: exempt) so the date is acted on, or remove "
    f"{v.EXPIRES_LABEL} (settings: expires_on).",
)
