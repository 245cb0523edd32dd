"""Infracost's usage file, per case, as the mlgov usage file a user would write for the same usage.

Each case keeps its `.usage.yml` values under `infracost_usage` (Infracost address -> its keys).
`usage_file_for(case)` turns them into one mlgov usage file (governance/costs/usage_file.py):
`resource_usage` keyed by the resource's Pulumi name, each Infracost key renamed (and rescaled:
milliseconds to seconds, minutes to seconds, TiB to GiB) into the mlgov key that prices the same
charge. `TRANSLATION` says, for every Infracost key the cases use, which mlgov key it becomes or
why none does (a charge mlgov does not price); `untranslated(case)` lists those, so
test_peer.py can require each to be covered by a reason in differences.yaml.

Infracost's "GB" quantities are Google's GiB-based billing units, so they carry over 1:1.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from governance.costs.transfer import continent_of, usage_key
from governance.costs.usage_file import UsageFile, parse_usage_file
from mlgov_policies import vocabulary as v

if TYPE_CHECKING:
    from tests.costs.peer.harness import Case


@dataclass(frozen=True)
class Key:
    """An Infracost key that becomes mlgov key `to`, its value times `factor`."""

    to: str
    factor: float = 1.0


@dataclass(frozen=True)
class Egress:
    """Infracost's per-destination egress map: each destination in `to` summed into that mlgov
    key (several Infracost destinations can share one mlgov rate); the others are left out, with
    the reason."""

    to: Mapping[str, str]
    why_not: str


@dataclass(frozen=True)
class NotPriced:
    """An Infracost key with no mlgov equivalent: mlgov does not price that charge."""

    why: str


@dataclass(frozen=True)
class Ignored:
    """A key Infracost itself does not read (not one of its usage keys): nothing to carry over."""

    why: str


Rule = Key | Egress | NotPriced | Ignored

SAME_CONTINENT = "<the resource's own continent>"
"""An Egress target: the transfer key of the continent of the resource's location."""
# Premium Tier internet egress destinations (egress.py): Infracost's "asia" (excluding China,
# including Hong Kong) is one of Google's worldwide destinations, at the worldwide rates.
_INTERNET = {
    "worldwide": "monthly_egress_gb",
    "asia": "monthly_egress_gb",
    "china": "monthly_egress_china_gb",
    "australia": "monthly_egress_australia_gb",
}
# A bucket's: Cloud Storage tiers Asia apart (egress.py), and "same_continent" is transfer within
# Google Cloud to another location on the bucket's continent (transfer.py).
_STORAGE = {
    **_INTERNET,
    "asia": "monthly_egress_asia_gb",
    "same_continent": SAME_CONTINENT,
}
_NODES = Key("nodes_per_zone")

TRANSLATION: Mapping[str, Mapping[str, Rule]] = {
    v.COMPUTE_INSTANCE: {
        "monthly_hrs": Key("monthly_hours"),
        # two cases spell it monthly_hours; Infracost reads only monthly_hrs (its
        # compute_instance.go usage schema) and prices those VMs for 730 h
        "monthly_hours": Ignored("not an Infracost usage key"),
    },
    v.GKE_NODE_POOL: {"nodes": _NODES},
    v.GKE_CLUSTER: {
        "nodes": Key("default_pool_nodes_per_zone"),
        "node_pool[]": Key("node_pools"),  # node_pool[i].nodes -> node_pools.i.nodes_per_zone
        "autopilot_vcpu_count": Key("autopilot_vcpus"),
        "autopilot_memory_gb": Key("autopilot_memory_gib"),
        "autopilot_ephemeral_storage_gb": Key("autopilot_ephemeral_storage_gib"),
    },
    v.COMPUTE_ROUTER_NAT: {
        "assigned_vms": Key("assigned_vms"),
        "monthly_data_processed_gb": Key("monthly_data_processed_gb"),
    },
    v.SQL_INSTANCE: {"backup_storage_gb": Key("backup_storage_gb")},
    v.COMPUTE_IMAGE: {"storage_gb": Key("storage_gib")},
    v.COMPUTE_SNAPSHOT: {"storage_gb": Key("storage_gib")},
    v.BQ_DATASET: {"monthly_queries_tb": Key("monthly_queries_tib")},
    v.PUBSUB_TOPIC: {"monthly_message_data_tb": Key("monthly_message_gib", 1024)},
    v.PUBSUB_SUBSCRIPTION: {
        "monthly_message_data_tb": Key("monthly_message_gib", 1024),
        "storage_gb": Key("retained_acked_gib"),
        "snapshot_storage_gb": Key("snapshot_gib"),
    },
    v.STORAGE_BUCKET: {
        "storage_gb": Key("storage_gb"),
        "monthly_class_a_operations": Key("monthly_class_a_operations"),
        "monthly_class_b_operations": Key("monthly_class_b_operations"),
        "monthly_data_retrieval_gb": Key("monthly_data_retrieval_gb"),
        "monthly_egress_data_transfer_gb": Egress(_STORAGE, "not a Cloud Storage destination"),
    },
    v.FUNCTION_V1: {
        "monthly_function_invocations": Key("monthly_invocations"),
        "request_duration_ms": Key("average_seconds", 0.001),
        "monthly_outbound_data_gb": Key("monthly_egress_gb"),
    },
    v.CLOUD_RUN_SERVICE: {
        "monthly_requests": Key("monthly_requests"),
        "average_request_duration_ms": Key("average_request_seconds", 0.001),
        "concurrent_requests_per_instance": Key("concurrent_requests_per_instance"),
        "instance_hrs": Key("instance_hours"),
    },
    v.CLOUD_RUN_JOB: {
        "monthly_job_executions": Key("monthly_executions"),
        "average_task_execution_mins": Key("average_task_seconds", 60),
    },
}
_TRANSFER = NotPriced(
    "data transfer between Google Cloud regions (same region, within or between continents) "
    "has no price in the price catalog; mlgov has no usage key for it (service networking has "
    "no charge of its own)"
)
# A Classic or HA VPN gateway's destinations in Infracost are other Google Cloud regions
# (inter-region transfer; its "worldwide" is "between continents"); an external (peer) gateway's
# are internet destinations, billed at Premium Tier internet egress rates (resources/vpn.py).
_VPN_TO_GOOGLE = Egress({}, _TRANSFER.why)
_VPN_TO_PEER = Egress(
    {k: _INTERNET[k] for k in ("worldwide", "china", "australia")},
    "not one of Infracost's external VPN gateway destinations",
)
_PROXY = {
    "monthly_proxy_instances": Key("monthly_proxy_instances"),
    "monthly_data_processed_gb": Key("monthly_data_processed_gb"),
}
_BQ_APIS = {
    "monthly_streaming_inserts_mb": Key("monthly_streaming_inserts_mib"),
    "monthly_storage_write_api_gb": Key("monthly_storage_write_api_gib"),
    "monthly_storage_read_api_tb": Key("monthly_storage_read_api_tib"),
}
_NEW_TYPES: Mapping[str, Mapping[str, Rule]] = {
    v.ARTIFACT_REPOSITORY: {
        "storage_gb": Key("storage_gb"),
        "monthly_egress_data_transfer_gb": NotPriced(
            "Artifact Registry transfer between locations is billed by route; mlgov has no "
            "usage key for it"
        ),
    },
    v.BQ_TABLE: {
        "monthly_active_storage_gb": Key("monthly_active_storage_gb"),
        "monthly_long_term_storage_gb": Key("monthly_long_term_storage_gb"),
        **_BQ_APIS,
    },
    v.COMPUTE_EXTERNAL_VPN_GATEWAY: {"monthly_egress_data_transfer_gb": _VPN_TO_PEER},
    v.COMPUTE_HA_VPN_GATEWAY: {"monthly_egress_data_transfer_gb": _VPN_TO_GOOGLE},
    v.COMPUTE_VPN_GATEWAY: {"monthly_egress_data_transfer_gb": _VPN_TO_GOOGLE},
    v.SERVICE_NETWORKING_CONNECTION: {"monthly_egress_data_transfer_gb": _TRANSFER},
    v.COMPUTE_FORWARDING_RULE: {"monthly_ingress_data_gb": Key("monthly_ingress_data_gb")},
    v.COMPUTE_GLOBAL_FORWARDING_RULE: {"monthly_ingress_data_gb": Key("monthly_ingress_data_gb")},
    **dict.fromkeys(v.TARGET_PROXIES, _PROXY),
    v.COMPUTE_MACHINE_IMAGE: {"storage_gb": Key("storage_gib")},
    v.CONTAINER_REGISTRY: TRANSLATION[v.STORAGE_BUCKET],
    v.DNS_RECORD_SET: {"monthly_queries": Key("monthly_queries")},
    v.KMS_CRYPTO_KEY: {
        "key_versions": Key("key_versions"),
        "monthly_key_operations": Key("monthly_key_operations"),
    },
    v.MONITORING_METRIC_DESCRIPTOR: {
        "monthly_monitoring_data_mb": Key("monthly_monitoring_data_mb"),
        "monthly_api_calls": Key("monthly_api_calls"),
    },
    v.REDIS_CLUSTER: {"backup_storage_gb": Key("backup_storage_gb")},
    v.SECRET: {
        "active_secret_versions": Key("active_secret_versions"),
        "monthly_access_operations": Key("monthly_access_operations"),
        "monthly_rotation_notifications": Key("monthly_rotation_notifications"),
    },
    v.SECRET_VERSION: {"monthly_access_operations": Key("monthly_access_operations")},
}  # fmt: skip
_LOG_BUCKET = {"monthly_logging_data_gb": Key("monthly_ingestion_gib")}
_LOG_SINK = {"monthly_logging_data_gb": NotPriced("the Log Router has no charge (sinks are free)")}
TRANSLATION = {
    **TRANSLATION,
    # Cloud Run v1 services take the same keys as v2.
    v.CLOUD_RUN_V1_SERVICE: TRANSLATION[v.CLOUD_RUN_SERVICE],
    **dict.fromkeys(
        (v.LOGGING_BUCKET_CONFIG, v.LOGGING_FOLDER_BUCKET_CONFIG,
         v.LOGGING_ORGANIZATION_BUCKET_CONFIG, v.LOGGING_BILLING_ACCOUNT_BUCKET_CONFIG),
        _LOG_BUCKET,
    ),
    **_NEW_TYPES,
    **dict.fromkeys(
        (v.LOGGING_PROJECT_SINK, v.LOGGING_FOLDER_SINK, v.LOGGING_ORGANIZATION_SINK,
         v.LOGGING_BILLING_ACCOUNT_SINK),
        _LOG_SINK,
    ),
}  # fmt: skip

_INDEXED = re.compile(r"(\w+)\[(\d+)\]")


@dataclass(frozen=True)
class Translated:
    """One case's usage in mlgov's terms, and what could not be carried over."""

    resource_usage: Mapping[str, Mapping[str, Any]]
    left_out: Mapping[str, tuple[str, ...]]
    """Infracost address -> "key: why" for each key (or egress destination) left out."""


def _rule(type_: str, key: str) -> Rule:
    rules = TRANSLATION.get(type_, {})
    if key in rules:
        return rules[key]
    return NotPriced(f"{type_} has no mlgov usage key for {key!r}")


def _translate(
    type_: str, values: Mapping[str, Any], location: str = ""
) -> tuple[dict[str, Any], list[str]]:
    out: dict[str, Any] = {}
    left: list[str] = []
    for key, value in values.items():
        if m := _INDEXED.fullmatch(key):
            rule = _rule(type_, f"{m.group(1)}[]")
            if isinstance(rule, Key):
                inner, inner_left = _translate(v.GKE_NODE_POOL, value)
                out.setdefault(rule.to, {})[m.group(2)] = inner
                left += [f"{key}.{x}" for x in inner_left]
                continue
        rule = _rule(type_, key)
        if isinstance(rule, Key):
            out[rule.to] = float(value) * rule.factor
        elif isinstance(rule, Egress):
            dests: Mapping[str, float] = value
            for d, gb in dests.items():
                if d in rule.to:
                    to = rule.to[d]
                    if to == SAME_CONTINENT:
                        to = usage_key(continent_of(location) or "")
                    out[to] = out.get(to, 0.0) + float(gb)
            left += [f"{key}.{d}: {rule.why_not}" for d in dests if d not in rule.to]
        elif isinstance(rule, NotPriced):
            left.append(f"{key}: {rule.why}")
    return out, left


def translate(case: Case) -> Translated:
    """The case's Infracost usage as mlgov `resource_usage` (by Pulumi name), plus what is left."""
    raw: Mapping[str, Mapping[str, Any]] = case.doc.get("infracost_usage") or {}
    by_address = {
        r["infracost"]["address"]: r for r in case.resources() if r.get("infracost") is not None
    }
    usage: dict[str, dict[str, Any]] = {}
    left_out: dict[str, tuple[str, ...]] = {}
    for address, values in raw.items():
        res = by_address.get(address)
        if res is None:
            left_out[address] = ("no translated resource has this address",)
            continue
        location = str(res["inputs"].get("location") or "US")  # a registry's default is US
        out, left = _translate(res["type"], values, location)
        if out:
            usage[res["name"]] = out
        if left:
            left_out[address] = tuple(left)
    return Translated(usage, left_out)


def usage_file_for(case: Case) -> UsageFile | None:
    """The mlgov usage file for the case (checked as `--usage-file` would be), or None."""
    found = translate(case).resource_usage
    if not found:
        return None
    return parse_usage_file(
        {"version": 1, "resource_usage": found}, f"peer case {case.name} (infracost usage)"
    )
