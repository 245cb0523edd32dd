# pyright: basic
"""The billing export the demo's `mlgov spend` reads: a BigQuery emulator with a month of rows.

The rows are governance/fakecloud/export_rows.py's, the ones `spend`'s own tests check against:
the dev stack's billed SKUs (and a project no stack governs, on the same billing account), in the
standard and the detailed export tables, named and shaped as Google documents them. The
emulator is governance/fakecloud/bqemulator.py's (its own virtualenv, `make bqemulator`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from governance.fakecloud import export_rows as ex
from governance.fakecloud.bqemulator import Emulator, load_rows

DAYS = 30
DATASET = "billing_export"


@dataclass(frozen=True)
class Loaded:
    """Where the rows went and how many."""

    standard: str
    detailed: str
    rows: int
    net_cost: float  # the project's net cost in `spend`'s default window, summed from the rows


def table_ids(project: str) -> tuple[str, str]:
    """The standard and detailed export tables of the stacks' billing account, in `project`."""
    suffix = ex.ACCOUNT.replace("-", "_")
    return (
        f"{project}.{DATASET}.gcp_billing_export_v1_{suffix}",
        f"{project}.{DATASET}.gcp_billing_export_resource_v1_{suffix}",
    )


def load_month(emulator: Emulator, project: str, now: datetime) -> Loaded:
    """Load DAYS days of rows before `now` for the dev stack's project and one ungoverned one."""
    usages: Sequence[ex.Usage] = [*ex.stack_usages("dev"), *ex.stack_usages("other")]
    standard, detailed = table_ids(project)
    client = emulator.client(project)
    rows = list(ex.rows(usages, now, DAYS))
    count = load_rows(client, standard, ex.STANDARD_SCHEMA, rows)
    load_rows(client, detailed, ex.DETAILED_SCHEMA, ex.rows(usages, now, DAYS, with_resource=True))
    # `spend`'s default window: the DAYS whole UTC days before today.
    end = now.astimezone(UTC).date()
    start = end - timedelta(days=DAYS)
    net = sum(
        ex.net(r)
        for r in rows
        if r["project"]["id"] == project
        and start <= date.fromisoformat(r["usage_start_time"][:10]) < end
    )
    return Loaded(standard, detailed, count, round(net, 2))
