"""Generate the input-schema archive from the installed pulumi-gcp and pulumi-random SDKs.

Run with `policies/` on sys.path (this module is the only one in the package that imports
pulumi, and only when it runs):

    .venv/bin/python -m mlgov_policies.schema.generate            # rewrite the archive
    .venv/bin/python -m mlgov_policies.schema.generate --check    # exit 1 if it is stale

For every resource type token the SDK registers (the `resource_modules` table each SDK's
`__init__.py` hands to `_utilities.register`), it reads the resource's `*Args` input class (the
one `_internal_init` instantiates) and walks its `__init__` annotations recursively: Python names
become wire names through `@pulumi.getter(name=...)` (`pulumi.input_type_py_to_pulumi_names`),
`pulumi.Input[...]`/`Optional[...]` are unwrapped, `Sequence[X]` becomes an array, `Mapping[str,
X]` a map and every nested `@pulumi.input_type` class an object type. A parameter without a
default is required. Enum values come from the provider's generated docstrings ("Possible values
are: `A`, `B`." on a string, "Each value may be one of: `A`, `B`." on a list of strings); free-form
wording ("Possible values: ...", "Valid values are ...") is ignored because it is not generated
from the API's enum. The archive layout is documented in catalog.py, which reads it.
"""

from __future__ import annotations

import argparse
import ast
import collections.abc
import importlib
import importlib.metadata
import inspect
import io
import json
import re
import sys
import types
import typing
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from mlgov_policies.schema.catalog import ARCHIVE, FORMAT, META_MEMBER, member_name

# (distribution name, import name): the SDKs whose resources the archive describes.
PACKAGES: tuple[tuple[str, str], ...] = (
    ("pulumi-gcp", "pulumi_gcp"),
    ("pulumi-random", "pulumi_random"),
)

# A fixed timestamp makes the archive byte-identical for identical content.
_ZIP_DATE = (2020, 1, 1, 0, 0, 0)
_PROPS_CLASS = re.compile(r"__props__ = (\w+)\.__new__\(")
_ENUM_SCALAR = re.compile(r"Possible values are: ((?:`[^`]*`(?:,? and |, )?)+)")
_ENUM_ITEMS = re.compile(r"Each value may be one of: ((?:`[^`]*`(?:,? and |, )?)+)")
_BACKTICKED = re.compile(r"`([^`]*)`")

Node = str | dict[str, Any]


class UnsupportedTypeError(Exception):
    """An annotation shape the generator does not know how to describe."""


def resource_classes(import_name: str) -> dict[str, tuple[str, str]]:
    """Type token -> (module, class name), from the SDK's `_utilities.register` table.

    Read from the package source with `ast`, so no submodule is imported to learn the tokens.
    """
    module = importlib.import_module(import_name)
    source = Path(cast(str, module.__file__)).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "register"
        ):
            for keyword in node.keywords:
                if keyword.arg == "resource_modules" and isinstance(keyword.value, ast.Constant):
                    table = json.loads(cast(str, keyword.value.value))
                    return {
                        token: (entry["fqn"], class_name)
                        for entry in table
                        for token, class_name in entry["classes"].items()
                    }
    raise RuntimeError(f"{import_name}: no _utilities.register(resource_modules=...) call found")


def enum_values(doc: str | None) -> tuple[list[str] | None, list[str] | None]:
    """(scalar enum, list-item enum) documented in a property docstring, None where absent."""
    if not doc:
        return None, None
    text = " ".join(doc.split())
    scalar = _ENUM_SCALAR.search(text)
    items = _ENUM_ITEMS.search(text)
    return (
        _BACKTICKED.findall(scalar.group(1)) if scalar else None,
        _BACKTICKED.findall(items.group(1)) if items else None,
    )


@dataclass
class _ResourceWalk:
    """Collects the object types reachable from one resource's Args class."""

    types: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    seen: dict[str, type] = field(default_factory=lambda: {})

    def object_type(self, cls: type) -> str:
        """Register `cls` (an input type) and return its name in the archive."""
        name = cls.__name__
        known = self.seen.get(name)
        if known is cls:
            return name
        if known is not None:
            raise UnsupportedTypeError(f"two input types named {name}: {known} and {cls}")
        self.seen[name] = cls
        self.types[name] = {}  # placeholder first: types may refer to themselves
        self.types[name] = self.describe(cls)
        return name

    def describe(self, cls: type) -> dict[str, Any]:
        """{"properties": {wire name: node}, "required": [wire names]} for an input class."""
        wire = _pulumi_types().input_type_py_to_pulumi_names(cls)
        init = cast(Any, cls).__init__
        # pulumi.Input[T] is Union[T, Awaitable[T], "Output[T]"]: resolve that forward reference
        # the way pulumi._types does (T's value does not matter, Output members are dropped).
        hints = typing.get_type_hints(init, localns={"Output": _pulumi().Output, "T": type(None)})
        properties: dict[str, Node] = {}
        required: list[str] = []
        _, *params = inspect.signature(init).parameters.values()  # the first is __self__
        for param in params:
            py_name = param.name
            if param.kind is not inspect.Parameter.KEYWORD_ONLY:
                raise UnsupportedTypeError(f"{cls.__name__}.{py_name} is not keyword-only")
            wire_name = wire.get(py_name)
            if wire_name is None:
                raise UnsupportedTypeError(f"{cls.__name__}.{py_name} has no @pulumi.getter")
            getter = getattr(cls, py_name)
            doc = getter.fget.__doc__ if isinstance(getter, property) else None
            properties[wire_name] = self.node(hints[py_name], doc, f"{cls.__name__}.{py_name}")
            if param.default is inspect.Parameter.empty:
                required.append(wire_name)
        description: dict[str, Any] = {"properties": dict(sorted(properties.items()))}
        if required:
            description["required"] = sorted(required)
        return description

    def node(self, hint: Any, doc: str | None, where: str) -> Node:
        """The archive node for one annotation, enums from its docstring applied."""
        described = self._shape(hint, where)
        scalar, items = enum_values(doc)
        if scalar is not None and described == "string":
            return {"enum": scalar}
        if items is not None and described == {"array": "string"}:
            return {"array": {"enum": items}}
        return described

    def _shape(self, hint: Any, where: str) -> Node:
        pulumi = _pulumi()
        members = _input_members(hint)
        if len(members) > 1:
            shapes: list[Node] = []
            for member in members:
                shape = self._shape(member, where)
                if shape not in shapes:
                    shapes.append(shape)
            if shapes in (["asset", "archive"], ["archive", "asset"]):
                return "asset"  # an AssetOrArchive: both are described the same way
            if len(shapes) > 1:
                # pulumi-gcp 10 has no such unions; teach validate.py before describing one.
                raise UnsupportedTypeError(f"{where}: a union of {shapes}")
            return shapes[0]
        (hint,) = members
        if hint is Any:
            return "any"
        if hint is str:
            return "string"
        if hint is bool:
            return "boolean"
        if hint is int:
            return "integer"
        if hint is float:
            return "number"
        origin = typing.get_origin(hint)
        if origin in (collections.abc.Sequence, list):
            (item,) = typing.get_args(hint)
            return {"array": self._shape(item, where)}
        if origin in (collections.abc.Mapping, dict):
            key, value = typing.get_args(hint)
            if key is not str:
                raise UnsupportedTypeError(f"{where}: map key {key!r}")
            return {"map": self._shape(value, where)}
        if isinstance(hint, type):
            if issubclass(hint, pulumi.Archive):
                return "archive"
            if issubclass(hint, pulumi.Asset):
                return "asset"
            if _pulumi_types().is_input_type(hint):
                return {"object": self.object_type(hint)}
        raise UnsupportedTypeError(f"{where}: {hint!r}")


def _input_members(hint: Any) -> list[Any]:
    """The value types an annotation admits: Input/Optional/Awaitable/Output stripped."""
    pulumi = _pulumi()
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        members: list[Any] = []
        for arg in typing.get_args(hint):
            arg_origin = typing.get_origin(arg)
            if arg is type(None) or arg_origin is collections.abc.Awaitable:
                continue
            if arg_origin is pulumi.Output or arg is pulumi.Output:
                continue
            for member in _input_members(arg):
                if member not in members:
                    members.append(member)
        return members
    return [hint]


def _pulumi() -> Any:
    # Imported on first use, not at module import: only generation needs pulumi.
    return importlib.import_module("pulumi")


def _pulumi_types() -> Any:
    # pulumi._types holds the input-type reflection helpers (input_type_py_to_pulumi_names,
    # resource_py_to_pulumi_names, is_input_type) the SDK itself uses to name properties on the
    # wire; using them keeps our wire names identical to what the SDK sends.
    return importlib.import_module("pulumi._types")


def describe_resource(token: str, module_name: str, class_name: str) -> dict[str, Any]:
    """The archive entry for one resource type token."""
    module = importlib.import_module(module_name)
    resource = getattr(module, class_name)
    match = _PROPS_CLASS.search(inspect.getsource(resource._internal_init))
    if match is None:
        raise UnsupportedTypeError(f"{token}: no __props__ = <Args>.__new__ in _internal_init")
    args_class = getattr(module, match.group(1))
    walk = _ResourceWalk()
    top = walk.describe(args_class)
    outputs = set(_pulumi_types().resource_py_to_pulumi_names(resource).values()) - set(
        top["properties"]
    )
    entry: dict[str, Any] = {"token": token, "args": args_class.__name__, **top}
    if outputs:
        entry["outputs"] = sorted(cast(set[str], outputs))
    if walk.types:
        entry["types"] = dict(sorted(walk.types.items()))
    return entry


def iter_entries(tokens: Mapping[str, tuple[str, str]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(token, entry) for each token, in sorted order."""
    for token in sorted(tokens):
        module_name, class_name = tokens[token]
        yield token, describe_resource(token, module_name, class_name)


def installed_versions() -> dict[str, str]:
    """Distribution name -> installed version, for the SDKs in PACKAGES."""
    return {dist: importlib.metadata.version(dist) for dist, _ in PACKAGES}


def build_archive() -> bytes:
    """The whole archive, from the installed SDKs (imports all their submodules: ~6 s)."""
    buffer = io.BytesIO()
    count = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        members: list[tuple[str, bytes]] = []
        for _, import_name in PACKAGES:
            for token, entry in iter_entries(resource_classes(import_name)):
                members.append((member_name(token), _dump(entry)))
                count += 1
        meta = {"format": FORMAT, "packages": installed_versions(), "resources": count}
        members.append((META_MEMBER, _dump(meta)))
        for name, data in sorted(members):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def _dump(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the archive; print what was done."""
    parser = argparse.ArgumentParser(prog="python -m mlgov_policies.schema.generate")
    parser.add_argument("--check", action="store_true", help="exit 1 if the archive is stale")
    parser.add_argument("--output", type=Path, default=ARCHIVE)
    args = parser.parse_args(argv)
    data = build_archive()
    if args.check:
        current = args.output.read_bytes() if args.output.exists() else b""
        if current != data:
            print(
                f"{args.output} is stale: regenerate with python -m mlgov_policies.schema.generate"
            )
            return 1
        print(f"{args.output} is current")
        return 0
    args.output.write_bytes(data)
    print(f"wrote {args.output} ({len(data):,} bytes) for {installed_versions()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
