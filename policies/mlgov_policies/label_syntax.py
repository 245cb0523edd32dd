r"""GCP's label syntax, one definition for the settings, the Labels value object and the rules.

Resource Manager's "Requirements for labels" (https://cloud.google.com/resource-manager/docs/
labels-overview#requirements) and the API field docs give the expressions: a key is
`[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}`, a value `[\p{Ll}\p{Lo}\p{N}_-]{0,63}`:
lowercase letters, international characters (letters without case, such as CJK), digits,
`_` and `-`, at most 63 characters; a value may be empty. Python's `re` has no `\p{...}`, so the
Unicode categories are checked with `unicodedata`. Pure.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_LENGTH: Final = 63
_LETTERS: Final = frozenset({"Ll", "Lo"})
_OTHERS: Final = frozenset({"Ll", "Lo", "Nd", "Nl", "No"})


def _body(text: str) -> bool:
    return all(c in "_-" or unicodedata.category(c) in _OTHERS for c in text)


def key_ok(key: str) -> bool:
    """Whether `key` is a label key GCP accepts."""
    return (
        0 < len(key) <= MAX_LENGTH and unicodedata.category(key[0]) in _LETTERS and _body(key[1:])
    )


def value_ok(value: str) -> bool:
    """Whether `value` is a label value GCP accepts (empty is fine)."""
    return len(value) <= MAX_LENGTH and _body(value)


KEY_RULE: Final = (
    "start with a lowercase letter and contain only lowercase letters, digits, '_' or '-' "
    "(at most 63 characters; international letters count as letters)"
)
VALUE_RULE: Final = (
    "contain only lowercase letters, digits, '_' or '-' (at most 63 characters; international "
    "letters count as letters)"
)
