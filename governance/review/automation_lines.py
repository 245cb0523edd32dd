"""What the governance functions may act on, as a few lines under the plan's totals.

Pure: a plan document in, lines out, read from the deployed functions' `MLGOV_POLICY` and
environment (docs/architecture.md#mlgov-policy): each governed project and scope (its parent, label
selector, environment and whether billing may be unlinked there), fan-out (the work topic, the
worker's size, the delivery bound) and the reapers' blast-radius limits. A plan without governance
functions has none. render.py lays the lines out (text and markdown).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from mlgov_policies.props import as_list, as_mapping, as_number, as_str, dig
from mlgov_policies.vocabulary import FUNCTION_V2, PUBSUB_SUBSCRIPTION

Doc = Mapping[str, Any]
TITLE = "automation (what the governance functions may act on)"
WORK_TOPIC_ENV = "MLGOV_WORK_TOPIC"
_ENTRY_ORDER = ("on_budget_alert", "reap_idle_vms", "reap_expired", "reap_idle_gpus")


def _resources(doc: Doc) -> list[Mapping[str, Any]]:
    return [as_mapping(r) for r in as_list(doc.get("resources"))]


def _functions(doc: Doc) -> dict[str, Mapping[str, Any]]:
    """Governance functions (those with an MLGOV_POLICY) by entry point."""
    found: dict[str, Mapping[str, Any]] = {}
    for r in _resources(doc):
        i = as_mapping(r.get("inputs"))
        if r.get("type") != FUNCTION_V2:
            continue
        if dig(i, "serviceConfig", "environmentVariables", "MLGOV_POLICY") is None:
            continue
        entry = as_str(dig(i, "buildConfig", "entryPoint")) or str(r.get("name"))
        found[entry] = i
    return found


def _policy(functions: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The policy the dispatchers run under (the budget function's, else any one's)."""
    order = [e for e in _ENTRY_ORDER if e in functions] + sorted(functions)
    for entry in order:
        raw = dig(functions[entry], "serviceConfig", "environmentVariables", "MLGOV_POLICY")
        try:
            policy: object = json.loads(raw) if isinstance(raw, str) else None
        except (ValueError, RecursionError):
            continue
        if isinstance(policy, dict):
            return as_mapping(cast(object, policy))
    return None


def _unlink(allowed: object) -> str:
    return "billing unlink allowed" if allowed is True else "billing unlink never"


def _number(value: object) -> str:
    number = as_number(value)
    return f"{number:g}" if number is not None else str(value)


def _scope_line(key: str, scope: Mapping[str, Any]) -> str:
    labels = as_mapping(scope.get("labels"))
    selector = (
        "projects labelled " + ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
        if labels
        else "every project"
    )
    regions = as_list(scope.get("vertex_regions"))
    vertex = f", Vertex AI in {', '.join(map(str, regions))}" if regions else ""
    return (
        f"scope {key}: {selector} (found at run time), every zone{vertex}, environment "
        f"{scope.get('environment')}, {_unlink(scope.get('allow_billing_disable'))}"
    )


def _fan_out_line(doc: Doc, functions: Mapping[str, Mapping[str, Any]]) -> str | None:
    topics = {
        str(t)
        for f in functions.values()
        if (t := dig(f, "serviceConfig", "environmentVariables", WORK_TOPIC_ENV))
    }
    if not topics:
        return None
    line = f"fan-out: one work item per project on {', '.join(sorted(topics))}"
    if (worker := functions.get("on_work_item")) is not None:
        config = as_mapping(worker.get("serviceConfig"))
        line += (
            f"; on_work_item up to {_number(config.get('maxInstanceCount'))} instances x "
            f"{_number(config.get('maxInstanceRequestConcurrency'))} items"
        )
    for r in _resources(doc):
        policy = as_mapping(dig(r, "inputs", "deadLetterPolicy"))
        if r.get("type") == PUBSUB_SUBSCRIPTION and policy:
            attempts = _number(policy.get("maxDeliveryAttempts"))
            line += f"; {attempts} delivery attempts, then {policy.get('deadLetterTopic')} (pages)"
            break
    return line


def _blast_line(policy: Mapping[str, Any]) -> str:
    blast = as_mapping(policy.get("blast_radius"))
    if not blast:
        return "blast radius (reapers): the functions' defaults (100 stops a run, 5% failed calls)"
    percent = blast.get("max_stop_percent")
    canary = [str(c) for c in as_list(blast.get("canary"))]
    acting = blast.get("acting_reapers")
    parts = [
        f"at most {_number(blast.get('max_stops_per_run'))} stops a run"
        + (f" and {_number(percent)}% of the running estate" if percent is not None else ""),
        f"stop acting past {(as_number(blast.get('max_error_rate')) or 0) * 100:g}% failed calls",
        f"canary {', '.join(canary)} first" if canary else "no canary",
        "acting: every reaper"
        if acting is None
        else f"acting: {', '.join(map(str, as_list(acting))) or 'none'} (any other simulates)",
    ]
    return "blast radius (reapers): " + "; ".join(parts)


def automation_lines(doc: Doc) -> list[str]:
    """The lines (without the title) for a plan with governance functions; [] without."""
    functions = _functions(doc)
    policy = _policy(functions)
    if policy is None:
        return []
    lines: list[str] = []
    for pid, project in sorted(as_mapping(policy.get("projects")).items()):
        p = as_mapping(project)
        zones = ", ".join(map(str, as_list(p.get("zones"))))
        lines.append(
            f"project {pid}: zones {zones}, environment {p.get('environment')}, "
            f"{_unlink(p.get('allow_billing_disable'))}"
        )
    for key, scope in sorted(as_mapping(policy.get("scopes")).items()):
        lines.append(_scope_line(key, as_mapping(scope)))
    if (fan_out := _fan_out_line(doc, functions)) is not None:
        lines.append(fan_out)
    lines.append(_blast_line(policy))
    return lines
