"""Parsing text nobody vetted (stack files, plan documents, stdin): YAML and JSON, bounded.

A stack file or a plan document can come from a pull request, so parsing must fail fast, with one
line naming the problem, on input built to exhaust memory or the interpreter's stack:

- YAML aliases: a document may expand to at most `MAX_VALUES` values, each alias counted as the
  size of what it names (a 2.8 KB "billion laughs" file names ~10^9 values and is refused while it
  is read, before anything expands it); an alias to a value that contains it is refused;
- nesting: at most `MAX_DEPTH` levels of lists and mappings in YAML and JSON (the parsers and
  the code after them recurse once per level, and Python stops at ~1,000 frames);
- YAML keys appear once per mapping (Pulumi's YAML reader refuses a repeated key; PyYAML would
  keep the last one silently, so a reviewer could read one value while another takes effect);
- YAML tags that PyYAML builds into Python-only values (`!!set`, `!!omap`, `!!pairs`, `!!binary`)
  are refused: Pulumi's reader gives them another value; unknown tags (`!secret`) are refused too;
- YAML timestamps stay strings, as Pulumi passes them (its YAML reader keeps timestamp-like values
  as strings); the settings models parse dates and name the key of one that does not exist;
- JSON has no NaN or Infinity (not JSON; they would poison every cost sum), and no number beyond
  a 64-bit float (`1e400` would read as infinity).

Size limits are the readers' (governance/inputs/project.py reads at most a given number of bytes).
Errors are `UntrustedInputError` with a one-line message; callers add the file name.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any, ClassVar, cast

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent, ScalarEvent
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.resolver import Resolver

MAX_DEPTH = 100
"""Most levels of nested lists and mappings (a plan's deepest inputs need ~10)."""
MAX_VALUES = 200_000
"""Most values a YAML document may expand to, aliases counted at their size. A stack file with
3,000 notebooks has ~40,000; the cost of a file of invalid values grows with this bound (~1.3 s
of CPU per 100,000 problems, bench/RESULTS.md)."""

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class UntrustedInputError(ValueError):
    """Text that is not valid, or is built to exhaust resources; the message is one line."""

    def __init__(self, message: str, syntax: ValueError | None = None) -> None:
        super().__init__(message)
        self.syntax = syntax
        """The JSON decoder's error when the text is not JSON at all (else None)."""


class _Refused(ComposerError):
    """Valid YAML beyond a bound (aliases, nesting, repeated keys)."""


# --------------------------------------------------------------------------- YAML
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
# Scalars read as Pulumi's YAML reader (Go yaml.v3, YAML 1.2 core schema when decoding into an
# untyped value) reads them, where PyYAML's YAML 1.1 differs: only true/false are booleans
# (`yes`, `no`, `on`, `off` stay strings, and the settings refuse them as booleans, naming the
# key), there are no base-60 numbers (`19:00` stays the string "19:00", not 1140), and `1e3`
# is a number, as in YAML 1.2.
_BOOLEAN = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INTEGER = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"
)
_REAL = re.compile(
    r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)"
    r"|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))$"
)
_REPLACED = {_TIMESTAMP, _BOOL, _INT, _FLOAT}


class _Resolver(Resolver):
    """YAML resolution as Pulumi reads a stack file (timestamps, booleans, base-60 numbers above).

    `2026-02-30` stays the string the user wrote; the settings name the key of a date that does
    not exist.
    """

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, Any]]]] = {  # pyright: ignore[reportIncompatibleVariableOverride]
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REPLACED]
        for first, resolvers in Resolver.yaml_implicit_resolvers.items()
    }


for _tag, _regexp, _first in (
    (_BOOL, _BOOLEAN, "tTfF"),
    (_INT, _INTEGER, "-+0123456789"),
    (_FLOAT, _REAL, "-+0123456789."),
):
    for _char in _first:  # as Resolver.add_implicit_resolver files them: by first character
        _Resolver.yaml_implicit_resolvers.setdefault(_char, []).append((_tag, _regexp))


class _BoundedComposer(Composer):
    """PyYAML's composer, counting expanded values and nesting as it builds the node graph."""

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._values = 0
        self._sizes: dict[int, int] = {}  # id(anchored node) -> values it expands to

    def _grow(self, count: int, mark: Any) -> None:
        self._values += count
        if self._values > MAX_VALUES:
            raise _Refused(
                None,
                None,
                f"expands to more than {MAX_VALUES:,} values "
                "(an alias counts as the values it repeats)",
                mark,
            )

    def compose_node(self, parent: Node | None, index: Any) -> Node:  # pyright: ignore[reportIncompatibleMethodOverride]
        """One node, counted: an alias as the size of what it names."""
        source: Any = self  # the event methods come from _Loader
        event: Any = source.peek_event()
        mark: Any = event.start_mark
        anchor: str | None = event.anchor
        if type(event) is AliasEvent:
            target = self.anchors.get(anchor)
            if target is not None:
                size = self._sizes.get(id(target))
                if size is None:  # still being composed: the alias sits inside its own anchor
                    raise _Refused(
                        None, None, f"alias *{anchor} refers to a value that contains it", mark
                    )
                self._grow(size, mark)
            return cast(Node, super().compose_node(parent, index))  # pyright: ignore[reportUnknownMemberType]
        nests = type(event) is not ScalarEvent
        if nests and self._depth >= MAX_DEPTH:
            raise _Refused(None, None, f"nested deeper than {MAX_DEPTH} levels", mark)
        before = self._values
        self._grow(1, mark)
        self._depth += nests
        try:
            node = cast(Node, super().compose_node(parent, index))  # pyright: ignore[reportUnknownMemberType]
        finally:
            self._depth -= nests
        if anchor is not None:
            self._sizes[id(node)] = self._values - before
        if isinstance(node, MappingNode):
            _refuse_repeated_keys(node)
        return node


def _refuse_repeated_keys(node: MappingNode) -> None:
    seen: set[tuple[str, str]] = set()
    pairs = cast(list[tuple[Node, Node]], node.value)
    for key, _ in pairs:
        if not isinstance(key, ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        token = (str(key.tag), str(key.value))
        if token in seen:
            raise _Refused(
                None, None, f"key {key.value!r} appears twice in one mapping", key.start_mark
            )
        seen.add(token)


class _Constructor(SafeConstructor):
    """PyYAML's safe constructor; a value it cannot build is a YAML error with its line."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        """The value of `node`; ValueError and friends become ConstructorError with its mark."""
        try:
            value = cast(Any, super().construct_object(node, deep))  # pyright: ignore[reportUnknownMemberType]
        except (ValueError, TypeError, OverflowError) as err:
            raise ConstructorError(
                None, None, f"cannot read value: {err}", node.start_mark
            ) from None
        return value

    def construct_yaml_timestamp(self, node: Node) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        """An explicit `!!timestamp` stays the string written, like an implicit one."""
        return self.construct_scalar(node)  # pyright: ignore[reportArgumentType]

    def construct_python_only(self, node: Node) -> Any:
        """Refuse a tag PyYAML builds into a Python-only value that Pulumi reads differently.

        `!!set` (a set here, a mapping of nulls to Pulumi), `!!omap` and `!!pairs` (tuples here,
        a list of mappings to Pulumi) and `!!binary` (bytes here, the decoded text to Pulumi):
        a value must mean one thing to mlgov and to `pulumi up`. Write the plain list, mapping
        or text instead.
        """
        raise ConstructorError(
            None,
            None,
            f"tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not read the same way by "
            "Pulumi; write a plain list, mapping or string",
            node.start_mark,
        )


_Constructor.add_constructor(_TIMESTAMP, _Constructor.construct_yaml_timestamp)  # pyright: ignore[reportUnknownMemberType, reportArgumentType]
for _python_only in ("set", "omap", "pairs", "binary"):
    _Constructor.add_constructor(  # pyright: ignore[reportUnknownMemberType]
        f"tag:yaml.org,2002:{_python_only}",
        _Constructor.construct_python_only,  # pyright: ignore[reportArgumentType]
    )


def _event_source(text: str) -> Any:
    """What turns text into YAML events: libyaml (C, ~4x faster), else PyYAML's pure Python.

    Only its events are used; the node graph is built by the bounded composer above.
    """
    try:
        from yaml.cyaml import CParser  # pyright: ignore[reportAttributeAccessIssue, reportUnknownVariableType]
    except ImportError:  # pragma: no cover - the locked PyYAML wheels ship libyaml
        return yaml.SafeLoader(text)
    return cast(Any, CParser(text))


class _Loader(_BoundedComposer, _Constructor, _Resolver):
    """Events from `_event_source`, composed with bounds, constructed safely."""

    def __init__(self, text: str) -> None:
        self._events: Any = _event_source(text)
        _BoundedComposer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)

    def check_event(self, *choices: Any) -> bool:
        """Whether the next event is one of `choices` (any event, if none given)."""
        return bool(self._events.check_event(*choices))

    def peek_event(self) -> Any:
        """The next event, left in place."""
        return self._events.peek_event()

    def get_event(self) -> Any:
        """The next event, consumed."""
        return self._events.get_event()

    def dispose(self) -> None:
        """Release the event source."""
        self._events.dispose()


def decode_text(data: bytes) -> str:
    """A file's bytes as text: UTF-8, a leading byte-order mark dropped (`utf-8-sig`).

    Windows PowerShell 5 writes the mark with `-Encoding utf8` (JSON parsers refuse it), and
    writes UTF-16 with `>`: that is named as such, with how to write the file again.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise UntrustedInputError(
            "UTF-16 text (its byte-order mark says so), not UTF-8: save it as UTF-8 (Windows "
            "PowerShell's `>` writes UTF-16; use `| Out-File -Encoding utf8 FILE` instead)"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UntrustedInputError(
            f"not UTF-8 text (invalid byte at offset {err.start}); save it as UTF-8"
        ) from None


def load_yaml(text: str) -> Any:
    """The one YAML document in `text`, within the bounds; UntrustedInputError if not."""
    loader = _Loader(text)
    try:
        return loader.get_single_data()  # pyright: ignore[reportUnknownMemberType]
    except yaml.YAMLError as err:
        raise UntrustedInputError(_yaml_problem(err, text.count("\n") + 1)) from None
    except RecursionError:  # only if a caller already sits deep in the stack
        raise UntrustedInputError(f"nested deeper than {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()


def _yaml_problem(err: yaml.YAMLError, lines: int) -> str:
    """`not valid YAML (line N): <problem>`, or `line N: <problem>` for input beyond a bound.

    libyaml places a problem at the end of the text one line past a last line without a newline.
    """
    mark: Any = getattr(err, "problem_mark", None)
    problem = str(getattr(err, "problem", None) or "")
    line = f"line {min(mark.line + 1, lines)}" if mark is not None else ""
    if isinstance(err, _Refused):
        return f"{line}: {problem}" if line else problem
    where = f" ({line})" if line else ""
    return f"not valid YAML{where}: {problem}" if problem else f"not valid YAML{where}"


# --------------------------------------------------------------------------- JSON
def _no_constant(name: str) -> Any:
    raise UntrustedInputError(f"{name} is not a JSON number")


def _finite(literal: str) -> float:
    """A JSON number as a float; refused when it is beyond a 64-bit float (`1e400`).

    Python would read it as infinity, which then passes for "no value" (or poisons a sum); no
    Pulumi file can hold it (the engine's numbers are 64-bit floats).
    """
    value = float(literal)
    if math.isinf(value):
        raise _OutOfRange(literal)
    return value


class _OutOfRange(ValueError):
    """A number beyond a 64-bit float; `load_json` says where it is."""

    def __init__(self, literal: str) -> None:
        super().__init__(literal)
        self.literal = literal


def _out_of_range(text: str, literal: str) -> UntrustedInputError:
    at = text.find(literal)
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    shown = literal if len(literal) <= 40 else f"{literal[:20]}...({len(literal)} characters)"
    return UntrustedInputError(
        f"number {shown} (line {line} column {column}) is beyond the range of a 64-bit float, "
        "which no Pulumi or mlgov file can hold"
    )


def load_json(text: str) -> Any:
    """The JSON value in `text`, within the nesting bound; UntrustedInputError if not."""
    try:
        value: Any = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except UntrustedInputError:
        raise
    except _OutOfRange as err:
        raise _out_of_range(text, err.literal) from None
    except RecursionError:
        raise UntrustedInputError(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as err:
        raise UntrustedInputError(f"not valid JSON ({err})", err) from None
    if too_deep(value):
        raise UntrustedInputError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and mappings in `value` nest deeper than `limit`.

    Level by level, without recursion (0.3 s for a 50 MB plan document; see bench/RESULTS.md).
    """
    level: list[Any] = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        push = below.append
        for item in level:
            children: Any = item
            if type(item) is dict:
                children = cast(dict[Any, Any], item).values()
            for child in children:
                if type(child) is dict or type(child) is list:
                    push(child)
        level = below
    return False


def quoted_key(part: object, plain: re.Pattern[str]) -> str:
    """A key from untrusted input as a message shows it (as written only if `plain` matches).

    Any other key is JSON-quoted and cut at 100 characters, so it cannot forge a line or run on.
    """
    text = str(part)
    return text if plain.fullmatch(text) else json.dumps(text[:100])
