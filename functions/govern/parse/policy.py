"""The `MLGOV_POLICY` validator: the JSON governance renders, to an `ActionPolicy`.

Strict (unknown keys are errors: a typo must not silently disable a safeguard) and every error
names its key path (`MLGOV_POLICY.budgets.b1.stop_at`). The required keys are the ones
docs/architecture.md#mlgov-policy names; every other key is optional with a safe default (dry_run
defaults to true). The wire format is pinned
to governance/components/action_settings.py by tests/contract/test_policy_json.py.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from govern.models import (
    REAPERS,
    ActionPolicy,
    BlastRadius,
    BudgetPolicy,
    FanOutPolicy,
    IdleGpuPolicy,
    IdleTpuPolicy,
    PolicyError,
    ProjectPolicy,
    ScopePolicy,
    SpendCapPolicy,
)
from govern.periods import Period, PeriodError, parse_period


def action_policy(text: str | bytes | None) -> ActionPolicy:
    """Parse and validate the policy JSON strictly.

    Raises:
        PolicyError: naming the offending key path, e.g. `MLGOV_POLICY.budgets.b1.stop_at`.
    """
    if text is None or not str(text if isinstance(text, str) else text.decode()).strip():
        raise PolicyError("MLGOV_POLICY: not set or empty")
    try:
        raw = json.loads(text)
    except ValueError as err:
        raise PolicyError(f"MLGOV_POLICY: not valid JSON ({err})") from None
    return _policy(raw)


_TOP_REQUIRED = ("exempt_label", "projects", "budgets")
_TOP_OPTIONAL = (
    "dry_run",
    "idle_gpu",
    "time_budget_seconds",
    "max_concurrency",
    "max_requests_per_second_per_project",
    "call_timeout_seconds",
    "idle_tpu",
    "undeploy_endpoints",
    "spend_caps",
    "scopes",
    "fan_out",
    "blast_radius",
)


def _obj(
    value: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PolicyError(f"{path}: must be an object, got {type(value).__name__}")
    obj: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    missing = [k for k in required if k not in obj]
    if missing:
        raise PolicyError(f"{path}: missing required key(s) {', '.join(missing)}")
    unknown = sorted(k for k in obj if k not in required and k not in optional)
    if unknown:
        raise PolicyError(f"{path}: unknown key(s) {', '.join(unknown)}")
    return obj


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise PolicyError(f"{path}: must be true or false, got {value!r}")
    return value


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise PolicyError(f"{path}: must be a non-empty string, got {value!r}")
    return value


def _num(value: Any, path: str, *, minimum: float = 0.0, integer: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= minimum:
        raise PolicyError(f"{path}: must be a number > {minimum:g}, got {value!r}")
    if integer and int(value) != value:
        raise PolicyError(f"{path}: must be a whole number, got {value!r}")
    return float(value)


def _str_list(value: Any, path: str, *, empty_ok: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or not (value or empty_ok):
        raise PolicyError(f"{path}: must be a non-empty list of strings")
    items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    return tuple(_str(v, f"{path}[{i}]") for i, v in enumerate(items))


def _opt_num(obj: dict[str, Any], path: str, key: str, default: float) -> float:
    return _num(obj.get(key, default), f"{path}.{key}")


def _opt_whole(obj: dict[str, Any], path: str, key: str, default: int) -> int:
    return int(_num(obj.get(key, default), f"{path}.{key}", integer=True))


def _keyed(value: Any, path: str, keyed_by: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PolicyError(f"{path}: must be an object keyed by {keyed_by}")
    return value  # pyright: ignore[reportUnknownVariableType]


def _projects(raw: Any) -> dict[str, ProjectPolicy]:
    projects: dict[str, ProjectPolicy] = {}
    for pid, praw in _keyed(raw, "MLGOV_POLICY.projects", "project id").items():
        path = f"MLGOV_POLICY.projects.{pid}"
        p = _obj(praw, path, ("environment", "zones", "allow_billing_disable"))
        projects[str(pid)] = ProjectPolicy(
            environment=_str(p["environment"], f"{path}.environment"),
            zones=_str_list(p["zones"], f"{path}.zones"),
            allow_billing_disable=_bool(
                p["allow_billing_disable"], f"{path}.allow_billing_disable"
            ),
        )
    return projects


def _budgets(
    raw: Any, projects: dict[str, ProjectPolicy], scopes: dict[str, ScopePolicy]
) -> dict[str, BudgetPolicy]:
    budgets: dict[str, BudgetPolicy] = {}
    for bid, braw in _keyed(raw, "MLGOV_POLICY.budgets", "budgetId").items():
        path = f"MLGOV_POLICY.budgets.{bid}"
        b = _obj(braw, path, ("projects", "stop_at", "disable_billing_at"), _BUDGET_OPTIONAL)
        bscopes = _budget_scopes(b, path, scopes)
        # A budget over scopes may list no project of its own; it must cover something.
        if b["projects"] == [] and not bscopes:
            raise PolicyError(
                f"{path}.projects: empty and the budget names no scopes: it covers nothing"
            )
        bprojects = _str_list(b["projects"], f"{path}.projects", empty_ok=bool(bscopes))
        for i, pid in enumerate(bprojects):
            if pid not in projects:
                raise PolicyError(f"{path}.projects[{i}]: {pid!r} is not in MLGOV_POLICY.projects")
        stop_at = _num(b["stop_at"], f"{path}.stop_at")
        disable_raw = b["disable_billing_at"]
        disable = None if disable_raw is None else _num(disable_raw, f"{path}.disable_billing_at")
        if disable is not None and disable < stop_at:
            raise PolicyError(
                f"{path}.disable_billing_at: {disable:g} is below stop_at {stop_at:g}; unlinking "
                "billing must come after stopping workloads"
            )
        budgets[str(bid)] = BudgetPolicy(
            bprojects,
            stop_at,
            disable,
            billing_account=_pattern(
                b, path, "billing_account", _ACCOUNT, "like 01D4EE-079462-DFD6EC"
            ),
            amount=_num(b["amount"], f"{path}.amount") if "amount" in b else None,
            currency=_pattern(b, path, "currency", _CURRENCY, "an ISO 4217 code like USD"),
            period=_period(b, path),
            scopes=bscopes,
        )
    return budgets


def _spend_caps(
    raw: Any, projects: dict[str, ProjectPolicy], budgets: dict[str, BudgetPolicy]
) -> dict[str, SpendCapPolicy]:
    caps: dict[str, SpendCapPolicy] = {}
    keys = ("project", "service_key", "service", "cap", "amount")
    for bid, craw in _keyed(raw, "MLGOV_POLICY.spend_caps", "budgetId").items():
        path = f"MLGOV_POLICY.spend_caps.{bid}"
        c = _obj(craw, path, keys)
        project = _str(c["project"], f"{path}.project")
        if project not in projects:
            raise PolicyError(f"{path}.project: {project!r} is not in MLGOV_POLICY.projects")
        if bid in budgets:
            raise PolicyError(f"{path}: also in MLGOV_POLICY.budgets; an alert is one or the other")
        cap = _str(c["cap"], f"{path}.cap")
        if not cap.startswith("billingAccounts/") or "/budgets/" not in cap:
            raise PolicyError(f"{path}.cap: {cap!r} is not billingAccounts/<id>/budgets/<id>")
        amount = c["amount"]
        number = isinstance(amount, int | float) and not isinstance(amount, bool)
        if not number or not math.isfinite(amount) or amount < 0:
            raise PolicyError(f"{path}.amount: must be a number >= 0, got {amount!r}")
        caps[str(bid)] = SpendCapPolicy(
            project=project,
            service_key=_str(c["service_key"], f"{path}.service_key"),
            service=_str(c["service"], f"{path}.service"),
            cap=cap,
            amount=float(amount),
        )
    return caps


# What the stack's budget is (docs/architecture.md#mlgov-policy): absent keys are not checked.
_BUDGET_OPTIONAL = ("billing_account", "amount", "currency", "period", "scopes")
_ACCOUNT = re.compile(r"[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}")
_CURRENCY = re.compile(r"[A-Z]{3}")


def _pattern(
    obj: dict[str, Any], path: str, key: str, pattern: re.Pattern[str], like: str
) -> str | None:
    if key not in obj:
        return None
    value = obj[key]
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise PolicyError(f"{path}.{key}: must be {like}, got {value!r}")
    return value


def _period(obj: dict[str, Any], path: str) -> Period | None:
    if "period" not in obj:
        return None
    value = obj["period"]
    if not isinstance(value, str):
        raise PolicyError(f"{path}.period: must be a string, got {value!r}")
    try:
        return parse_period(value)
    except PeriodError as err:
        raise PolicyError(f"{path}.period: {err}") from None


def _idle(
    raw: Any, path: str, limit_key: str, defaults: IdleGpuPolicy | IdleTpuPolicy
) -> tuple[float, int, tuple[str, ...]]:
    """(limit %, window minutes, workloads) of an idle-accelerator section, defaults filled."""
    obj = _obj(raw, path, (), (limit_key, "window_minutes", "workloads"))
    return (
        _opt_num(obj, path, limit_key, getattr(defaults, limit_key)),
        _opt_whole(obj, path, "window_minutes", defaults.window_minutes),
        _str_list(obj.get("workloads", list(defaults.workloads)), f"{path}.workloads"),
    )


def _idle_gpu(raw: Any) -> IdleGpuPolicy:
    return IdleGpuPolicy(
        *_idle(raw, "MLGOV_POLICY.idle_gpu", "max_utilization_percent", IdleGpuPolicy())
    )


def _idle_tpu(raw: Any) -> IdleTpuPolicy:
    return IdleTpuPolicy(
        *_idle(raw, "MLGOV_POLICY.idle_tpu", "max_duty_cycle_percent", IdleTpuPolicy())
    )


# -- blast_radius (the reapers' limits, govern/blast.py) -----------------------------------------
_BLAST_KEYS = (
    "max_stops_per_run",
    "max_stop_percent",
    "max_error_rate",
    "canary",
    "acting_reapers",
)
# A canary is a project or a folder (resolved like a scope); project ids: 6-30 characters,
# lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen.
_CANARY = re.compile(r"projects/[a-z][a-z0-9-]{4,28}[a-z0-9]|folders/[0-9]+")


def _list(value: Any, path: str) -> list[Any]:
    """A JSON list, possibly empty (an empty canary or acting_reapers list means something)."""
    if not isinstance(value, list):
        raise PolicyError(f"{path}: must be a list, got {type(value).__name__}")
    return value  # pyright: ignore[reportUnknownVariableType]


def _blast_radius(raw: Any) -> BlastRadius:
    """The reapers' limits; every key optional, defaults as in BlastRadius."""
    path = "MLGOV_POLICY.blast_radius"
    obj = _obj(raw, path, (), _BLAST_KEYS)
    defaults = BlastRadius()
    stops = obj.get("max_stops_per_run", defaults.max_stops_per_run)
    max_stops = int(_num(stops, f"{path}.max_stops_per_run", integer=True))
    percent = obj.get("max_stop_percent")
    if percent is not None:
        percent = _num(percent, f"{path}.max_stop_percent")
        if percent > 100:
            raise PolicyError(f"{path}.max_stop_percent: must be at most 100, got {percent:g}")
    rate = obj.get("max_error_rate", defaults.max_error_rate)
    ok = isinstance(rate, int | float) and not isinstance(rate, bool) and math.isfinite(rate)
    if not ok or not 0 <= rate <= 1:
        raise PolicyError(f"{path}.max_error_rate: must be a number from 0 to 1, got {rate!r}")
    canary: list[str] = []
    for i, entry in enumerate(_list(obj.get("canary", []), f"{path}.canary")):
        if not isinstance(entry, str) or not _CANARY.fullmatch(entry):
            raise PolicyError(
                f"{path}.canary[{i}]: must be projects/<project id> or folders/<number>, "
                f"got {entry!r}"
            )
        canary.append(entry)
    acting: tuple[str, ...] | None = None
    if "acting_reapers" in obj:
        names: list[str] = []
        for i, name in enumerate(_list(obj["acting_reapers"], f"{path}.acting_reapers")):
            if name not in REAPERS:
                raise PolicyError(
                    f"{path}.acting_reapers[{i}]: {name!r} is not a reaper; known: "
                    f"{', '.join(REAPERS)}"
                )
            names.append(name)
        acting = tuple(names)
    return BlastRadius(
        max_stops_per_run=max_stops,
        max_stop_percent=percent,
        max_error_rate=float(rate),
        canary=tuple(dict.fromkeys(canary)),
        acting_reapers=acting,
    )


def _policy(raw: Any) -> ActionPolicy:
    root = "MLGOV_POLICY"
    top = _obj(raw, root, _TOP_REQUIRED, _TOP_OPTIONAL)
    exempt = _obj(top["exempt_label"], f"{root}.exempt_label", ("key", "value"))
    projects = _projects(top["projects"])
    scopes = _scopes(top.get("scopes", {}))
    budgets = _budgets(top["budgets"], projects, scopes)
    gpu = _idle_gpu(top["idle_gpu"]) if "idle_gpu" in top else IdleGpuPolicy()
    defaults = ActionPolicy(exempt_label=("", ""), projects={}, budgets={})
    return ActionPolicy(
        dry_run=_bool(top.get("dry_run", True), f"{root}.dry_run"),  # simulate unless told
        exempt_label=(
            _str(exempt["key"], f"{root}.exempt_label.key"),
            _str(exempt["value"], f"{root}.exempt_label.value"),
        ),
        projects=projects,
        budgets=budgets,
        idle_gpu=gpu,
        time_budget_seconds=_opt_num(
            top, root, "time_budget_seconds", defaults.time_budget_seconds
        ),
        max_concurrency=_opt_whole(top, root, "max_concurrency", defaults.max_concurrency),
        max_requests_per_second_per_project=_opt_num(
            top,
            root,
            "max_requests_per_second_per_project",
            defaults.max_requests_per_second_per_project,
        ),
        call_timeout_seconds=_opt_num(
            top, root, "call_timeout_seconds", defaults.call_timeout_seconds
        ),
        idle_tpu=_idle_tpu(top["idle_tpu"]) if "idle_tpu" in top else IdleTpuPolicy(),
        undeploy_endpoints=_bool(
            top.get("undeploy_endpoints", False), f"{root}.undeploy_endpoints"
        ),
        spend_caps=_spend_caps(top.get("spend_caps", {}), projects, budgets),
        scopes=scopes,
        fan_out=_fan_out(top["fan_out"]) if "fan_out" in top else FanOutPolicy(),
        blast_radius=_blast_radius(top["blast_radius"]) if "blast_radius" in top else BlastRadius(),
    )


# -- organization scale (issue 29): scopes, a budget's scopes, fan_out --------------------------
# A scope key is a folder or an organization by number (Cloud Asset Inventory's `scope`).
_SCOPE_KEY = re.compile(r"(folders|organizations)/[0-9]+")
_REGION = re.compile(r"[a-z]+-[a-z]+[0-9]+")
# GCP label keys: lowercase letters, digits, `_` and `-`, starting with a letter; values may be
# empty (https://cloud.google.com/resource-manager/docs/labels-overview#requirements).
_LABEL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
_LABEL_VALUE = re.compile(r"[a-z0-9_-]{0,63}")


def _scopes(raw: Any) -> dict[str, ScopePolicy]:
    scopes: dict[str, ScopePolicy] = {}
    for key, sraw in _keyed(raw, "MLGOV_POLICY.scopes", "folders/<n> or organizations/<n>").items():
        path = f"MLGOV_POLICY.scopes.{key}"
        if not _SCOPE_KEY.fullmatch(str(key)):
            raise PolicyError(f"{path}: not folders/<number> or organizations/<number>")
        s = _obj(sraw, path, ("environment", "allow_billing_disable"), ("labels", "vertex_regions"))
        regions = (
            _str_list(s["vertex_regions"], f"{path}.vertex_regions")
            if "vertex_regions" in s
            else ()
        )
        for i, region in enumerate(regions):
            if not _REGION.fullmatch(region):
                raise PolicyError(f"{path}.vertex_regions[{i}]: {region!r} is not a region")
        scopes[str(key)] = ScopePolicy(
            environment=_str(s["environment"], f"{path}.environment"),
            allow_billing_disable=_bool(
                s["allow_billing_disable"], f"{path}.allow_billing_disable"
            ),
            labels=_labels(s.get("labels", {}), f"{path}.labels"),
            vertex_regions=regions,
        )
    return scopes


def _labels(raw: Any, path: str) -> dict[str, str]:
    labels: dict[str, str] = {}
    for key, value in _keyed(raw, path, "label key").items():
        if not _LABEL_KEY.fullmatch(str(key)):
            raise PolicyError(f"{path}.{key}: not a GCP label key")
        if not isinstance(value, str) or not _LABEL_VALUE.fullmatch(value):
            raise PolicyError(f"{path}.{key}: must be a GCP label value (a string), got {value!r}")
        labels[str(key)] = value
    return labels


def _budget_scopes(b: dict[str, Any], path: str, scopes: dict[str, ScopePolicy]) -> tuple[str, ...]:
    if "scopes" not in b:
        return ()
    named = _str_list(b["scopes"], f"{path}.scopes")
    for i, key in enumerate(named):
        if key not in scopes:
            raise PolicyError(f"{path}.scopes[{i}]: {key!r} is not in MLGOV_POLICY.scopes")
    return named


# The subscription's dead-letter limit: Pub/Sub accepts 5 to 100 delivery attempts.
_MIN_ATTEMPTS, _MAX_ATTEMPTS = 5, 100


def _fan_out(raw: Any) -> FanOutPolicy:
    path = "MLGOV_POLICY.fan_out"
    f = _obj(raw, path, (), ("max_delivery_attempts", "worker_instances"))
    defaults = FanOutPolicy()
    attempts = _opt_whole(f, path, "max_delivery_attempts", defaults.max_delivery_attempts)
    if not _MIN_ATTEMPTS <= attempts <= _MAX_ATTEMPTS:
        raise PolicyError(
            f"{path}.max_delivery_attempts: must be {_MIN_ATTEMPTS} to {_MAX_ATTEMPTS} (Pub/Sub's "
            f"dead-letter range), got {attempts}"
        )
    return FanOutPolicy(
        max_delivery_attempts=attempts,
        worker_instances=_opt_whole(f, path, "worker_instances", defaults.worker_instances),
    )
