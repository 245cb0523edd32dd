"""Check one resource's input properties against its pulumi-gcp/pulumi-random input types.

`validate_inputs(token, inputs)` yields (property path, message) for: a property the type does not
have (at any depth), a required property that is missing, a value of the wrong JSON type
(object vs scalar vs list, a number that is not a number, a fraction where an integer is
required) and a string outside the values the provider documents for an enum. `check` wraps it
as a resource rule (schema/rules.py declares it). Types the archive does not describe
(components, providers, the stack, other packages) get no findings; `check_known_type` reports
`gcp:`/`random:` tokens the installed SDK does not have.

Deliberately lenient where the engine is: strings are accepted for numbers, integers and booleans
and numbers for strings (the Terraform bridge converts them: `defaultTableExpirationMs:
"86400000"`, mock numbers as `1.0`), null means absent, keys starting with `__` are engine
metadata (`__defaults`), output-only properties at the top level may be echoed by the provider's
Check, and unknown values (CrossGuard sentinels), `[secret]` redactions and assets/archives are
never findings. The schema data is read by catalog.py; mlgov_policies/rules/ holds the semantic
rules.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import Any, Final, Protocol, cast

from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import is_unknown
from mlgov_policies.schema import catalog

# governance/review/offline.py writes this in place of secret inputs in plan documents.
REDACTED: Final = "[secret]"
# Type-token prefixes of the packages the archive describes.
DESCRIBED_PACKAGES: Final = {"gcp:": "pulumi-gcp", "random:": "pulumi-random"}
# strconv.ParseBool's spellings: the strings the Terraform bridge coerces to a bool
# (pulumi-terraform-bridge tfbridge CoerceTerraformString; numbers go through ParseInt/ParseFloat).
_BOOL_STRINGS: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"}) | frozenset(
    {"0", "f", "F", "FALSE", "false", "False"}
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARGS_SUFFIX = re.compile(r"(?:Init)?Args$")
# Enum values are listed in full up to this many; property-name suggestions are shorter.
_MAX_VALUES = 40
_MAX_NAMES = 12

Findings = list[tuple[str, str]]


class _Node:
    """A compiled schema node: checks one value and appends (path, message) findings."""

    __slots__ = ()

    def check(self, value: Any, path: str, out: Findings) -> None:
        raise NotImplementedError

    def expected(self) -> str:
        """What this node expects, as words ("a string", "a list")."""
        raise NotImplementedError


class _Any(_Node):
    __slots__ = ()

    def check(self, value: Any, path: str, out: Findings) -> None:
        return

    def expected(self) -> str:
        return "any value"


class _String(_Node):
    __slots__ = ()

    def check(self, value: Any, path: str, out: Findings) -> None:
        # Numbers are converted to strings on the way to the provider (ports and counts are often
        # written as numbers). Booleans are not let through: how one is spelled as a string
        # ("true", "1", "TRUE") depends on the conversion path, and map values such as Workbench
        # metadata flags are compared as exact strings by the service.
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            out.append((path, _wrong(self, value)))

    def expected(self) -> str:
        return "a string"


class _Number(_Node):
    __slots__ = ("integer",)

    def __init__(self, *, integer: bool) -> None:
        self.integer = integer

    def check(self, value: Any, path: str, out: Findings) -> None:
        number: float
        if isinstance(value, bool):
            out.append((path, _wrong(self, value)))
            return
        if isinstance(value, int):
            return
        if isinstance(value, float):
            number = value
        elif isinstance(value, str):
            # int64 fields travel as strings ("86400000"); the bridge parses them.
            try:
                number = float(value.strip())
            except ValueError:
                out.append((path, f"expected {self.expected()}, got the string {value!r}"))
                return
        else:
            out.append((path, _wrong(self, value)))
            return
        if not math.isfinite(number):
            out.append((path, f"expected {self.expected()}, got {value!r}"))
        elif self.integer and not number.is_integer():
            out.append((path, f"expected an integer, got {value!r} (the provider truncates it)"))

    def expected(self) -> str:
        return "an integer" if self.integer else "a number"


class _Boolean(_Node):
    __slots__ = ()

    def check(self, value: Any, path: str, out: Findings) -> None:
        if isinstance(value, bool) or (isinstance(value, str) and value in _BOOL_STRINGS):
            return
        out.append((path, _wrong(self, value)))

    def expected(self) -> str:
        return "a boolean"


class _Enum(_Node):
    __slots__ = ("values",)

    def __init__(self, values: Sequence[str]) -> None:
        self.values = tuple(values)

    def check(self, value: Any, path: str, out: Findings) -> None:
        if not isinstance(value, str):
            out.append((path, _wrong(self, value)))
        # The provider's enum validators also accept "" (unset).
        elif value and value not in self.values:
            out.append((path, f"{value!r} is not one of {_listing(self.values, _MAX_VALUES)}"))

    def expected(self) -> str:
        return f"one of {_listing(self.values, _MAX_VALUES)}"


class _Array(_Node):
    __slots__ = ("item",)

    def __init__(self, item: _Node) -> None:
        self.item = item

    def check(self, value: Any, path: str, out: Findings) -> None:
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            out.append((path, _wrong(self, value)))
            return
        item = self.item
        for index, element in enumerate(cast(Sequence[Any], value)):
            if element is not None and not _opaque(element):
                item.check(element, f"{path}[{index}]", out)

    def expected(self) -> str:
        return "a list"


class _Map(_Node):
    __slots__ = ("item",)

    def __init__(self, item: _Node) -> None:
        self.item = item

    def check(self, value: Any, path: str, out: Findings) -> None:
        if not isinstance(value, Mapping):
            out.append((path, _wrong(self, value)))
            return
        item = self.item
        for key, element in cast(Mapping[str, Any], value).items():
            if element is not None and not _opaque(element):
                item.check(element, _child(path, str(key)), out)

    def expected(self) -> str:
        return "a map"


class _Object(_Node):
    __slots__ = ("computed", "name", "properties", "required")

    def __init__(self, name: str) -> None:
        self.name = name
        self.properties: dict[str, _Node] = {}
        self.required: tuple[str, ...] = ()
        self.computed: frozenset[str] = frozenset()

    def check(self, value: Any, path: str, out: Findings) -> None:
        if not isinstance(value, Mapping):
            out.append((path, _wrong(self, value)))
            return
        fields = cast(Mapping[str, Any], value)
        properties = self.properties
        for key, element in fields.items():
            node = properties.get(key)
            if node is None:
                if not key.startswith("__") and key not in self.computed:
                    out.append((_child(path, key), self._unknown(key)))
            elif element is not None and not _opaque(element):
                node.check(element, _child(path, key), out)
        for key in self.required:
            if fields.get(key) is None:
                out.append((_child(path, key), "required property is missing"))

    def _unknown(self, key: str) -> str:
        close = difflib.get_close_matches(key, self.properties, n=1)
        if close:
            return f"unknown property; did you mean '{close[0]}'?"
        deeper = self._find(key)
        if deeper is not None:
            return f"unknown property here; {key} belongs under '{deeper}'"
        return f"unknown property; {self.name} has {_listing(sorted(self.properties), _MAX_NAMES)}"

    def _find(self, key: str) -> str | None:
        """The shortest path below this object to a property named `key` (a misplaced key)."""
        queue: list[tuple[str, _Object]] = [("", self)]
        seen: set[int] = {id(self)}
        while queue:
            prefix, current = queue.pop(0)
            for name, node in current.properties.items():
                path = f"{prefix}.{name}" if prefix else name
                if name == key and current is not self:
                    return path
                while isinstance(node, _Array | _Map):
                    node = node.item
                if isinstance(node, _Object) and id(node) not in seen:
                    seen.add(id(node))
                    queue.append((path, node))
        return None

    def expected(self) -> str:
        return "an object"


_ANY: Final = _Any()
_SCALARS: Final[Mapping[str, _Node]] = {
    "string": _String(),
    "number": _Number(integer=False),
    "integer": _Number(integer=True),
    "boolean": _Boolean(),
    "any": _ANY,
    "asset": _ANY,  # plan documents describe assets ({"kind": "FileArchive", ...}); never checked
    "archive": _ANY,
}


def _opaque(value: object) -> bool:
    """Values that are never findings: unknown during preview, or redacted from the plan."""
    return value == REDACTED or is_unknown(value)


def _child(path: str, key: str) -> str:
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "a list"
    return type(value).__name__


def _wrong(node: _Node, value: object) -> str:
    return f"expected {node.expected()}, got {_kind(value)}"


def _listing(values: Sequence[str], limit: int) -> str:
    shown = ", ".join(values[:limit])
    more = len(values) - limit
    return shown + (f" (and {more} more)" if more > 0 else "")


class _Compiler:
    """Turns one archive entry into linked _Node objects (object types shared, cycles allowed)."""

    def __init__(self, types: Mapping[str, Any]) -> None:
        self.types = types
        self.objects: dict[str, _Object] = {}

    def object(self, name: str, description: Mapping[str, Any]) -> _Object:
        known = self.objects.get(name)
        if known is not None:
            return known
        # Messages name the type as Pulumi's docs do: InstanceGceSetup, not InstanceGceSetupArgs.
        compiled = _Object(_ARGS_SUFFIX.sub("", name))
        self.objects[name] = compiled  # before the properties: a type may contain itself
        properties = cast(Mapping[str, Any], description.get("properties", {}))
        compiled.properties = {key: self.node(node) for key, node in properties.items()}
        compiled.required = tuple(cast(Sequence[str], description.get("required", ())))
        return compiled

    def node(self, raw: Any) -> _Node:
        if isinstance(raw, str):
            return _SCALARS[raw]
        spec = cast(Mapping[str, Any], raw)
        if "array" in spec:
            return _Array(self.node(spec["array"]))
        if "map" in spec:
            return _Map(self.node(spec["map"]))
        if "enum" in spec:
            return _Enum(cast(Sequence[str], spec["enum"]))
        if "object" in spec:
            name = cast(str, spec["object"])
            return self.object(name, cast(Mapping[str, Any], self.types[name]))
        raise ValueError(f"unknown schema node {raw!r}")


@cache
def _resource(token: str) -> _Object | None:
    entry = catalog.resource_entry(token)
    if entry is None:
        return None
    compiler = _Compiler(cast(Mapping[str, Any], entry.get("types", {})))
    top = compiler.object(cast(str, entry["args"]), entry)
    # Output-only properties (effectiveLabels, pulumiLabels, ...) may appear in the inputs the
    # provider's Check returns, which is what CrossGuard sees; they are the provider's, not ours.
    top.computed = frozenset(cast(Sequence[str], entry.get("outputs", ())))
    return top


def validate_inputs(type_token: str, inputs: object) -> Iterator[tuple[str, str]]:
    """(property path, message) for every schema violation in one resource's inputs.

    Paths are wire (camelCase) paths such as `gceSetup.acceleratorConfigs[0].type`. Types the
    archive does not describe yield nothing.
    """
    top = _resource(type_token)
    if top is None or _opaque(inputs):
        return
    found: Findings = []
    if not isinstance(inputs, Mapping):
        found.append(("", f"inputs must be an object, got {_kind(inputs)}"))
    else:
        top.check(inputs, "", found)
    yield from found


def schema_source(type_token: str) -> str:
    """The package and version whose types `type_token` is checked against."""
    for prefix, package in DESCRIBED_PACKAGES.items():
        if type_token.startswith(prefix):
            return f"{package} {catalog.package_versions().get(package, '?')}"
    return "?"


def check(type_token: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Inputs of all pulumi-gcp/pulumi-random resources match the installed SDK's input types."""
    del config
    if catalog.resource_entry(type_token) is None:
        return
    source = schema_source(type_token)
    for path, message in validate_inputs(type_token, props):
        yield f"'{path}': {message} ({source} input types)" if path else f"{message} ({source})"


class _Typed(Protocol):
    """What the stack adapter reads of a resource (rules.StackResource has it)."""

    @property
    def type(self) -> str: ...


def check_types_known(
    resources: Sequence[_Typed], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Every gcp:/random: resource type exists in the installed pulumi-gcp/pulumi-random SDK."""
    for index, resource in enumerate(resources):
        for message in check_known_type(resource.type, {}, config):
            yield index, message


def check_known_type(
    type_token: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """The resource type exists in the installed pulumi-gcp (or pulumi-random) SDK.

    Resource-rule shaped, but a resource rule only sees the types it lists; the registry wires
    `check_types_known` (a stack rule over every resource) instead.
    """
    del props, config
    prefix = next((p for p in DESCRIBED_PACKAGES if type_token.startswith(p)), None)
    if prefix is None or type_token in catalog.known_types():
        return
    yield f"type '{type_token}' is not in {schema_source(type_token)}{_type_hint(type_token)}"


def _type_hint(type_token: str) -> str:
    """A suggestion for an unknown token: the resources of its module, or the module is gone."""
    module = type_token.split("/", 1)[0] if "/" in type_token else type_token.rsplit(":", 1)[0]
    siblings = sorted(t for t in catalog.known_types() if t.startswith(module + "/"))
    if not siblings:
        return f" (it has no module '{module}')"
    close = difflib.get_close_matches(type_token, siblings, n=1)
    if close:
        return f"; did you mean '{close[0]}'?"
    names = [t.rsplit(":", 1)[-1] for t in siblings]
    return f"; {module} has {_listing(names, _MAX_NAMES)}"


def covered_types() -> frozenset[str]:
    """Every type token `check` validates (all resources of the described SDKs)."""
    return catalog.known_types()
