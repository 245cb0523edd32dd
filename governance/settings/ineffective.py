"""Settings that are valid but silently do nothing: reported as warnings, never as errors.

A warning is a (key path, message) pair like a problem (base.Problem), but the stack still
deploys. parse.py turns them into `SettingsWarning` lines; `mlgov plan` prints them on stderr
and records them in the plan document, `pulumi up` shows them through `pulumi.log.warn`. The
policy pack has advisory rules for the same effects in any plan (rules/bigquery.py,
rules/labels.py). Errors (what must be fixed) are the section modules' `problems`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from governance.settings.base import Problem
from governance.settings.budget import threshold_warnings
from mlgov_policies.compat import sources

if TYPE_CHECKING:
    from governance.settings.root import Settings

_EXPIRATIONS = sources.short(sources.BQ_DEFAULT_EXPIRATIONS)


def dataset_warnings(s: Settings) -> Iterator[Problem]:
    """A default table expiration BigQuery ignores: every table is partitioned with a default."""
    for name, ds in s.datasets.items():
        # mlgov's tables are always time-partitioned (TableSettings has no unpartitioned form).
        if ds.table_expiration_days is None or ds.partition_expiration_days is None:
            continue
        if not ds.tables:
            continue
        yield (
            f"datasets.{name}.table_expiration_days",
            f"does nothing for this dataset's tables {sorted(ds.tables)}: they are partitioned and "
            "partition_expiration_days is set, so BigQuery gives them no table expiration (only "
            "unpartitioned tables created outside this stack would get one); remove it and let "
            f"partition_expiration_days expire the data (source: {_EXPIRATIONS})",
        )


def _expiring(s: Settings) -> Iterator[tuple[str, bool]]:
    """(key path, exempt) of every workload with an `expires_on` date."""
    for section, entries in (
        ("notebooks", s.notebooks),
        ("tpu_vms", s.tpu_vms),
        ("gpu_vms", s.gpu_vms),
    ):
        for name, entry in entries.items():
            if entry.expires_on is not None:
                yield f"{section}.{name}.expires_on", entry.exempt


def expiry_warnings(s: Settings) -> Iterator[Problem]:
    """Expiry dates nothing acts on: on exempt workloads, or with the automation switched off."""
    for path, exempt in _expiring(s):
        if not s.automation.enabled:
            yield (
                path,
                "nothing stops it on that date: automation.enabled is false, so the reap_expired "
                "function is not deployed; enable automation or remove expires_on",
            )
        elif exempt:
            yield (
                path,
                "nothing stops it on that date: exempt: true tells the automation never to touch "
                "it (mlgov-exempt wins over mlgov-expires-on); remove one of the two",
            )


def automation_warnings(s: Settings) -> Iterator[Problem]:
    """Budget actions without the function that takes them."""
    if s.automation.enabled:
        return
    given = s.budget.model_fields_set
    for key in ("stop_at", "disable_billing_at"):
        if key in given and getattr(s.budget, key) is not None:
            yield (
                f"budget.{key}",
                "nothing acts on it: automation.enabled is false, so no function listens to the "
                "budget's alerts (the budget only notifies); enable automation or remove it",
            )


def scale_warnings(s: Settings) -> Iterator[Problem]:
    """Organization-scale settings that nothing deploys or reads."""
    a = s.automation
    given = a.model_fields_set
    if not a.enabled:
        for key in ("fan_out", "scopes", "blast_radius"):
            if key in given:
                yield (
                    f"automation.{key}",
                    "does nothing: automation.enabled is false, so no function is deployed; "
                    "enable automation or remove it",
                )
    elif not a.fan_out and "max_delivery_attempts" in given:
        yield (
            "automation.max_delivery_attempts",
            "does nothing without automation.fan_out: there is no work subscription to retry; "
            "remove it or turn fan-out on",
        )
    if a.organization is not None and not a.scopes:
        yield (
            "automation.organization",
            "does nothing without automation.scopes: no custom role is created there; remove it",
        )


def pool_warnings(s: Settings) -> Iterator[Problem]:
    """Training-pool keys the pool's kind does not use."""
    for name, pool in s.training_pools.items():
        path = f"training_pools.{name}"
        given = pool.model_fields_set
        if pool.kind == "tpu":
            for key in ("accelerator", "accelerator_count"):
                if key in given:
                    yield (
                        f"{path}.{key}",
                        "ignored for a tpu pool: the TPU comes with the machine type "
                        f"({pool.machine_type}); remove it",
                    )
        elif pool.tpu_topology is not None:
            yield (
                f"{path}.tpu_topology",
                "ignored for a gpu pool: only tpu pools have a TPU topology; remove it",
            )


# The warning checks, in the order their warnings are reported.
def budget_warnings(s: Settings) -> Iterator[Problem]:
    """Stop levels no budget threshold marks (budget.py says why that matters)."""
    yield from threshold_warnings(s.budget)


WARNINGS: tuple[Callable[[Settings], Iterator[Problem]], ...] = (
    expiry_warnings,
    pool_warnings,
    dataset_warnings,
    automation_warnings,
    scale_warnings,
    budget_warnings,
)


def warnings(s: Settings) -> Iterator[Problem]:
    """(key path relative to `mlgov:settings`, message) for each setting that does nothing."""
    for check in WARNINGS:
        yield from check(s)
