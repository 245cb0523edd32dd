"""Read the generated input-schema archive, lazily, one resource type at a time.

`pulumi_inputs.zip` (written by generate.py from the installed pulumi-gcp and pulumi-random
SDKs) holds one deflated JSON member per resource type token, named `<token>.json`, plus
`_meta.json` ({"format", "packages": {distribution: version}, "resources"}). Opening the archive
reads only its central directory; a type's member is inflated and parsed the first time a plan
uses that type, and cached. Pure stdlib: no pulumi import, so it runs in the policy pack and in
`check` alike.

A resource member is {"token", "args", "properties", "required"?, "outputs"?, "types"?}:
`properties` maps wire (camelCase) names to nodes, `required` lists required wire names,
`outputs` lists output-only names (the provider may echo them into checked inputs), and `types`
maps nested object type names to {"properties", "required"?}. A node is one of "string",
"number", "integer", "boolean", "any", "asset", "archive", {"array": node}, {"map": node},
{"object": type name} or {"enum": [values]} (a string with documented values). The validator
that walks these lives in validate.py.
"""

from __future__ import annotations

import json
import threading
import zipfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final, cast

ARCHIVE: Final = Path(__file__).resolve().parent / "pulumi_inputs.zip"
FORMAT: Final = 1
META_MEMBER: Final = "_meta.json"
_SUFFIX: Final = ".json"
_lock = threading.Lock()


def member_name(token: str) -> str:
    """The archive member that describes `token`."""
    return token + _SUFFIX


@cache
def _archive() -> zipfile.ZipFile:
    return zipfile.ZipFile(ARCHIVE)


@cache
def known_types() -> frozenset[str]:
    """Every resource type token the archive describes."""
    names = _archive().namelist()
    return frozenset(n[: -len(_SUFFIX)] for n in names if n != META_MEMBER and n.endswith(_SUFFIX))


@cache
def meta() -> Mapping[str, Any]:
    """The archive's `_meta.json`: format, SDK versions it was generated from, resource count."""
    return cast(Mapping[str, Any], json.loads(_read(META_MEMBER)))


def package_versions() -> Mapping[str, str]:
    """Distribution name -> version the archive was generated from (e.g. pulumi-gcp: 10.2.0)."""
    return cast(Mapping[str, str], meta()["packages"])


@cache
def resource_entry(token: str) -> Mapping[str, Any] | None:
    """The raw archive entry for `token`, None when the archive does not describe it."""
    if token not in known_types():
        return None
    return cast(Mapping[str, Any], json.loads(_read(member_name(token))))


def _read(name: str) -> bytes:
    # One ZipFile shared by threads: reads seek the same file handle, so serialize them.
    with _lock:
        return _archive().read(name)
