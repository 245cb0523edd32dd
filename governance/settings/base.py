"""What every settings section shares: the strict model base and the common value shapes.

Sections live one per module beside this one (network.py, notebooks.py, ...); the root model that
holds them is root.py, and turning raw config into a `Settings` (with error lines naming the key
the user wrote) is parse.py.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Environment = Literal["dev", "staging", "prod"]

REGION_PATTERN = r"[a-z]+-[a-z]+[0-9]+"
ZONE_PATTERN = r"[a-z]+-[a-z]+[0-9]+-[a-z]"
HHMM_PATTERN = r"([01][0-9]|2[0-3]):[0-5][0-9]"

Positive = Annotated[int, Field(gt=0)]
Fraction = Annotated[float, Field(gt=0, le=5)]
Zone = Annotated[str, Field(pattern=ZONE_PATTERN)]

Problem = tuple[str, str]
"""(key path relative to `mlgov:settings`, message): one semantic problem of a stack's settings."""


class Model(BaseModel):
    """A settings model: frozen, and a typo in a key is an error, not an ignored setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)
