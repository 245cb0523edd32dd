"""Physical GCP names, from one place.

Every GCP resource name mlgov creates comes from here, so GCP's length and character rules live
in one module. Names are deterministic (no random suffixes): a name that is too long is cut and
given a short hash of the full name, so two long names never collide and a rerun names the same.
"""

from __future__ import annotations

import hashlib
import re

_INVALID = re.compile(r"[^a-z0-9-]+")
_DASHES = re.compile(r"-{2,}")


def _fit(name: str, max_length: int, separator: str) -> str:
    if len(name) <= max_length:
        return name
    digest = hashlib.sha1(name.encode(), usedforsecurity=False).hexdigest()[:6]
    head = name[: max_length - len(digest) - 1].rstrip(separator)
    return f"{head}{separator}{digest}"


def resource_name(prefix: str, *parts: str, max_length: int = 63) -> str:
    """A lowercase, hyphenated GCP name `<prefix>-<parts>` of at most `max_length` characters.

    Fits the common rule for Compute, GKE, Workbench, Pub/Sub, Cloud SQL and Scheduler names:
    starts with a letter, only `[a-z0-9-]`, does not end with a hyphen.
    """
    raw = "-".join(p for p in (prefix, *parts) if p).lower()
    name = _DASHES.sub("-", _INVALID.sub("-", raw)).strip("-")
    if not name or not name[0].isalpha():
        name = f"m-{name}"
    return _fit(name, max_length, "-").rstrip("-")


def account_id(prefix: str, role: str) -> str:
    """A service account id (6-30 characters, `[a-z][a-z0-9-]*[a-z0-9]`)."""
    name = resource_name(prefix, role, max_length=30)
    return name if len(name) >= 6 else f"{name}-sa".ljust(6, "0")


def dataset_id(name: str) -> str:
    """A BigQuery dataset or table id: letters, digits and underscores (hyphens are not allowed)."""
    cleaned = re.sub(r"[^a-zA-Z0-9_]+", "_", name).strip("_")
    return _fit(cleaned or "dataset", 1024, "_")


def role_id(prefix: str, role: str) -> str:
    """A custom IAM role id: `[a-zA-Z0-9_.]`, 3-64 characters."""
    return _fit(re.sub(r"[^a-zA-Z0-9_]+", "_", f"{prefix}_{role}").strip("_"), 64, "_")


def cluster_name(prefix: str) -> str:
    """The GKE cluster MlCluster creates (also what `mlgov cap` looks for)."""
    return resource_name(prefix, "ml")


def spend_cap_name(prefix: str, service_key: str) -> str:
    """The displayName of a stack's spend cap on one service (`mlgov cap` finds caps by it).

    A budget's displayName is at most 60 characters (Budget API v1).
    """
    return resource_name(prefix, "cap", service_key, max_length=60)


def spend_cap_alerts_name(prefix: str, service_key: str) -> str:
    """The displayName of the alerts-only budget paired with a spend cap."""
    return resource_name(prefix, "cap", service_key, "alerts", max_length=60)
