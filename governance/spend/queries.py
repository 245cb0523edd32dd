"""The three queries `spend` runs, as reusable SQL files plus typed parameters.

The SQL lives in `sql/*.sql` so a user can read it, paste it into the BigQuery console and set
the parameters by hand. Every value is a query parameter; the only text spliced in is the table
name (`{table}`), validated and quoted by tables.py. Every query filters on `_PARTITIONTIME`
(window.py says how wide and why): the export grows every day, and the partition filter is what
keeps a 30-day report from reading the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Literal

from governance.spend.tables import TableId
from governance.spend.window import Window

QueryName = Literal["freshness", "attribution", "resources", "daily"]  # daily: report/daily.py
ParamType = Literal["STRING", "TIMESTAMP"]

# Google's labels on GKE node VMs, which carry a node pool's cost in the detailed export
# (https://cloud.google.com/kubernetes-engine/docs/how-to/creating-managing-labels#automatically-applied-labels).
GKE_CLUSTER_LABEL = "goog-k8s-cluster-name"
GKE_NODE_POOL_LABEL = "goog-k8s-node-pool-name"

# The governance labels `spend` attributes by, in output order (docs/architecture.md#spend-report);
# a test pins them to mlgov_policies.vocabulary.REQUIRED_LABELS.
ATTRIBUTION_LABELS: tuple[str, ...] = ("team", "cost-center", "workload", "env")


@dataclass(frozen=True)
class Param:
    """One named query parameter: a scalar, or an ARRAY of `type` when `value` is a tuple."""

    name: str
    type: ParamType
    value: str | datetime | tuple[str, ...]


@dataclass(frozen=True)
class Query:
    """A query ready to run: SQL text with the table spliced in, and its parameters."""

    name: QueryName
    table: TableId
    sql: str
    params: tuple[Param, ...]


@cache
def template(name: QueryName) -> str:
    """The SQL text of `sql/<name>.sql`, with its `{table}` placeholder."""
    return resources.files("governance.spend").joinpath("sql", f"{name}.sql").read_text("utf-8")


def _query(name: QueryName, table: TableId, params: tuple[Param, ...]) -> Query:
    # Whole-line comments document the file for people; they are not sent (the emulator counts
    # `@name`s in comments as parameters, and BigQuery does not need them).
    lines = [line for line in template(name).splitlines() if not line.lstrip().startswith("--")]
    splices = [i for i, line in enumerate(lines) if "{table}" in line]
    if len(splices) != 1:  # guard the one splice: a template edit must keep it single
        raise ValueError(f"sql/{name}.sql must name {{table}} exactly once outside comments")
    lines[splices[0]] = lines[splices[0]].replace("{table}", table.sql)
    return Query(name, table, "\n".join(lines) + "\n", params)


def _window_params(window: Window, projects: tuple[str, ...]) -> tuple[Param, ...]:
    return (
        Param("partition_start", "TIMESTAMP", window.partition_start),
        Param("partition_end", "TIMESTAMP", window.partition_end),
        Param("start", "TIMESTAMP", window.start_time),
        Param("end", "TIMESTAMP", window.end_time),
        Param("projects", "STRING", projects),
    )


def freshness(table: TableId, since: datetime, until: datetime) -> Query:
    """Newest export time and row count per project in the partitions `[since, until)`."""
    params = (
        Param("partition_start", "TIMESTAMP", since),
        Param("partition_end", "TIMESTAMP", until),
    )
    return _query("freshness", table, params)


def attribution(table: TableId, window: Window, projects: tuple[str, ...]) -> Query:
    """Cost and credits in the window by project, service, SKU and governance label."""
    team, cost_center, workload, env = ATTRIBUTION_LABELS
    labels = (
        Param("team_key", "STRING", team),
        Param("cost_center_key", "STRING", cost_center),
        Param("workload_key", "STRING", workload),
        Param("env_key", "STRING", env),
    )
    return _query("attribution", table, _window_params(window, projects) + labels)


def resources_cost(table: TableId, window: Window, projects: tuple[str, ...]) -> Query:
    """Net cost in the window per billed resource (detailed export)."""
    labels = (
        Param("cluster_key", "STRING", GKE_CLUSTER_LABEL),
        Param("node_pool_key", "STRING", GKE_NODE_POOL_LABEL),
    )
    return _query("resources", table, _window_params(window, projects) + labels)
