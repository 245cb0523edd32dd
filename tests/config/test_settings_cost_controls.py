"""Settings of artifact storage, BigQuery query quotas, logging and Vertex tracking (issue 15).

Each rejection is one exact line naming the key path and the fix; unset keys take the
environment's defaults, so `{}` is a complete section.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from governance.settings import SettingsError, settings_from_config
from governance.settings.artifacts import resolved_bucket, resolved_repository
from governance.settings.log_volume import resolved as logging_resolved
from governance.settings.query_quotas import resolved as quotas_resolved
from tests.conftest import stack_config

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"


def _config(stack: str = "dev") -> dict[str, Any]:
    return copy.deepcopy(stack_config(stack))


def _problems(mutate: Mutation, stack: str = "dev") -> list[str]:
    config = _config(stack)
    mutate(config["mlgov:settings"])
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def _bucket(**keys: Any) -> Mutation:
    return lambda s: s.update(artifacts={"bucket": keys})


def _repo(**keys: Any) -> Mutation:
    return lambda s: s.update(artifacts={"repository": keys})


CASES: list[tuple[str, Mutation, str, list[str]]] = [
    (
        "typo in an artifacts key",
        _bucket(delete_after_day=30),
        "dev",
        [f"{P}.artifacts.bucket.delete_after_day: unknown key; did you mean 'delete_after_days'?"],
    ),
    (
        "storage class not offered",
        _bucket(storage_class="ARCHIVE"),
        "dev",
        [
            f"{P}.artifacts.bucket.storage_class: Input should be 'STANDARD', 'NEARLINE' or "
            "'COLDLINE'"
        ],
    ),
    (
        "coldline before nearline",
        _bucket(nearline_after_days=60, coldline_after_days=30, delete_after_days=90),
        "dev",
        [
            f"{P}.artifacts.bucket.coldline_after_days: 30 is not after nearline_after_days (60); "
            "objects move to colder classes, then are deleted, in that order"
        ],
    ),
    (
        "deleted before the prod default moves it to coldline",
        _bucket(delete_after_days=60),
        "prod",
        [
            f"{P}.artifacts.bucket.delete_after_days: 60 is not after coldline_after_days (90); "
            "objects move to colder classes, then are deleted, in that order"
        ],
    ),
    (
        "nearline bucket with a nearline transition",
        _bucket(storage_class="NEARLINE", nearline_after_days=10, delete_after_days=90),
        "dev",
        [
            f"{P}.artifacts.bucket.nearline_after_days: objects already start in NEARLINE; "
            "remove nearline_after_days or use STANDARD"
        ],
    ),
    (
        "versioning without an end",
        _bucket(noncurrent_versions=2),
        "staging",
        [],  # staging's default noncurrent_delete_after_days fills it in: no problem
    ),
    (
        "abort after too long",
        _bucket(abort_incomplete_upload_days=90),
        "dev",
        [
            f"{P}.artifacts.bucket.abort_incomplete_upload_days: Input should be less than or "
            "equal to 30"
        ],
    ),
    (
        "dry run cleanup in prod",
        _repo(dry_run=True),
        "prod",
        [
            f"{P}.artifacts.repository.dry_run: a dry run never deletes an image; only dev may "
            "try cleanup in dry run (prod is not dev); remove the key"
        ],
    ),
    (
        "tagged images kept shorter than untagged",
        _repo(delete_untagged_after_days=30, delete_tagged_after_days=10),
        "dev",
        [
            f"{P}.artifacts.repository.delete_tagged_after_days: 10 is shorter than "
            "delete_untagged_after_days (30); tagged images are the ones people deploy, keep "
            "them at least as long"
        ],
    ),
    (
        "per-user cap above the project cap",
        lambda s: s.update(bigquery_quotas={"user_tib_per_day": 5}),
        "dev",
        [
            f"{P}.bigquery_quotas.user_tib_per_day: 5 TiB/day is above the project cap (1 TiB/day) "
            "and would never bind; lower it or raise project_tib_per_day"
        ],
    ),
    (
        "quota above BigQuery's default",
        lambda s: s.update(bigquery_quotas={"project_tib_per_day": 500}),
        "dev",
        [f"{P}.bigquery_quotas.project_tib_per_day: Input should be less than or equal to 200"],
    ),
    (
        "log retention above the environment maximum",
        lambda s: s.update(logging={"retention_days": 400}),
        "prod",
        [
            f"{P}.logging.retention_days: 400 is above the prod maximum of 365; logs kept past 30 "
            "days are billed per GiB-month (lower it or raise limits.max_log_retention_days)"
        ],
    ),
    (
        "unknown exclusion",
        lambda s: s.update(logging={"exclusions": ["gke-everything"]}),
        "dev",
        [
            f"{P}.logging.exclusions.0: Input should be 'gke-debug', 'gke-info', "
            "'dataflow-debug' or 'dataflow-info'"
        ],
    ),
    (
        "vertex typo",
        lambda s: s.update(vertex={"tensorbord": True}),
        "dev",
        [f"{P}.vertex.tensorbord: unknown key; did you mean 'tensorboard'?"],
    ),
]


@pytest.mark.parametrize(
    ("mutate", "stack", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rejection_lines(mutate: Mutation, stack: str, expected: list[str]) -> None:
    if not expected:
        config = _config(stack)
        mutate(config["mlgov:settings"])
        settings_from_config(config)
        return
    assert _problems(mutate, stack) == expected


def test_defaults_differ_per_environment() -> None:
    dev, staging, prod = (settings_from_config(_config(s)) for s in ("dev", "staging", "prod"))
    assert resolved_bucket(dev).delete_after_days == 30
    assert resolved_bucket(dev).nearline_after_days is None
    assert (resolved_bucket(prod).nearline_after_days, resolved_bucket(prod).coldline_after_days,
            resolved_bucket(prod).delete_after_days) == (30, 90, 365)  # fmt: skip
    assert resolved_repository(dev).keep_tagged_versions == 5
    assert resolved_repository(prod).keep_tagged_versions == 20
    assert not resolved_repository(staging).dry_run and not resolved_repository(prod).dry_run
    assert quotas_resolved(dev) == (1.0, 0.25)
    assert quotas_resolved(prod) == (10.0, 2.0)
    assert logging_resolved(dev) == (30, ("gke-info", "dataflow-info"))
    assert logging_resolved(prod) == (90, ("gke-debug", "dataflow-debug"))
    assert prod.policy_config()["max_log_retention_days"] == 365
    assert dev.policy_config()["vertex_serving_gpu_types"] == []


def test_explicit_keys_win_over_environment_defaults() -> None:
    config = _config("prod")
    config["mlgov:settings"]["artifacts"] = {"bucket": {"delete_after_days": 730}}
    config["mlgov:settings"]["logging"] = {"retention_days": 30, "exclusions": []}
    s = settings_from_config(config)
    assert resolved_bucket(s).delete_after_days == 730
    assert resolved_bucket(s).coldline_after_days == 90  # still the prod default
    assert logging_resolved(s) == (30, ())


def test_sections_are_optional() -> None:
    config = _config("dev")
    for key in ("artifacts", "bigquery_quotas", "logging", "vertex"):
        config["mlgov:settings"].pop(key, None)
    s = settings_from_config(config)
    assert (s.artifacts, s.bigquery_quotas, s.logging, s.vertex) == (None, None, None, None)
