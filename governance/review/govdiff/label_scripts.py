r"""Labels that only look right: values mixing scripts, or holding characters that pass for others.

GCP label values may hold international lowercase letters, so `research` spelled with a
Cyrillic `\u0435` for its `e` is a valid label that no billing report, budget filter or
`team=research` query will ever match: relabelling every resource that way moves its spend out
of its team and cost center while every table still reads "research". `suspicious(text)` says
why a key or value is suspect, using Unicode's own data as the confusable-homoglyphs library
ships it (its `confusables.json` and `categories.json` are built from Unicode's confusables.txt
and Scripts.txt):

- it mixes scripts (Latin with Cyrillic, Greek, ...; digits and punctuation are common to all);
- it holds a character outside Latin that Unicode lists as confusable with another (Cyrillic
  `\u0430` for `a`);
- it is not in Unicode normal form NFKC (a fullwidth `\uff41`, a ligature `\ufb01`: each has a
  plain spelling that looks the same and is a different label).

Pure ASCII is never suspect, and is answered without loading the library's data.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

_COMMON = ["COMMON", "LATIN"]


def shown(text: str) -> str:
    r"""The text with every non-ASCII character as its code point (`r\u0435search`)."""
    return "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in text)


def suspicious(text: str) -> str | None:
    """Why `text` looks like something it is not, or None."""
    if text.isascii():
        return None
    # Imported on first use: a stack whose labels are all ASCII never loads Unicode's tables.
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

    module = cast(Any, confusables)
    if module.is_mixed_script(text):
        return "mixes scripts"
    found = cast(
        list[Mapping[str, Any]], module.is_confusable(text, preferred_aliases=_COMMON) or []
    )
    if found:
        first = found[0]
        char = str(first.get("character"))
        homoglyphs = cast(list[Mapping[str, Any]], first.get("homoglyphs") or [])
        like = next((str(h.get("c")) for h in homoglyphs if str(h.get("c")).isascii()), None)
        alike = f" (looks like {like!r})" if like else ""
        return f"holds {unicodedata.name(char, shown(char))} {shown(char)}{alike}"
    if unicodedata.normalize("NFKC", text) != text:
        return f"is not in normal form (NFKC: {shown(unicodedata.normalize('NFKC', text))})"
    return None


LABEL_FIELDS = ("labels", "resourceLabels", "userLabels", "effectiveLabels")


def _label_maps(node: Any) -> Iterator[Mapping[str, Any]]:
    stack: list[Any] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            mapping = cast(Mapping[str, Any], item)
            for field in LABEL_FIELDS:
                labels = mapping.get(field)
                if isinstance(labels, Mapping):
                    yield cast(Mapping[str, Any], labels)
            stack.extend(mapping.values())
        elif isinstance(item, list):
            stack.extend(cast(list[Any], item))


def values(
    resources: Sequence[Mapping[str, Any]],
) -> Iterator[tuple[str, str, tuple[str, ...], str]]:
    """One governed value per label key whose key or value is suspect, across every resource.

    The value lists each suspect spelling with why, and how many resources carry it (ASCII
    escapes, so the comment shows what the lookalike hides).
    """
    seen: dict[str, dict[str, int]] = {}
    for r in resources:
        for labels in _label_maps(r.get("inputs")):
            for key, value in labels.items():
                for part, text in (("key", str(key)), ("value", str(value))):
                    if (why := suspicious(text)) is not None:
                        entry = f"{part} {shown(text)}: {why}"
                        counts = seen.setdefault(shown(str(key)), {})
                        counts[entry] = counts.get(entry, 0) + 1
    for key, entries in sorted(seen.items()):
        listed = tuple(sorted(f"{e} (on {n} resource(s))" for e, n in entries.items()))
        yield f"labels.{key}.lookalike", "label.lookalike", listed, "stack"
