"""PolicyConfig: the settings the mlgov rules read, validated once with errors that name the key.

This module is pure (no pulumi, no pulumi_policy): the offline `python -m governance check`, the
CrossGuard pack (pack.py) and the tests all build a `PolicyConfig` through `from_mapping`. The
rules themselves live in rules/; how a plan document's `policy_config` reaches this module is the
CLI's business (governance/).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, cast

from mlgov_policies import value_shapes as shapes
from mlgov_policies.vocabulary import REQUIRED_LABELS

Environment = Literal["dev", "staging", "prod"]

ENVIRONMENTS: tuple[Environment, ...] = ("dev", "staging", "prod")

# Cheap, widely available Workbench GPUs. An explicit empty list means "no GPUs on notebooks".
DEFAULT_NOTEBOOK_GPU_TYPES = ("NVIDIA_TESLA_T4", "NVIDIA_L4")


class PolicyConfigError(ValueError):
    """A policy configuration value is invalid; the message names the offending key."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"policy config '{key}': {problem}")
        self.key = key
        self.problem = problem


@dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    """Environment-specific limits the rules enforce; every field has a safe default."""

    environment: Environment = "dev"
    region: str | None = None
    """None: derive the region from the resources when they agree on exactly one."""
    allowed_bigquery_locations: tuple[str, ...] = ()
    """Empty: only the region itself."""
    max_idle_minutes: int = 180
    notebook_machine_types: tuple[str, ...] | None = None
    """None (not configured): any machine type. Empty: none, as `mlgov:settings` reads it."""
    notebook_gpu_types: tuple[str, ...] = DEFAULT_NOTEBOOK_GPU_TYPES
    """Workbench accelerator enums. Empty: no GPUs allowed on notebooks."""
    sql_tiers: tuple[str, ...] | None = None
    """None (not configured): any tier. Empty: none, as `mlgov:settings` reads it."""
    billing_export_dataset: str = "billing_export"
    required_labels: tuple[str, ...] = REQUIRED_LABELS
    vertex_serving_gpu_types: tuple[str, ...] = ()
    """Accelerator types (MachineSpec enums) Vertex AI serving may use. Empty: no GPUs."""
    max_log_retention_days: int = 30
    """Longest log bucket retention; the first 30 days come with ingestion at no extra charge."""
    budget_required: bool = True
    """Whether the stack must hold a budget itself. False: a program that builds a few
    components in a project another stack budgets (`mlgov:plan.budget_required`)."""

    def bigquery_locations(self, region: str | None) -> frozenset[str]:
        """Lower-cased BigQuery locations allowed when the stack's region is `region`."""
        allowed = {loc.lower() for loc in self.allowed_bigquery_locations}
        if region is not None:
            allowed.add(region.lower())
        return frozenset(allowed)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None) -> PolicyConfig:
        """Validate a plain mapping (plan document `policy_config`, pack config) into a config.

        Raises:
            PolicyConfigError: a key is unknown or its value has the wrong type or range.
        """
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise PolicyConfigError("<root>", f"expected an object, got {type(raw).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in raw if k not in known)
        if unknown:
            raise PolicyConfigError(
                unknown[0], f"unknown key (known keys: {', '.join(sorted(known))})"
            )
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if value is None and key != "region":
                continue  # null means "use the default", as an absent key does
            values[key] = _PARSERS[key](key, value)
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping that `from_mapping` turns back into an equal config."""
        values: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        # Tuples (the allow-lists) become JSON lists; everything else is already plain.
        return {
            key: list(cast(tuple[str, ...], value)) if isinstance(value, tuple) else value
            for key, value in values.items()
        }


def _environment(key: str, value: Any) -> Environment:
    if value not in ENVIRONMENTS:
        raise PolicyConfigError(key, f"must be one of {list(ENVIRONMENTS)}, got {value!r}")
    return value


def _optional_str(key: str, value: Any) -> str | None:
    if value is None:
        return None
    return _str(key, value)


def _str(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PolicyConfigError(key, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _positive_int(key: str, value: Any) -> int:
    # JSON numbers arrive as floats from CrossGuard config; accept 180.0 but not 180.5 or True.
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise PolicyConfigError(key, f"must be a whole number, got {value!r}")
    if value <= 0:
        raise PolicyConfigError(key, f"must be greater than 0, got {value!r}")
    return int(value)


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise PolicyConfigError(key, f"must be true or false, got {value!r}")
    return value


def _str_list(key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise PolicyConfigError(key, f"must be a list of strings, got {value!r}")
    items = cast(Sequence[Any], value)
    for index, item in enumerate(items):
        if not isinstance(item, str) or not item:
            raise PolicyConfigError(f"{key}[{index}]", f"must be a non-empty string, got {item!r}")
    return tuple(cast(Sequence[str], items))


def _shaped_list(shape: Callable[[str], str | None]) -> Callable[[str, Any], tuple[str, ...]]:
    """A list parser whose every item must have `shape` (value_shapes.py).

    An entry Google never uses would match nothing, silently.
    """

    def parse(key: str, value: Any) -> tuple[str, ...]:
        items = _str_list(key, value)
        for index, item in enumerate(items):
            if (problem := shape(item)) is not None:
                raise PolicyConfigError(f"{key}[{index}]", problem)
        return items

    return parse


def _dataset_id(key: str, value: Any) -> str:
    text = _str(key, value)
    if (problem := shapes.bigquery_id_problem(text)) is not None:
        raise PolicyConfigError(key, problem)
    return text


_PARSERS: dict[str, Any] = {
    "environment": _environment,
    "region": _optional_str,
    "allowed_bigquery_locations": _str_list,
    "max_idle_minutes": _positive_int,
    "notebook_machine_types": _shaped_list(shapes.machine_type_problem),
    "notebook_gpu_types": _shaped_list(shapes.workbench_gpu_problem),
    "sql_tiers": _shaped_list(shapes.sql_tier_problem),
    "billing_export_dataset": _dataset_id,
    "required_labels": _shaped_list(shapes.label_key_problem),
    "vertex_serving_gpu_types": _shaped_list(shapes.accelerator_enum_problem),
    "max_log_retention_days": _positive_int,
    "budget_required": _bool,
}


CONFIG_KEYS: tuple[str, ...] = tuple(_PARSERS)
"""Every PolicyConfig key, in declaration order."""


def parse_value(key: str, value: Any) -> Any:
    """One key's value checked and normalised as `from_mapping` does it (whole floats to int).

    Raises:
        PolicyConfigError: `key` is not a PolicyConfig key, or its value is wrong.
    """
    parser = _PARSERS.get(key)
    if parser is None:
        raise PolicyConfigError(key, f"unknown key (known keys: {', '.join(sorted(_PARSERS))})")
    return parser(key, value)


_STR_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}

# JSON schema of each key, for CrossGuard's per-policy `config_schema` (pack.py).
CONFIG_SCHEMA: dict[str, dict[str, Any]] = {
    "environment": {"type": "string", "enum": list(ENVIRONMENTS), "default": "dev"},
    "region": {"type": "string", "minLength": 1},
    "allowed_bigquery_locations": _STR_LIST,
    "max_idle_minutes": {"type": "integer", "minimum": 1, "default": 180},
    "notebook_machine_types": _STR_LIST,
    "notebook_gpu_types": {**_STR_LIST, "default": list(DEFAULT_NOTEBOOK_GPU_TYPES)},
    "sql_tiers": _STR_LIST,
    "billing_export_dataset": {"type": "string", "minLength": 1, "default": "billing_export"},
    "required_labels": {**_STR_LIST, "default": list(REQUIRED_LABELS)},
    "vertex_serving_gpu_types": {**_STR_LIST, "default": []},
    "max_log_retention_days": {"type": "integer", "minimum": 1, "default": 30},
    "budget_required": {"type": "boolean", "default": True},
}
