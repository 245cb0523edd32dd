"""`artifacts`: the artifact bucket and image repository (component: components/artifacts.py).

Every key is optional: an unset key takes its environment's default from `ENV_DEFAULTS`
(`resolved_bucket` / `resolved_repository`), so `artifacts: {}` is a complete section. `problems`
keeps the bucket's lifecycle coherent (colder classes later, deletion last, something bounds what
it stores) and the repository's cleanup meaningful.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import Field

from governance.settings.accepted import Flag
from governance.settings.base import Model, Problem

if TYPE_CHECKING:
    from governance.settings.base import Environment

Days = Annotated[int, Field(ge=1, le=3650)]


class ArtifactBucketSettings(Model):
    """The bucket for checkpoints, pipeline outputs and datasets; None: the environment default."""

    enabled: Flag = True
    storage_class: Literal["STANDARD", "NEARLINE", "COLDLINE"] = "STANDARD"
    nearline_after_days: Days | None = None
    coldline_after_days: Days | None = None
    delete_after_days: Days | None = None
    # Object versioning keeps this many noncurrent versions (0: versioning off).
    noncurrent_versions: Annotated[int, Field(ge=0, le=100)] | None = None
    noncurrent_delete_after_days: Days | None = None
    abort_incomplete_upload_days: Annotated[int, Field(ge=1, le=30)] = 1


class ArtifactRepositorySettings(Model):
    """The Docker repository for training and serving images; None: the environment default."""

    enabled: Flag = True
    keep_tagged_versions: Annotated[int, Field(ge=1, le=1000)] | None = None
    delete_untagged_after_days: Annotated[int, Field(ge=1, le=365)] | None = None
    delete_tagged_after_days: Annotated[int, Field(ge=1, le=3650)] | None = None
    # None: off (cleanup deletes for real); mlgov refuses a dry run outside dev.
    dry_run: Flag | None = None


class ArtifactSettings(Model):
    """Artifact storage of one environment."""

    bucket: ArtifactBucketSettings = ArtifactBucketSettings()
    repository: ArtifactRepositorySettings = ArtifactRepositorySettings()


# Defaults per environment: dev keeps a month of scratch; prod keeps a year, mostly cold.
ENV_DEFAULTS: Mapping[str, Mapping[str, Mapping[str, Any]]] = {
    "dev": {
        "bucket": {
            "delete_after_days": 30,
            "noncurrent_versions": 1,
            "noncurrent_delete_after_days": 7,
        },
        "repository": {
            "keep_tagged_versions": 5,
            "delete_untagged_after_days": 7,
            "delete_tagged_after_days": 30,
            "dry_run": False,
        },
    },
    "staging": {
        "bucket": {
            "nearline_after_days": 30,
            "delete_after_days": 90,
            "noncurrent_versions": 2,
            "noncurrent_delete_after_days": 14,
        },
        "repository": {
            "keep_tagged_versions": 10,
            "delete_untagged_after_days": 7,
            "delete_tagged_after_days": 90,
            "dry_run": False,
        },
    },
    "prod": {
        "bucket": {
            "nearline_after_days": 30,
            "coldline_after_days": 90,
            "delete_after_days": 365,
            "noncurrent_versions": 3,
            "noncurrent_delete_after_days": 30,
        },
        "repository": {
            "keep_tagged_versions": 20,
            "delete_untagged_after_days": 14,
            "delete_tagged_after_days": 180,
            "dry_run": False,
        },
    },
}


def _fill(model: Model, defaults: Mapping[str, Any]) -> Any:
    """`model` with every None field taken from `defaults`."""
    return model.model_copy(update={k: v for k, v in defaults.items() if getattr(model, k) is None})


class _ArtifactsStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def artifacts(self) -> ArtifactSettings | None: ...


def resolved_bucket(s: _ArtifactsStack) -> ArtifactBucketSettings:
    """The bucket's settings with the environment's defaults filled in."""
    assert s.artifacts is not None  # noqa: S101 - callers check the section first
    return _fill(s.artifacts.bucket, ENV_DEFAULTS[s.environment]["bucket"])


def resolved_repository(s: _ArtifactsStack) -> ArtifactRepositorySettings:
    """The repository's settings with the environment's defaults filled in."""
    assert s.artifacts is not None  # noqa: S101 - callers check the section first
    return _fill(s.artifacts.repository, ENV_DEFAULTS[s.environment]["repository"])


# Transitions that make no sense when objects already start in that class (or a colder one).
_STARTS_COLDER: Mapping[str, tuple[str, ...]] = {
    "NEARLINE": ("nearline_after_days",),
    "COLDLINE": ("nearline_after_days", "coldline_after_days"),
}


def _bucket_problems(b: ArtifactBucketSettings) -> Iterator[Problem]:
    path = "artifacts.bucket"
    steps = [
        ("nearline_after_days", b.nearline_after_days),
        ("coldline_after_days", b.coldline_after_days),
        ("delete_after_days", b.delete_after_days),
    ]
    given = [(key, days) for key, days in steps if days is not None]
    for (earlier, first), (later, then) in itertools.pairwise(given):
        if then <= first:
            yield (
                f"{path}.{later}",
                f"{then} is not after {earlier} ({first}); objects move to colder classes, "
                "then are deleted, in that order",
            )
    for key in _STARTS_COLDER.get(b.storage_class, ()):
        if getattr(b, key) is not None:
            yield (
                f"{path}.{key}",
                f"objects already start in {b.storage_class}; remove {key} or use STANDARD",
            )
    if (
        b.delete_after_days is None
        and b.nearline_after_days is None
        and (b.coldline_after_days is None)
    ):
        yield (
            path,
            "set delete_after_days (or a nearline/coldline transition) so stored artifacts "
            "do not pile up at the STANDARD price forever",
        )
    if b.noncurrent_versions and b.noncurrent_delete_after_days is None:
        yield (
            f"{path}.noncurrent_delete_after_days",
            "versioning keeps overwritten objects; set how many days they are kept",
        )


def problems(s: _ArtifactsStack) -> Iterator[Problem]:
    """The bucket's lifecycle order and the repository's cleanup, after defaults are filled."""
    if s.artifacts is None:
        return
    if s.artifacts.bucket.enabled:
        yield from _bucket_problems(resolved_bucket(s))
    repo = resolved_repository(s)
    if not s.artifacts.repository.enabled:
        return
    if repo.dry_run and s.environment != "dev":
        yield (
            "artifacts.repository.dry_run",
            f"a dry run never deletes an image; only dev may try cleanup in dry run "
            f"({s.environment} is not dev); remove the key",
        )
    untagged, tagged = repo.delete_untagged_after_days, repo.delete_tagged_after_days
    if untagged is not None and tagged is not None and tagged < untagged:
        yield (
            "artifacts.repository.delete_tagged_after_days",
            f"{tagged} is shorter than delete_untagged_after_days ({untagged}); tagged images "
            "are the ones people deploy, keep them at least as long",
        )
