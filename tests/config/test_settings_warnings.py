"""Settings that are valid but do nothing: one exact warning each, and the stack still parses.

`settings_warnings` (parse.py over ineffective.py) lists them; `read_settings` shows them to
`pulumi up` through `pulumi.log.warn`. tests/cli/test_plan_cli.py covers how `mlgov plan`
prints and records them.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

import pytest

from governance.review.offline import ENGINE_LOG, run_under_mocks
from governance.settings import SettingsWarning, read_settings, settings_from_config
from governance.settings import settings_warnings as warnings_of
from tests.conftest import STACKS, stack_config

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"
EXPIRATIONS = (
    "BigQuery API Dataset.defaultPartitionExpirationMs (discovery document bigquery.v2) "
    "https://cloud.google.com/bigquery/docs/reference/rest/v2/datasets"
)


def warnings(stack: str, mutate: Mutation) -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config["mlgov:settings"])
    return [str(w) for w in warnings_of(settings_from_config(config))]


@pytest.mark.parametrize("stack", STACKS)
def test_shipped_stacks_have_no_warnings(stack: str) -> None:
    assert warnings_of(settings_from_config(stack_config(stack))) == []


CASES: list[tuple[str, str, Mutation, list[str]]] = [
    (
        "table expiration on a dataset whose tables are all partitioned",
        "staging",
        lambda s: s["datasets"]["features"].update(table_expiration_days=60),
        [
            f"{P}.datasets.features.table_expiration_days: does nothing for this dataset's tables "
            "['events', 'labels']: they are partitioned and partition_expiration_days is set, so "
            "BigQuery gives them no table expiration (only unpartitioned tables created outside "
            "this stack would get one); remove it and let partition_expiration_days expire the "
            f"data (source: {EXPIRATIONS})"
        ],
    ),
    (
        "expiry date on an exempt notebook",
        "dev",
        lambda s: s["notebooks"]["bob"].update(exempt=True),
        [
            f"{P}.notebooks.bob.expires_on: nothing stops it on that date: exempt: true tells the "
            "automation never to touch it (mlgov-exempt wins over mlgov-expires-on); remove one "
            "of the two"
        ],
    ),
    (
        "expiry date with the automation switched off",
        "dev",
        lambda s: s["automation"].update(enabled=False),
        [
            f"{P}.notebooks.bob.expires_on: nothing stops it on that date: automation.enabled is "
            "false, so the reap_expired function is not deployed; enable automation or remove "
            "expires_on",
            f"{P}.budget.stop_at: nothing acts on it: automation.enabled is false, so no function "
            "listens to the budget's alerts (the budget only notifies); enable automation or "
            "remove it",
            f"{P}.budget.disable_billing_at: nothing acts on it: automation.enabled is false, so "
            "no function listens to the budget's alerts (the budget only notifies); enable "
            "automation or remove it",
        ],
    ),
    (
        "accelerator on a tpu pool",
        "prod",
        lambda s: s["training_pools"]["tpu-v5e"].update(accelerator="nvidia-l4"),
        [
            f"{P}.training_pools.tpu-v5e.accelerator: ignored for a tpu pool: the TPU comes with "
            "the machine type (ct5lp-hightpu-4t); remove it"
        ],
    ),
    (
        "tpu topology on a gpu pool",
        "prod",
        lambda s: s["training_pools"]["l4-spot"].update(tpu_topology="2x2"),
        [
            f"{P}.training_pools.l4-spot.tpu_topology: ignored for a gpu pool: only tpu pools "
            "have a TPU topology; remove it"
        ],
    ),
]


@pytest.mark.parametrize(
    ("stack", "mutate", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_warning_lines(stack: str, mutate: Mutation, expected: list[str]) -> None:
    assert warnings(stack, mutate) == expected


@pytest.mark.parametrize(
    ("stack", "mutate"),
    [
        # A dataset without tables: the default table expiration is all that expires their data.
        ("dev", lambda s: s["datasets"]["features"].update(table_expiration_days=30, tables={})),
        ("dev", lambda s: s["datasets"]["features"].update(
            table_expiration_days=30, partition_expiration_days=None
        )),
        # stop_at defaults to 1.0: a default the user never wrote is not a warning.
        ("staging", lambda s: (s["automation"].update(enabled=False), s["budget"].pop("stop_at"))),
        ("prod", lambda s: s["training_pools"]["tpu-v5e"].update(tpu_topology="2x4")),
    ],
    ids=["dataset-without-tables", "no-partition-expiration", "default-stop-at", "tpu-topology"],
)  # fmt: skip
def test_settings_that_take_effect_get_no_warning(stack: str, mutate: Mutation) -> None:
    assert warnings(stack, mutate) == []


def test_a_warning_has_the_key_and_the_message() -> None:
    config = copy.deepcopy(stack_config("dev"))
    config["mlgov:settings"]["notebooks"]["bob"]["exempt"] = True
    [warning] = warnings_of(settings_from_config(config))
    assert isinstance(warning, SettingsWarning)
    assert warning.key == f"{P}.notebooks.bob.expires_on"
    assert warning.as_dict() == {"key": warning.key, "message": warning.message}
    assert str(warning) == f"{warning.key}: {warning.message}"


def test_read_settings_shows_warnings_to_pulumi_up() -> None:
    config = copy.deepcopy(stack_config("dev"))
    config["mlgov:settings"]["notebooks"]["bob"]["exempt"] = True
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    ENGINE_LOG.addHandler(handler)
    try:
        run_under_mocks(read_settings, config, "dev")
    finally:
        ENGINE_LOG.removeHandler(handler)
    assert [(r.levelno, r.getMessage()) for r in records] == [
        (logging.WARNING, str(w)) for w in warnings_of(settings_from_config(config))
    ]
    assert len(records) == 1
