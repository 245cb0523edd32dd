"""`limits`: the guardrails of each environment, with per-environment defaults.

A stack may override single keys; the rest come from `ENV_LIMITS`. The policy pack enforces the
same values (the plan document's `policy_config` is built from them in root.py).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from governance.settings.accepted import MachineType, SqlTier, VertexAccelerator, WorkbenchGpu
from governance.settings.base import Model
from mlgov_policies.vocabulary import REQUIRED_LABELS


def _amount(value: Any) -> Any:
    # YAML `true` or "200" are mistakes, not amounts; pydantic's lax float would take them, and
    # NaN would compare false with every increase (a guardrail that never trips).
    if value is None:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("increase_limit", "must be a number (or null: no limit)")
    if not math.isfinite(value):
        raise PydanticCustomError("increase_limit", "must be a finite number (or null: no limit)")
    return value


IncreaseLimit = Annotated[float | None, BeforeValidator(_amount), Field(ge=0)]
"""A cost guardrail: the most a pull request may raise the monthly estimate; None, no limit."""


class Limits(Model):
    """Guardrails per environment; the policy checks enforce the same values."""

    max_idle_minutes: Annotated[int, Field(ge=10, le=1440)]
    notebook_machine_types: tuple[MachineType, ...]
    notebook_gpu_types: tuple[WorkbenchGpu, ...]
    sql_tiers: tuple[SqlTier, ...]
    allowed_bigquery_locations: tuple[str, ...] = ()
    max_gpu_vm_run_hours: Annotated[int, Field(ge=1, le=720)] = 24
    # Accelerators Vertex AI serving (endpoints, resource pools) may use; empty: none.
    vertex_serving_gpu_types: tuple[VertexAccelerator, ...] = ()
    # Longest log bucket retention; 30 days come with ingestion, longer is billed.
    max_log_retention_days: Annotated[int, Field(ge=1, le=3650)] = 30
    # Cost guardrails, as Infracost's: a pull request that raises the stack's monthly estimate
    # (base vs head) by more than either is a mandatory finding (review/guardrail.py). Opt-in.
    max_monthly_increase_usd: IncreaseLimit = None
    max_monthly_increase_percent: IncreaseLimit = None


_SMALL_MACHINES = ("e2-standard-2", "e2-standard-4", "n1-standard-4", "n2-standard-4")
ENV_LIMITS: dict[str, dict[str, Any]] = {
    "dev": {
        "max_idle_minutes": 120,
        "notebook_machine_types": [*_SMALL_MACHINES, "n1-standard-8", "g2-standard-4"],
        "notebook_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
        "sql_tiers": ["db-g1-small", "db-custom-1-3840", "db-custom-2-7680"],
        "max_gpu_vm_run_hours": 12,
        "max_log_retention_days": 30,
    },
    "staging": {
        "max_idle_minutes": 180,
        "notebook_machine_types": [
            *_SMALL_MACHINES,
            "n1-standard-8",
            "n2-standard-8",
            "g2-standard-8",
        ],
        "notebook_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
        "sql_tiers": ["db-custom-1-3840", "db-custom-2-7680", "db-custom-4-15360"],
        "max_gpu_vm_run_hours": 24,
        "vertex_serving_gpu_types": ["NVIDIA_L4"],
        "max_log_retention_days": 90,
    },
    "prod": {
        "max_idle_minutes": 240,
        "notebook_machine_types": [
            *_SMALL_MACHINES,
            "n1-standard-8",
            "n1-standard-16",
            "n2-standard-8",
            "n2-standard-16",
            "g2-standard-8",
            "g2-standard-16",
        ],
        "notebook_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4", "NVIDIA_TESLA_V100"],
        "sql_tiers": ["db-custom-2-7680", "db-custom-4-15360", "db-custom-8-30720"],
        "max_gpu_vm_run_hours": 72,
        "vertex_serving_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
        "max_log_retention_days": 365,
    },
}


def recorded_limits(limits: Limits) -> dict[str, Any]:
    """The limits as a plan document records them (`limits`): the keys left unset are left out.

    Only the opt-in cost guardrails can be unset; leaving them out keeps documents of stacks that
    set none as they were, and absent reads as "no limit" (govdiff/read.py).
    """
    return limits.model_dump(mode="json", exclude_none=True)


def policy_config(
    environment: str,
    region: str | None,
    limits: Limits,
    *,
    billing_export_dataset: str | None = None,
    budget_required: bool | None = None,
) -> dict[str, Any]:
    """The policy configuration these limits imply (a plan document's `policy_config`).

    `region` None: the region rule derives it from the resources. Keys left None are left out
    (the policies' defaults apply).
    """
    config: dict[str, Any] = {
        "environment": environment,
        "region": region,
        "allowed_bigquery_locations": [
            *([region] if region else []),
            *limits.allowed_bigquery_locations,
        ],
        "max_idle_minutes": limits.max_idle_minutes,
        "notebook_machine_types": list(limits.notebook_machine_types),
        "notebook_gpu_types": list(limits.notebook_gpu_types),
        "sql_tiers": list(limits.sql_tiers),
    }
    if billing_export_dataset is not None:
        config["billing_export_dataset"] = billing_export_dataset
    config.update(
        {
            "required_labels": list(REQUIRED_LABELS),
            "vertex_serving_gpu_types": list(limits.vertex_serving_gpu_types),
            "max_log_retention_days": limits.max_log_retention_days,
        }
    )
    if budget_required is not None:
        config["budget_required"] = budget_required
    return config
