"""`metadata_db`: Cloud SQL for pipeline metadata (component: governance/components/metadata_db.py).

`problems` checks the tier against the environment's allow-list and keeps prod's backups and
deletion protection on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import Field

from governance.settings.accepted import Flag
from governance.settings.base import Model, Problem

if TYPE_CHECKING:
    from governance.settings.base import Environment
    from governance.settings.limits import Limits


class MetadataDbSettings(Model):
    """Cloud SQL (PostgreSQL) for ML pipeline metadata."""

    tier: str = "db-custom-1-3840"
    database_version: Literal["POSTGRES_14", "POSTGRES_15", "POSTGRES_16", "MYSQL_8_0"] = (
        "POSTGRES_15"
    )
    disk_gb: Annotated[int, Field(ge=10, le=65536)] = 20
    high_availability: Flag = False
    backups: Flag | None = None  # None: on in staging and prod, off in dev
    deletion_protection: Flag | None = None  # None: on in prod only


class _MetadataDbStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def is_prod(self) -> bool: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def metadata_db(self) -> MetadataDbSettings | None: ...


def problems(s: _MetadataDbStack) -> Iterator[Problem]:
    """The database's tier and prod safety settings."""
    db = s.metadata_db
    if db is None:
        return
    if db.tier not in s.limits.sql_tiers:
        yield (
            "metadata_db.tier",
            f"{db.tier!r} is not allowed in {s.environment}; allowed: {list(s.limits.sql_tiers)}",
        )
    if s.is_prod and db.backups is False:
        yield "metadata_db.backups", "prod keeps backups of pipeline metadata; remove the key"
    if s.is_prod and db.deletion_protection is False:
        yield "metadata_db.deletion_protection", "prod keeps deletion protection; remove the key"
