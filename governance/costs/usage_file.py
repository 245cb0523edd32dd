"""The usage file: declared usage per resource name or per resource type, in Infracost's spirit.

Inputs say what exists; some charges depend on how much it is used (egress, Cloud Storage
operations, BigQuery queries, log ingestion, Pub/Sub messages, Cloud Run requests, ...). A usage
file declares those quantities, in YAML:

    version: 1
    resource_type_default_usage:            # applies to every resource of the type
      gcp:storage/bucket:Bucket:
        monthly_class_a_operations: 10000
    resource_usage:                          # per resource (Pulumi name or GCP name): wins
      raw-data:
        monthly_class_a_operations: 40000
        monthly_egress_gb: 500

Each type's keys are a pydantic model beside its cost model (`Declared` in resources/<type>.py,
registered in registry.py `DECLARED`), every model `extra="forbid"`: a key no type knows, a value
of the wrong kind or a type with no usage keys is a `UsageFileError` naming its key path (the CLI
exits 2). `parse_usage_file` checks the file on its own; `declared_usage` resolves it against a
plan (a per-resource key its resource's type does not have is an error there; a name no resource
has is a warning). Without a declaration a usage-based part is a "depends on usage" line with its
unit price (bill.py), never a silent 0. The stack's own usage knobs (`mlgov:settings.usage`,
assumptions.py) stay what they are: defaults the declarations here override per resource.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from governance.costs.declared_usage import DeclaredUsage
from governance.costs.errors import CostError
from governance.costs.model import Resource
from governance.costs.registry import DECLARED
from governance.untrusted import UntrustedInputError, decode_text, load_yaml

MAX_USAGE_FILE_BYTES = 4 * 1024 * 1024
"""Largest usage file read (like a stack file: a PR can carry it)."""

VERSIONS = ("0.1", "1")

MAX_DECLARED = 1e15
"""Largest quantity a usage key takes: far above any month's real usage (a million TiB, a
quadrillion requests), low enough that quantity x price summed over a plan stays finite."""


class UsageFileError(CostError):
    """A usage file that cannot be used; `problems` name each key path."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class UsageFile(BaseModel):
    """A usage file, checked: every type known, every key a usage key of some type."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(default="1", description="Usage file format version (1; 0.1 accepted).")
    resource_type_default_usage: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Type token -> usage of every resource of that type."
    )
    resource_usage: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Resource name (Pulumi or GCP) -> its usage; wins over the type's default.",
    )
    source: str = Field(default="", description="Where the file was read from (for reports).")

    @field_validator("version", mode="before")
    @classmethod
    def _version(cls, value: object) -> str:
        text = str(value)
        if text not in VERSIONS:
            raise ValueError(f"version {text!r} is not one of {', '.join(VERSIONS)}")
        return text

    def as_dict(self) -> dict[str, Any]:
        """The plan document's `usage_file` key (what `check` re-reads)."""
        out: dict[str, Any] = {"version": self.version}
        if self.source:
            out["source"] = self.source
        out["resource_type_default_usage"] = self.resource_type_default_usage
        out["resource_usage"] = self.resource_usage
        return out


def _path(loc: Sequence[int | str]) -> str:
    return ".".join(str(part) for part in loc)


def _problems(err: ValidationError, prefix: str) -> list[str]:
    out: list[str] = []
    for e in err.errors():
        where = _path([prefix, *e["loc"]]) if prefix else _path(e["loc"])
        message = e["msg"]
        if e["type"] == "extra_forbidden":
            message = "not a usage key here"
        out.append(f"{where}: {message}")
    return out


def _out_of_range(value: object, where: str) -> list[str]:
    """Declared numbers (after parsing) that are not finite or above MAX_DECLARED.

    pydantic's float takes `.inf` and strings such as "1e400" (inf); a price times either is
    `$inf`, a saving `$nan`, and `--json` would write `Infinity`, which no JSON reader takes.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, Mapping):
        items = cast(Mapping[str, object], value).items()
        return [p for key, item in items for p in _out_of_range(item, f"{where}.{key}")]
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            return [f"{where}: {value!r} is not a finite number"]
        if abs(value) > MAX_DECLARED:
            return [f"{where}: {value:g} is above {MAX_DECLARED:g}, more than any month's usage"]
    return []


def _keys_of(model: type[BaseModel]) -> str:
    return ", ".join(sorted(model.model_fields))


def _check_type(type_: str, values: Mapping[str, Any], where: str) -> list[str]:
    model = DECLARED.get(type_)
    if model is None:
        known = ", ".join(sorted(DECLARED))
        return [f"{where}: {type_!r} has no usage keys (types with usage: {known})"]
    try:
        declared = model.model_validate(values)
    except ValidationError as err:
        return [
            f"{p} (keys of {type_}: {_keys_of(model)})" if p.endswith("not a usage key here") else p
            for p in _problems(err, where)
        ]
    return _out_of_range(declared, where)


_ALL_KEYS: frozenset[str] = frozenset(k for m in DECLARED.values() for k in m.model_fields)


def parse_usage_file(raw: object, source: str = "") -> UsageFile:
    """A usage file from its parsed YAML; `UsageFileError` lists every problem with its path."""
    if not isinstance(raw, Mapping):
        raise UsageFileError(
            [
                "the usage file must be a mapping with `resource_usage` and/or "
                "`resource_type_default_usage`"
            ]
        )
    try:
        doc = UsageFile.model_validate({**cast(Mapping[str, Any], raw), "source": source})
    except ValidationError as err:
        raise UsageFileError(_problems(err, "")) from None
    problems: list[str] = []
    for type_, values in doc.resource_type_default_usage.items():
        problems += _check_type(type_, values, f"resource_type_default_usage.{type_}")
    for name, values in doc.resource_usage.items():
        for key in values:
            if key not in _ALL_KEYS:
                problems.append(f"resource_usage.{name}.{key}: no resource type has this usage key")
    if problems:
        raise UsageFileError(problems)
    return doc


def load_usage_file(path: str | Path) -> UsageFile:
    """Read and check a usage file; every problem names the file and the key path."""
    name = str(path)
    try:
        with Path(path).open("rb") as stream:
            data = stream.read(MAX_USAGE_FILE_BYTES + 1)
    except OSError as err:
        raise UsageFileError([f"usage file {name}: cannot read it ({err.strerror})"]) from None
    if len(data) > MAX_USAGE_FILE_BYTES:
        raise UsageFileError([f"usage file {name}: larger than {MAX_USAGE_FILE_BYTES:,} bytes"])
    try:
        text = decode_text(data)  # a byte-order mark (PowerShell's) is dropped
    except UntrustedInputError as err:
        raise UsageFileError([f"usage file {name}: {err}"]) from None
    try:
        raw = load_yaml(text)
    except UntrustedInputError as err:  # bounded: aliases, nesting, repeated keys
        raise UsageFileError([f"usage file {name}: not YAML ({err})"]) from None
    try:
        return parse_usage_file(raw if raw is not None else {}, name)
    except UsageFileError as err:
        raise UsageFileError([f"usage file {name}: {p}" for p in err.problems]) from None


def _owners(file: UsageFile, resources: Sequence[Resource]) -> dict[str, list[Resource]]:
    """resource_usage name -> the plan's resources it names (by Pulumi name or GCP name)."""
    owners: dict[str, list[Resource]] = {}
    for res in resources:
        for name in dict.fromkeys((res.name, res.gcp_name)):
            if name in file.resource_usage:
                owners.setdefault(name, []).append(res)
                break
    return owners


def declared_usage(file: UsageFile | None, resources: Sequence[Resource]) -> DeclaredUsage:
    """Resolve a usage file against a plan's resources (per-name entries win over per-type).

    A name several resources share applies to each whose type has all its keys (a Pulumi name
    can repeat across types); a name whose keys none of its resources' types has is an error.

    Raises:
        UsageFileError: a per-resource key that its resource's type does not have.
    """
    if file is None:
        return DeclaredUsage({})
    problems: list[str] = []
    own: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for name, named in _owners(file, resources).items():
        keys = set(file.resource_usage[name])
        fits = [r for r in named if (m := DECLARED.get(r.type)) and keys <= set(m.model_fields)]
        if not fits:
            types = sorted({r.type for r in named})
            known = {k for t in types if t in DECLARED for k in DECLARED[t].model_fields}
            problems += [
                f"resource_usage.{name}.{key}: not a usage key of {name} ({', '.join(types)}; "
                f"its keys: {', '.join(sorted(known)) or 'none'})"
                for key in sorted(keys - known) or sorted(keys)
            ]
        for res in fits:
            own[(res.type, res.name)] = (name, file.resource_usage[name])
    found: dict[tuple[str, str], BaseModel] = {}
    for res in resources:
        model = DECLARED.get(res.type)
        defaults = file.resource_type_default_usage.get(res.type, {})
        name, values = own.get((res.type, res.name), ("", {}))
        if model is None or not (defaults or name):
            continue
        try:
            found[(res.type, res.name)] = model.model_validate({**defaults, **values})
        except ValidationError as err:
            problems += _problems(
                err, f"resource_usage.{name}" if name else f"resource_type_default_usage.{res.type}"
            )
            continue
        dumped = found[(res.type, res.name)].model_dump()  # the type's defaults were checked
        for key in values:
            problems += _out_of_range(dumped[key], f"resource_usage.{name}.{key}")
    if problems:
        where = f"usage file {file.source}: " if file.source else "usage file: "
        raise UsageFileError([where + p for p in dict.fromkeys(problems)])
    unmatched = sorted(set(file.resource_usage) - set(_owners(file, resources)))
    return DeclaredUsage(found, file.source, unmatched)
