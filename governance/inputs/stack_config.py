"""A stack's config as `pulumi up` assembles it, so mlgov checks the values Pulumi deploys.

`pulumi up` does not run the program with the stack file's `config:` map as written. It
(pulumi/pulumi sdk/go/common: resource/config/key.go, workspace/config.go and project.go):

- reads each key with `config.ParseKey`: `<namespace>:<name>`, or the old form
  `<namespace>:config:<name>`, which is the same key (`gcp:config:defaultLabels` IS
  `gcp:defaultLabels`); any other key makes the stack file unreadable;
- merges the ESC environments the stack file imports (`environment:`): their
  `values.pulumiConfig` fills every key the stack file does not set, and is merged (JSON merge
  patch, the stack's values winning) into object keys it does set, so an environment can add
  `automation.dry_run: true` inside `mlgov:settings`. mlgov cannot open an environment offline;
- applies the project's `config:` (Pulumi.yaml) to every key the stack does not set: a key
  without a namespace is the project's (`settings` in project `mlgov` is `mlgov:settings`); a
  short-hand value is a project key's `default` or another namespace's `value`; `default` wins
  over `value`; a project key with neither, that the stack does not set, is an error.

`effective_config` repeats the first and the last exactly and reports the ESC environments, which
the plan records and the governance diff shows (an import that changes is a weakening; in prod a
stack that imports one is a mandatory finding: it could switch governance off unseen). Governance
keys (`mlgov:*` and the gcp provider keys the settings are checked against) must be plain text:
an encrypted `secure:` value there is refused, naming the key, as it cannot be read offline. Pure.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from governance.untrusted import quoted_key

GOVERNANCE_PROVIDER_KEYS = frozenset({"gcp:project", "gcp:region", "gcp:zone", "gcp:defaultLabels"})
"""gcp provider keys the settings are checked against (settings/parse.py, settings/provider.py)."""
MODELLED_KEYS = frozenset({"mlgov:settings", "mlgov:plan", "gcp:project", "gcp:region"})
"""Keys whose values the plan document already shows through the settings (project, region,
limits, every resource); every other key is listed under `stack_config.keys`."""
ENCRYPTED = "(encrypted, sha256 {})"
"""How a `secure:` value is shown: a short digest of its ciphertext, so a new value shows as a
change (re-encrypting the same value shows as one too; what it was is not shown)."""
_PLAIN = re.compile(r"[A-Za-z0-9_.:/@-]{1,100}")


def _key(part: object) -> str:
    """A key as shown in a message: quoted unless plain, so a hostile key cannot forge a line."""
    return quoted_key(part, _PLAIN)


_DECLARATION_KEYS = frozenset({"type", "description", "items", "default", "value", "secret"})


class ConfigProblems(ValueError):
    """Keys Pulumi would refuse, or mlgov cannot read; one line each, naming the key."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class StackConfig:
    """The config `pulumi up` gives the program (bar ESC), and where it came from."""

    config: dict[str, Any]
    """Every key as `<namespace>:<name>`, the project's config applied."""
    from_project: tuple[str, ...] = ()
    """Keys whose value is the project's (Pulumi.yaml `config:`), not the stack file's."""
    environments: tuple[str, ...] = ()
    """ESC environments the stack file imports (their values are not in `config`)."""
    shown: dict[str, Any] = field(default_factory=dict[str, Any])
    """For the plan document: the keys not in MODELLED_KEYS, encrypted values as ENCRYPTED."""


def parse_key(raw: object) -> str | None:
    """The key Pulumi reads (`gcp:config:zone` -> `gcp:zone`), or None if it reads none."""
    if not isinstance(raw, str):
        return None
    parts = raw.split(":")
    if len(parts) == 2:
        return raw
    if len(parts) == 3 and parts[1] == "config" and parts[0] and parts[2]:
        return f"{parts[0]}:{parts[2]}"
    return None


def is_secure(value: object) -> bool:
    """Pulumi's encrypted value: a mapping with the one key `secure`."""
    return isinstance(value, Mapping) and list(cast(Mapping[Any, Any], value)) == ["secure"]


def _secure_paths(value: Any, path: str) -> Iterator[str]:
    """Key paths of encrypted values in `value` (Pulumi decrypts them inside objects too)."""
    if is_secure(value):
        yield path
    elif isinstance(value, Mapping):
        for k, v in cast(Mapping[Any, Any], value).items():
            yield from _secure_paths(v, f"{path}.{_key(k)}")
    elif isinstance(value, list):
        for i, v in enumerate(cast(list[Any], value)):
            yield from _secure_paths(v, f"{path}.{i}")


def stack_keys(raw: Mapping[Any, Any]) -> dict[str, Any]:
    """A stack file's `config:` with each key as Pulumi reads it; ConfigProblems if it can't."""
    out: dict[str, Any] = {}
    written: dict[str, str] = {}
    problems: list[str] = []
    for key, value in raw.items():
        parsed = parse_key(key)
        if parsed is None:
            problems.append(
                f"config.{_key(key)}: not a Pulumi config key (keys are <namespace>:<name>, "
                "such as gcp:project or mlgov:settings); Pulumi refuses this stack file"
            )
            continue
        if parsed in out:
            problems.append(
                f"config.{_key(key)}: the same key as {_key(written[parsed])} (Pulumi reads "
                f"<namespace>:config:<name> as <namespace>:<name>); set {_key(parsed)} once"
            )
            continue
        out[parsed] = value
        written[parsed] = str(key)
    problems += _encrypted_governance(out)
    if problems:
        raise ConfigProblems(problems)
    return out


def _encrypted_governance(config: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    for key, value in config.items():
        if key.startswith("mlgov:") or key in GOVERNANCE_PROVIDER_KEYS:
            problems += [
                f"{path}: an encrypted (secure:) value; mlgov and the reviewers of a pull "
                "request cannot read it, so governance settings must be plain text"
                for path in _secure_paths(value, key)
            ]
    return problems


def environments_of(raw: object) -> tuple[str, ...]:
    """The ESC environments a stack file's `environment:` imports (names as written).

    Either a list of names, or an environment definition (`imports:` and maybe inline `values:`,
    shown as `(inline values)`): both are evaluated by Pulumi Cloud, never offline.
    """
    if raw is None:
        return ()
    if isinstance(raw, list):
        return tuple(str(x) for x in cast(list[Any], raw))
    if isinstance(raw, Mapping):
        definition = cast(Mapping[str, Any], raw)
        imports = definition.get("imports")
        names = [str(x) for x in cast(list[Any], imports)] if isinstance(imports, list) else []
        if definition.get("values") is not None:
            names.append("(inline values)")
        return tuple(names) or ("(an environment definition)",)
    return (str(raw),)


# --------------------------------------------------------------------------- project config
@dataclass(frozen=True)
class Declared:
    """One key of the project's `config:`: its value for stacks that do not set the key."""

    key: str
    value: Any = None
    has_value: bool = False
    required: bool = False
    """A project key with neither default nor value: every stack must set it."""


def project_config(raw: object, project: str, where: str) -> tuple[Declared, ...]:
    """The project's `config:` (Pulumi.yaml) as Pulumi applies it; ConfigProblems if invalid."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise ConfigProblems([f"{where}: config: must be a mapping of config keys"])
    problems: list[str] = []
    declared: list[Declared] = []
    for key, entry in cast(Mapping[Any, Any], raw).items():
        name = str(key)
        parsed = f"{project}:{name}" if ":" not in name else parse_key(name)
        if parsed is None:
            problems.append(f"{where}: config.{_key(name)}: not a Pulumi config key")
            continue
        own = parsed.startswith(f"{project}:")
        if isinstance(entry, str | bool | int | list) and not isinstance(entry, float):
            # Pulumi's short-hand: a project key's default, another namespace's value.
            declared.append(Declared(parsed, entry, True))
            continue
        if entry is None:  # an empty declaration: neither default nor value
            declared.append(Declared(parsed, required=own))
            continue
        if not isinstance(entry, Mapping):
            problems.append(
                f"{where}: config.{_key(name)}: a value, or a mapping of {_declaration()}"
            )
            continue
        decl = cast(Mapping[str, Any], entry)
        if unknown := sorted(str(k) for k in decl if k not in _DECLARATION_KEYS):
            problems.append(
                f"{where}: config.{_key(name)}.{_key(unknown[0])}: not allowed here "
                f"({_declaration()})"
            )
            continue
        # Pulumi: `default` wins over `value` when both are given.
        for part in ("default", "value"):
            if decl.get(part) is not None:
                declared.append(Declared(parsed, decl[part], True))
                break
        else:
            declared.append(Declared(parsed, required=own))
    problems += _encrypted_governance({d.key: d.value for d in declared if d.has_value})
    if problems:
        raise ConfigProblems(problems)
    return tuple(declared)


def _declaration() -> str:
    return ", ".join(sorted(_DECLARATION_KEYS))


def effective_config(
    stack: Mapping[str, Any],
    declared: tuple[Declared, ...],
    environments: tuple[str, ...],
    where: str,
) -> StackConfig:
    """The stack's keys with the project's applied, as `pulumi up` passes them (bar ESC)."""
    config = dict(stack)
    from_project: list[str] = []
    missing: list[str] = []
    for d in sorted(declared, key=lambda d: d.key):
        if d.key in config:
            continue
        if d.has_value:
            config[d.key] = d.value
            from_project.append(d.key)
        elif d.required and not environments:  # an ESC environment may supply it
            missing.append(d.key)
    if missing:
        raise ConfigProblems(
            [
                f"{where}: config.{_key(key)}: required by the project's config (Pulumi.yaml) and "
                "not set; Pulumi refuses to run the stack"
                for key in missing
            ]
        )
    shown = {k: _shown(v) for k, v in config.items() if k not in MODELLED_KEYS}
    return StackConfig(config, tuple(from_project), environments, shown)


def _shown(value: Any) -> Any:
    if is_secure(value):
        cipher = str(cast(Mapping[str, Any], value)["secure"]).encode("utf-8", "replace")
        return ENCRYPTED.format(hashlib.sha256(cipher).hexdigest()[:12])
    return value
