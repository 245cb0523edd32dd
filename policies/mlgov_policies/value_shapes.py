"""The shapes of names a policy config or a stack's `limits` lists, as Google spells them.

An allow-list entry Google would never use matches nothing, so a typo there silently allows
nothing (or, in `required_labels`, requires a label no resource can carry). Each function returns
why a value is not of its shape, or None. Shapes only: whether a region sells a machine type is
the cost catalog's question. Pure; settings (governance/settings/accepted.py) and the policy
config (config.py) share these.
"""

from __future__ import annotations

import re
from typing import Final

from mlgov_policies import label_syntax
from mlgov_policies.compat import gpus

_MACHINE_TYPE: Final = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+){1,5}")
_SQL_TIER: Final = re.compile(r"db-[a-z0-9]+(-[a-z0-9]+){1,4}")
_ENUM: Final = re.compile(r"[A-Z][A-Z0-9_]{1,62}")
_BIGQUERY_ID: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,1023}")
_WORKBENCH_GPUS: Final = tuple(g.workbench for g in gpus.GPUS if g.workbench)


def _quoted(value: str) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:56]}...{text[-1]}"


def machine_type_problem(value: str) -> str | None:
    """Compute Engine machine types: lowercase `family-shape[-size]` (e2-standard-4)."""
    if len(value) <= 63 and _MACHINE_TYPE.fullmatch(value):
        return None
    return (
        f"{_quoted(value)} is not a Compute Engine machine type name: lowercase letters, digits "
        "and hyphens such as e2-standard-4 or n2-custom-4-16384"
    )


def workbench_gpu_problem(value: str) -> str | None:
    """Workbench accelerator enums (notebooks v2 `AcceleratorConfig.type`: NVIDIA_L4)."""
    if value in _WORKBENCH_GPUS:
        return None
    model = gpus.gpu(value)
    hint = f"; did you mean {model.workbench}?" if model is not None and model.workbench else ""
    return (
        f"{_quoted(value)} is not a Workbench GPU type{hint} (known: {', '.join(_WORKBENCH_GPUS)})"
    )


def sql_tier_problem(value: str) -> str | None:
    """Cloud SQL tiers: `db-` and lowercase parts (db-custom-2-7680, db-g1-small)."""
    if _SQL_TIER.fullmatch(value):
        return None
    return f"{_quoted(value)} is not a Cloud SQL tier such as db-custom-2-7680 or db-g1-small"


def accelerator_enum_problem(value: str) -> str | None:
    """Vertex AI `MachineSpec.acceleratorType` enums: upper case and underscores (NVIDIA_L4)."""
    if _ENUM.fullmatch(value):
        return None
    return f"{_quoted(value)} is not a Vertex AI accelerator type such as NVIDIA_L4 (upper case)"


def label_key_problem(value: str) -> str | None:
    """A label key GCP accepts (label_syntax.py)."""
    if label_syntax.key_ok(value):
        return None
    return f"{_quoted(value)} is not a label key: it must {label_syntax.KEY_RULE}"


def bigquery_id_problem(value: str) -> str | None:
    """A BigQuery dataset id: letters, digits and underscores, at most 1,024."""
    if _BIGQUERY_ID.fullmatch(value):
        return None
    return f"{_quoted(value)} is not a BigQuery dataset id: letters, digits and underscores"
