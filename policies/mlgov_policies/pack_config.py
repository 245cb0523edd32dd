"""A CrossGuard policy-pack config (`--policy-pack-config`) as the offline check reads it.

The shape is the Pulumi engine's (pulumi/pulumi, `parsePolicyPackConfig` and `applyConfig`): an
object whose keys are policy names or `all`; a value is an enforcement level, or an object with
an optional `enforcementLevel` and the policy's config properties. `all` sets every policy's
level; a policy's own `enforcementLevel` wins over it. `mlgov policy-config --stack NAME` writes
this shape from a stack's settings.

mlgov reads it more strictly than the engine, which ignores names and keys no policy declares:
an unknown policy, a key its policy does not read, a wrong value, the `remediate` level (mlgov's
policies validate; none remediates) and one key given two values by two policies are errors,
all reported at once, each naming its key path, with a did-you-mean. The offline check holds a
stack to one configuration, so a key's value applies to every rule that reads it
(`PackConfig.values`); `partial_keys` names keys set for some of their rules only, where
CrossGuard would give the others the default. Which rules run by default is selection.py's
business; reading the file is the CLI's. Pure: no pulumi, no I/O.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from mlgov_policies.config import PolicyConfigError, parse_value
from mlgov_policies.registry import ALL_RULES, RULES

Level = Literal["mandatory", "advisory", "disabled"]
LEVELS: tuple[Level, ...] = ("mandatory", "advisory", "disabled")
ALL = "all"
LEVEL_KEY = "enforcementLevel"


class PackConfigError(ValueError):
    """A policy-pack config that cannot be used; `problems` name each key path."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class PackConfig:
    """A checked policy-pack config: levels by policy, and one value per config key."""

    all_level: Level | None = None
    levels: Mapping[str, Level] = field(default_factory=dict[str, Level])
    """Policy name -> the level its own entry sets."""
    named: tuple[str, ...] = ()
    """Every policy the config has an entry for, in file order."""
    values: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """PolicyConfig key -> its (normalised) value, the same for every policy that set it."""
    set_by: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    """PolicyConfig key -> the policies whose entries set it."""
    source: str = ""
    """Where the config was read from (for reports)."""

    def level(self, name: str) -> Level | None:
        """The level this config gives policy `name` (its own entry, else `all`), or None."""
        own = self.levels.get(name)
        return own if own is not None else self.all_level

    def partial_keys(self) -> dict[str, tuple[str, ...]]:
        """Keys set for some of the rules that read them -> the rules left out."""
        found: dict[str, tuple[str, ...]] = {}
        for key, setters in self.set_by.items():
            left_out = tuple(
                r.name for r in RULES if key in r.config_keys and r.name not in setters
            )
            if left_out:
                found[key] = left_out
        return found

    def as_dict(self) -> dict[str, Any]:
        """The config in CrossGuard's shape, every key at every policy that reads it."""
        out: dict[str, Any] = {}
        if self.all_level is not None:
            out[ALL] = self.all_level
        for name in self.named:
            entry: dict[str, Any] = {}
            if name in self.levels:
                entry[LEVEL_KEY] = self.levels[name]
            rule = ALL_RULES.get(name)
            keys = rule.config_keys if rule is not None else ()
            entry.update({k: _plain(self.values[k]) for k in keys if k in self.values})
            out[name] = entry
        return out


def _plain(value: Any) -> Any:
    return list(cast(tuple[Any, ...], value)) if isinstance(value, tuple) else value


def _did_you_mean(word: str, choices: Collection[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _readers(key: str) -> list[str]:
    return [r.name for r in RULES if key in r.config_keys]


class _Reader:
    """Collects the problems of one config, then builds the PackConfig."""

    def __init__(self, level_only: Collection[str]) -> None:
        self.level_only = frozenset(level_only)
        self.problems: list[str] = []
        self.all_level: Level | None = None
        self.levels: dict[str, Level] = {}
        self.named: list[str] = []
        self.values: dict[str, Any] = {}
        self.set_by: dict[str, list[str]] = {}

    def level(self, path: str, value: object) -> Level | None:
        if value in LEVELS:
            return value
        if value == "remediate":
            self.problems.append(
                f"{path}: 'remediate' is not a level mlgov's policies take: they validate and "
                "none remediates; use 'mandatory' (or 'advisory', 'disabled')"
            )
            return None
        hint = _did_you_mean(value, LEVELS) if isinstance(value, str) else ""
        self.problems.append(
            f"{path}: {value!r} is not an enforcement level{hint}; use one of {', '.join(LEVELS)}"
        )
        return None

    def entry(self, name: str, value: object) -> None:
        known = name in ALL_RULES or name in self.level_only
        if name != ALL and not known:
            names = [*ALL_RULES, *sorted(self.level_only), ALL]
            self.problems.append(
                f"{name}: not a policy of mlgov's pack{_did_you_mean(name, names)} "
                "(`mlgov policy-config --stack NAME` writes a valid file; README: Policy checks)"
            )
            return
        if name != ALL:
            self.named.append(name)  # listing a policy asks for it, even with no level
        if isinstance(value, str):
            level = self.level(name, value)
            self._set_level(name, level)
            return
        if not isinstance(value, Mapping):
            self.problems.append(
                f"{name}: must be an enforcement level ({', '.join(LEVELS)}) or an object with "
                f"{LEVEL_KEY} and the policy's settings, got {value!r}"
            )
            return
        body = cast(Mapping[object, Any], value)
        if LEVEL_KEY in body:
            self._set_level(name, self.level(f"{name}.{LEVEL_KEY}", body[LEVEL_KEY]))
        elif name == ALL:
            self.problems.append(f"{ALL}: give {LEVEL_KEY} (all takes no settings)")
        for key, item in body.items():
            if key != LEVEL_KEY:
                self.setting(name, str(key), item)

    def _set_level(self, name: str, level: Level | None) -> None:
        if level is None:
            return
        if name == ALL:
            self.all_level = level
        else:
            self.levels[name] = level

    def setting(self, name: str, key: str, value: Any) -> None:
        path = f"{name}.{key}"
        rule = ALL_RULES.get(name)
        keys = rule.config_keys if rule is not None else ()
        if key not in keys:
            self.problems.append(f"{path}: {self._not_read(name, key, keys)}")
            return
        if value is None:
            return  # null: the default, as in a plan document's policy_config
        try:
            parsed = parse_value(key, value)
        except PolicyConfigError as err:
            self.problems.append(f"{name}.{err.key}: {err.problem}")
            return
        setters = self.set_by.setdefault(key, [])
        if key in self.values and self.values[key] != parsed:
            self.problems.append(
                f"{path}: {_plain(parsed)!r} differs from {_plain(self.values[key])!r} given for "
                f"{setters[0]}: the offline check holds the stack to one {key}; give every "
                "policy the same value"
            )
            return
        self.values[key] = parsed
        setters.append(name)

    @staticmethod
    def _not_read(name: str, key: str, keys: tuple[str, ...]) -> str:
        if name == ALL:
            return f"{ALL} takes only {LEVEL_KEY}; give {key!r} to the policies that read it"
        if not keys:
            return f"{name} takes no settings, only {LEVEL_KEY}"
        readers = _readers(key)
        elsewhere = f"; {key!r} is read by {', '.join(readers)}" if readers else ""
        hint = "" if readers else _did_you_mean(key, keys)
        return (
            f"{name} has no setting {key!r}{hint} (it reads: {', '.join(keys)}, "
            f"and {LEVEL_KEY}){elsewhere}"
        )

    def config(self, source: str) -> PackConfig:
        if self.problems:
            raise PackConfigError(self.problems)
        return PackConfig(
            source=source,
            all_level=self.all_level,
            levels=dict(self.levels),
            named=tuple(dict.fromkeys(self.named)),
            values=dict(self.values),
            set_by={k: tuple(v) for k, v in self.set_by.items()},
        )


def parse_pack_config(
    raw: object, *, level_only: Collection[str] = (), source: str = ""
) -> PackConfig:
    """A checked PackConfig from a parsed JSON/YAML value.

    `level_only` names findings outside the CrossGuard pack (mlgov's cost findings) whose level
    the config may set too (the engine ignores names it does not know, so such a file still
    works with CrossGuard).

    Raises:
        PackConfigError: every problem, each naming its key path.
    """
    if not isinstance(raw, Mapping):
        shown = "nothing" if raw is None else type(raw).__name__
        raise PackConfigError(
            [f"<root>: must be an object of policy names (or `{ALL}`), got {shown}"]
        )
    reader = _Reader(level_only)
    for name, value in cast(Mapping[object, Any], raw).items():
        reader.entry(str(name), value)
    return reader.config(source)
