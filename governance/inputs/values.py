"""Property values from Pulumi's JSON formats, made safe to price, check and post in a PR.

What the engine serialises (FORMAT §1.7) becomes what a plan document's `inputs` hold:

- keys starting with `__` (`__defaults`, `__meta`: provider bookkeeping) are dropped at every
  level, inside lists too;
- the unknown sentinel stays as it is, at any depth: the rules and the cost models already read
  it as "not known until apply" (mlgov_policies.props), so nothing is invented for it;
- every secret becomes `"[secret]"`: the digest's own `"[secret]"`, the state's
  `{4dabf...: 1b47..., ciphertext}` and `--show-secrets`' `plaintext` (never copied: plan
  documents end up in pull-request comments), and, as `plan` does for mlgov's own program
  (offline.py), fields named like credentials even when the program did not mark them secret;
- the other signature objects: assets and archives as `{"kind", "path"|"uri"}` (what offline.py
  writes), a resource reference as its id, a non-UTF-8 byte string as `b"<base64>"` (the text the
  digest itself prints since CLI 3.252), a NaN/Inf float as the string "nan"/"inf"/"-inf" (which
  the number readers treat as absent), and a signature this module does not know as unknown.

Pure: no I/O. `Cleaner` counts what it blinded and kept unknown, for the reader's summary.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, cast

UNKNOWN: Final = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""`computedValuePlaceholder` (FORMAT §1.7); also the unknown provider ID (FORMAT §1.6)."""
SECRET: Final = "[secret]"  # noqa: S105 - the redaction marker, not a password
"""What the digest prints for every secret (FORMAT §1.7), and what plan documents hold."""
SIGNATURE_KEY: Final = "4dabf18193072939515e22adb298388d"
SECRET_SIG: Final = "1b47061264138c4ac30d75fd1eb44270"  # noqa: S105 - a type signature
ASSET_SIG: Final = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG: Final = "0def7320c3a5731c473e5ecbe6d01bc7"
RESOURCE_REF_SIG: Final = "5cf8f73096256a8f31e491e813e4eb8e"
BYTES_SIG: Final = "803fd3297a5875dc03ca845dda5d2a98"
FLOAT_SIG: Final = "8ad145fe-0d11-4827-bfd7-1abcbf086f5c"
_SCALARS: Final = frozenset({int, float, bool, type(None)})
SECRET_FIELDS: Final = frozenset({"password", "secretData", "privateKey"})
"""What governance/review/offline.py blinds in mlgov's own program; `is_secret_field` blinds these
and the other spellings other programs' providers use (pinned by tests/formats)."""
_SECRET_PARTS: Final = ("password", "passphrase", "privatekey")


@cache  # a file repeats the same few hundred property names thousands of times
def is_secret_field(key: str) -> bool:
    """Whether a property holds a credential by its name (`masterPassword`, `clientSecret`).

    A plan document must not carry one in plain text whichever way it was made: providers only
    mark secret what the program or their schema marks (the AWS sample's RDS `password` and
    `masterPassword` are plain text in the preview, FORMAT §1.7).
    """
    lowered = key.lower()
    return (
        key in SECRET_FIELDS
        or any(part in lowered for part in _SECRET_PARTS)
        or (key.endswith("Secret") and key[:1].islower())
    )


@dataclass
class Cleaner:
    """Cleans property trees (see the module docstring) and counts what it did."""

    secrets: int = 0
    """Values blinded to "[secret]" (marked secret, or a password-like field)."""
    unknowns: int = 0
    """Values kept unknown (the sentinel, or a signature object nobody can read)."""

    def inputs(self, value: Any) -> dict[str, Any]:
        """A resource's inputs (an object; anything else, e.g. absent, is no inputs)."""
        cleaned: Any = self.value(value) if isinstance(value, dict) else {}
        return cast(dict[str, Any], cleaned) if isinstance(cleaned, dict) else {}

    def value(self, value: Any, key: str = "") -> Any:
        """One property value, cleaned recursively."""
        if isinstance(value, str):
            if value == UNKNOWN:
                self.unknowns += 1
                return value
            if value == SECRET or (value and is_secret_field(key)):
                self.secrets += 1
                return SECRET
            return value
        if isinstance(value, list):
            return [self.value(item) for item in cast(list[Any], value)]
        if isinstance(value, dict):
            obj = cast(dict[str, Any], value)
            if SIGNATURE_KEY in obj:
                return self._signed(obj)
            if obj and is_secret_field(key):
                self.secrets += 1
                return SECRET
            return self._object(obj)
        return value

    def _object(self, obj: dict[str, Any]) -> dict[str, Any]:
        # The hot loop of a large preview: plain numbers, booleans and ordinary strings are
        # copied without a call (about half the time of reading a 5,000-resource preview).
        out: dict[str, Any] = {}
        for k, v in obj.items():
            if k.startswith("__"):
                continue
            kind: object = type(cast(object, v))
            if kind in _SCALARS or (
                kind is str and v != UNKNOWN and v != SECRET and not is_secret_field(k)
            ):
                out[k] = v
            else:
                out[k] = self.value(v, k)
        return out

    def _signed(self, obj: dict[str, Any]) -> Any:
        """A special object keyed by the signature (FORMAT §1.7 table)."""
        signature = obj.get(SIGNATURE_KEY)
        if signature == SECRET_SIG:
            self.secrets += 1
            return SECRET
        if signature in (ASSET_SIG, ARCHIVE_SIG):
            return _asset(obj, asset=signature == ASSET_SIG)
        if signature == RESOURCE_REF_SIG:
            ref_id = obj.get("id")
            if isinstance(ref_id, str) and ref_id and ref_id != UNKNOWN:
                return ref_id
        elif signature == BYTES_SIG and isinstance(obj.get("value"), str):
            return f'b"{obj["value"]}"'
        elif signature == FLOAT_SIG and (number := _float(obj.get("value"))) is not None:
            return str(number)
        self.unknowns += 1
        return UNKNOWN


def _asset(obj: dict[str, Any], *, asset: bool) -> dict[str, Any]:
    """An asset or archive as offline.py describes one (its kind and where it comes from)."""
    if isinstance(obj.get("uri"), str):
        kind, where = "Remote", {"uri": obj["uri"]}
    elif isinstance(obj.get("path"), str):
        kind, where = "File", {"path": obj["path"]}
    elif asset:
        kind, where = "String", {}  # the text itself may be large or sensitive: left out
    else:
        kind, where = "Asset", {"assets": sorted(cast(dict[str, Any], obj.get("assets") or {}))}
    return {"kind": kind + ("Asset" if asset else "Archive"), **where}


def _float(value: Any) -> float | None:
    """A NaN/Inf float from its hex bits (FORMAT §1.7), or None when unreadable."""
    if not isinstance(value, str):
        return None
    try:
        number = struct.unpack(">d", bytes.fromhex(value.removeprefix("0x").zfill(16)))[0]
    except (ValueError, struct.error):
        return None
    return number if isinstance(number, float) and not math.isfinite(number) else None
