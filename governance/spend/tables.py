"""The billing export tables of one billing account, as strictly checked BigQuery identifiers.

Google names the tables after the billing account, its dashes turned into underscores:
`gcp_billing_export_v1_<ACCOUNT>` (standard usage cost) and
`gcp_billing_export_resource_v1_<ACCOUNT>` (detailed usage cost, which adds `resource.name`
and `resource.global_name`) (https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables).
Table names cannot be query parameters, so they are the one thing spliced into SQL text: every
part is validated against BigQuery's naming rules first and the whole name is quoted in
backticks, so no value from a stack file can change a query's meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from governance.spend.errors import SpendError

# Project ids: 6-30 lowercase letters, digits, hyphens (a legacy domain prefix `example.com:`
# is allowed by BigQuery). Dataset ids: letters, digits, underscores, at most 1024.
# Billing account ids: three groups of six hex digits.
_PROJECT = re.compile(r"(?:[a-z][a-z0-9.-]{0,61}[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]")
_DATASET = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,1023}")
_ACCOUNT = re.compile(r"[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}")
_TABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,1023}")


def check_project(project: str, what: str = "project") -> str:
    """The project id, or SpendError naming `what` when it is not a valid id."""
    if not _PROJECT.fullmatch(project):
        raise SpendError(f"{what}: {project!r} is not a Google Cloud project id")
    return project


@dataclass(frozen=True)
class TableId:
    """`project.dataset.table`, each part valid."""

    project: str
    dataset: str
    table: str

    def __post_init__(self) -> None:
        check_project(self.project, "export project")
        if not _DATASET.fullmatch(self.dataset):
            raise SpendError(f"export dataset: {self.dataset!r} is not a BigQuery dataset id")
        if not _TABLE.fullmatch(self.table):
            raise SpendError(f"export table: {self.table!r} is not a BigQuery table id")

    def __str__(self) -> str:
        return f"{self.project}.{self.dataset}.{self.table}"

    @property
    def dataset_id(self) -> str:
        """`project.dataset`."""
        return f"{self.project}.{self.dataset}"

    @property
    def sql(self) -> str:
        """The name as a quoted SQL identifier: `` `project.dataset.table` ``."""
        return f"`{self}`"


@dataclass(frozen=True)
class ExportTables:
    """Where one billing account's export lands."""

    project: str
    dataset: str
    billing_account: str

    def __post_init__(self) -> None:
        if not _ACCOUNT.fullmatch(self.billing_account):
            raise SpendError(
                f"billing account: {self.billing_account!r} is not an id like 01D4EE-079462-DFD6EC"
            )
        self.standard  # noqa: B018 - validates project and dataset now, not at the first query

    @property
    def _suffix(self) -> str:
        return self.billing_account.replace("-", "_")

    @property
    def standard(self) -> TableId:
        """The standard usage cost table."""
        return TableId(self.project, self.dataset, f"gcp_billing_export_v1_{self._suffix}")

    @property
    def detailed(self) -> TableId:
        """The detailed (resource-level) usage cost table."""
        return TableId(self.project, self.dataset, f"gcp_billing_export_resource_v1_{self._suffix}")
