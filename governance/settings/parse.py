"""Raw stack config in, `Settings` out, with every problem reported at once.

This is the ONLY module that reads `pulumi.Config` (`read_settings`, which also shows the
settings that do nothing as Pulumi warnings; `settings_warnings` lists them). `settings_from_config`
takes the flat map a stack file holds (`gcp:project`, `gcp:region`, `mlgov:settings`) and reports,
in one pass, structural problems (pydantic: types, ranges, unknown keys) and the checks across
sections (root.CHECKS). When a section is structurally invalid, the checks still run over the rest:
the invalid entries are set aside, and problems about what was set aside are not repeated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast, get_origin

from pydantic import ValidationError

from governance.settings import ineffective
from governance.settings.errors import ROOT, SettingsError, SettingsWarning, key_path, message
from governance.settings.provider import DEFAULT_LABELS, ZONE, provider_problems
from governance.settings.root import Settings, semantic_problems
from governance.untrusted import UntrustedInputError, load_json

# Settings fields whose value comes from Pulumi's own provider keys.
PROVIDER_KEYS = {"project": "gcp:project", "region": "gcp:region"}
_MAX_ROUNDS = 3


def _set_aside(
    data: dict[str, Any], loc: tuple[int | str, ...], copied: set[int]
) -> tuple[str, ...] | None:
    """Remove the invalid part at `loc` from `data`; the key path removed, or None if it can't be.

    A named entry (`notebooks.alice`) goes on its own; in a section (`automation.time_zone`), the
    deepest mapping key on the path, so the rest of the section keeps its values (setting the
    whole section aside would bring back its defaults, and with them problems the user does not
    have); anything else takes its top-level key.
    """
    if loc and loc[-1] == "[key]":
        # A key pydantic refuses in a mapping (a malformed scope): that entry goes, not the
        # section around it.
        loc = loc[:-1]
    if not loc:
        return None
    top = str(loc[0])
    field = Settings.model_fields.get(top)
    entries = data.get(top)
    named = field is not None and get_origin(field.annotation) is dict
    if named and len(loc) >= 2 and isinstance(entries, dict):
        cast(dict[str, Any], entries).pop(str(loc[1]), None)  # _structure copied it
        return (top, str(loc[1]))
    if not named and isinstance(entries, dict) and (path := _deepest_key(data, loc, copied)):
        return path
    data.pop(top, None)
    return (top,)


def _deepest_key(
    data: dict[str, Any], loc: tuple[int | str, ...], copied: set[int]
) -> tuple[str, ...] | None:
    """Remove the deepest key on `loc` in a mapping below the top level; its path, or None.

    The mappings on the way are copied (once each: `copied` holds the copies' ids), so the
    caller's config is untouched.
    """
    parents: list[dict[str, Any]] = [data]
    for part in loc[:-1]:
        child = parents[-1].get(part) if isinstance(part, str) else None
        if not isinstance(child, dict):
            break
        parents.append(cast(dict[str, Any], child))
    depth = len(parents) - 1  # mappings below the top level reached along loc
    while depth >= 1 and not isinstance(loc[depth], str):
        depth -= 1
    if depth < 1 or loc[depth] not in parents[depth]:
        return None
    node = data
    for part in loc[:depth]:
        child = cast(dict[str, Any], node[str(part)])
        if id(child) not in copied:
            child = dict(child)
            node[str(part)] = child
            copied.add(id(child))
        node = child
    node.pop(str(loc[depth]))
    return tuple(str(p) for p in loc[: depth + 1])


def _structure(
    data: dict[str, Any], provided: Mapping[str, str]
) -> tuple[Settings | None, list[str], list[tuple[str, ...]]]:
    """Validate; on failure set the invalid parts aside and retry, to run the semantic checks."""
    problems: list[str] = []
    set_aside: list[tuple[str, ...]] = []
    copied: set[int] = set()  # ids of the mappings below `data` that are our own copies
    # Named entries are set aside by popping them: from copies, once, not from the caller's map.
    for key, value in list(data.items()):
        field = Settings.model_fields.get(key)
        if field is not None and get_origin(field.annotation) is dict and isinstance(value, dict):
            data[key] = dict(cast(dict[str, Any], value))
    for round_ in range(_MAX_ROUNDS):
        try:
            return Settings.model_validate(data), problems, set_aside
        except ValidationError as err:
            errors = err.errors()
            if round_ > 0:
                # What setting aside broke (e.g. a required section) is no news to the user.
                return None, problems, set_aside
            for e in errors:
                loc = e["loc"]
                problems.append(f"{key_path(loc, provided)}: {message(Settings, e)}")
                removed = _set_aside(data, loc, copied)
                if removed is None:
                    return None, problems, set_aside
                set_aside.append(removed)
    return None, problems, set_aside


def _under(path: str, prefixes: set[tuple[str, ...]]) -> bool:
    parts = tuple(path.split("."))
    return any(parts[:n] in prefixes for n in range(1, len(parts) + 1))


def parse_settings(raw: Any, provided: Mapping[str, str] | None = None) -> Settings:
    """Validate raw `mlgov:settings` (plus injected project/region); pure, for tests and the CLI.

    `provided` maps a settings field to the provider key its value came from (e.g. `project` ->
    `gcp:project`), so problems name the key the user wrote.
    """
    if not isinstance(raw, Mapping):
        raise SettingsError([f"{ROOT}: must be a mapping of settings, got {type(raw).__name__}"])
    given = provided or {}
    data: dict[str, Any] = dict(cast(Mapping[str, Any], raw))
    settings, problems, set_aside = _structure(data, given)
    aside = set(set_aside)
    if settings is not None:
        problems += [
            f"{key_path(tuple(path.split('.')), given)}: {msg}"
            for path, msg in semantic_problems(settings)
            if not _under(path, aside)
        ]
    if settings is None or problems:
        raise SettingsError(problems)
    return settings


def settings_warnings(settings: Settings) -> list[SettingsWarning]:
    """Settings of a valid stack that do nothing (ineffective.py), keyed as the user wrote them.

    Every such key lives under `mlgov:settings` (the provider keys always take effect).
    """
    return [
        SettingsWarning(key_path(tuple(path.split(".")), {}), msg)
        for path, msg in ineffective.warnings(settings)
    ]


def settings_from_config(config: Mapping[str, Any]) -> Settings:
    """Settings from a flat Pulumi config map (`{"gcp:project": ..., "mlgov:settings": {...}}`).

    Values may be JSON strings, as the Pulumi CLI passes structured config.
    """
    raw = config.get(ROOT)
    if isinstance(raw, str):
        try:
            raw = load_json(raw)
        except UntrustedInputError as err:
            raise SettingsError([f"{ROOT}: {err}"]) from None
    if raw is None:
        raise SettingsError(
            [
                f"{ROOT}: required key is missing: mlgov's platform program (build_platform) "
                "reads the stack's settings from it; `mlgov init --stack NAME` writes a minimal one"
            ]
        )
    if not isinstance(raw, Mapping):
        raise SettingsError([f"{ROOT}: must be a mapping of settings"])
    merged: dict[str, Any] = dict(cast(Mapping[str, Any], raw))
    provided: dict[str, str] = {}
    conflicts: list[str] = []
    for field_name, provider_key in PROVIDER_KEYS.items():
        value = config.get(provider_key)
        if field_name in merged:
            if value is not None and merged[field_name] != value:
                conflicts.append(
                    f"{ROOT}.{field_name}: {merged[field_name]!r} differs from "
                    f"{provider_key} {value!r}; set it once, in {provider_key}"
                )
                # The provider key wins, so the other checks don't report the conflict again.
                merged[field_name] = value
            continue
        provided[field_name] = provider_key
        if value is not None:
            merged[field_name] = value
    conflicts += provider_problems(config)
    try:
        settings = parse_settings(merged, provided)
    except SettingsError as err:
        raise SettingsError([*conflicts, *err.problems]) from None
    if conflicts:
        raise SettingsError(conflicts)
    return settings


def read_settings() -> Settings:
    """The stack's settings, read from Pulumi config (the only pulumi.Config reader).

    Settings that do nothing are shown as Pulumi warnings (`pulumi up` prints them).
    """
    import pulumi

    gcp = pulumi.Config("gcp")
    config: dict[str, Any] = {
        "gcp:project": gcp.get("project"),
        "gcp:region": gcp.get("region"),
        DEFAULT_LABELS: gcp.get("defaultLabels"),
        ZONE: gcp.get("zone"),
        ROOT: pulumi.Config("mlgov").get_object("settings"),
    }
    settings = settings_from_config(config)
    for warning in settings_warnings(settings):
        pulumi.log.warn(str(warning))
    return settings
