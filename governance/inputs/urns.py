"""Pulumi URNs and provider references, as both formats spell them (FORMAT §1.6).

A URN is `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, the qualified type being the
parent types and the resource's own joined with `$`. A provider reference is
`<provider URN>::<provider ID>`, split at the last `::`; the ID is the unknown sentinel while
the provider is still to be created. Default providers are named `default` or
`default_<version>[...]` (FORMAT §1.6, `DefaultName`). Pure string handling.
"""

from __future__ import annotations

from dataclasses import dataclass

_PREFIX = "urn:pulumi:"


@dataclass(frozen=True, slots=True)
class Urn:
    """The parts of a URN."""

    stack: str
    project: str
    qualified_type: str
    name: str

    @property
    def parent_types(self) -> str:
        """The `$`-joined types of the parents ("" for a child of the stack)."""
        return self.qualified_type.rpartition("$")[0]


def parse_urn(urn: str) -> Urn | None:
    """The parts of a URN; None when `urn` is not one."""
    if not urn.startswith(_PREFIX):
        return None
    parts = urn[len(_PREFIX) :].split("::", 3)  # the name is the rest: it may contain "::"
    if len(parts) != 4 or not parts[3]:
        return None
    return Urn(*parts)


def provider_urn(reference: str) -> str:
    """The provider URN of a provider reference (split at the last `::`)."""
    return reference.rpartition("::")[0] if "::" in reference else reference


def is_default_provider(urn: str) -> bool:
    """Whether a provider URN names a default provider (`default`, `default_7_2_1`, ...)."""
    parsed = parse_urn(urn)
    name = parsed.name if parsed is not None else ""
    return name == "default" or name.startswith("default_")
