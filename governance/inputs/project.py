"""The user's Pulumi project and its stack files, found from the current directory.

`mlgov plan --stack dev` works like `pulumi preview -s dev`, and finds the files Pulumi finds
(pulumi/pulumi sdk/go/common/workspace: paths.go, project.go): the project file is the first of
`Pulumi.json`, `Pulumi.yaml`, `Pulumi.yml` in the current directory or the nearest parent; the
stack file is `Pulumi.<stack>` with the project file's extension (a `Pulumi.yml` project reads
`Pulumi.prod.yml`, never `Pulumi.prod.yaml`), in `stackConfigDir` (or in the old `config: <dir>`);
the program is the one `main` names (default: `__main__.py` beside the project file), and only a
`python` runtime runs it (`runtime: yaml` would deploy the project file's own `resources:`, which
mlgov would never see, so any other runtime is refused). The config a stack runs with is the stack
file's and the project's together, as stack_config.py assembles it. Every file is read through
`read_text`, so a missing, unreadable, binary, empty or oversized file is one clear error (exit 2),
never a traceback; YAML is parsed by governance/untrusted.py, which bounds alias expansion and
nesting.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from governance.errors import CliError, warn
from governance.inputs.stack_config import (
    ConfigProblems,
    Declared,
    StackConfig,
    effective_config,
    environments_of,
    project_config,
    stack_keys,
)
from governance.untrusted import UntrustedInputError, decode_text, load_json, load_yaml

if TYPE_CHECKING:
    from governance.settings import Settings
    from governance.settings.context import PlanContext

PROJECT_FILES = ("Pulumi.json", "Pulumi.yaml", "Pulumi.yml")
"""In the order Pulumi tries them in one folder (its encoding.Exts): a `Pulumi.json` beside
`Pulumi.yaml` is the project file."""
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
MAX_STACK_FILE_BYTES = 4 * 1024 * 1024
"""Largest stack or project file read (a stack with 10,000 notebooks is ~1.7 MB)."""
_STACK_RANK = {"dev": 0, "staging": 1, "prod": 2}
"""The usual environments first, in promotion order, so every stack listing reads alike."""


@dataclass(frozen=True)
class PulumiProject:
    """A Pulumi project: where it is, where its stack files are, which program it runs."""

    root: Path
    name: str
    stack_dir: Path
    program: Path
    ext: str = ".yaml"
    """The project file's extension, which its stack files share."""
    config: tuple[Declared, ...] = ()
    """The project's `config:` (Pulumi.yaml), applied to every stack that does not set a key."""
    file: Path | None = None

    def stack_file(self, stack: str) -> Path:
        """The stack file of a named stack (`<stackConfigDir>/Pulumi.<stack><ext>`)."""
        # Pulumi's stack names: letters, digits, hyphens, underscores and periods.
        if not STACK_NAME.fullmatch(stack) or stack.startswith("."):
            raise CliError(f"--stack: {stack[:80]!r} is not a stack name (e.g. dev, staging, prod)")
        path = self.stack_dir / f"Pulumi.{stack}{self.ext}"
        if not path.is_file():
            raise CliError(
                f"--stack: no stack file {display(path, self.root)}; "
                f"known stacks: {', '.join(self.stacks()) or 'none'}"
            )
        return path

    def stacks(self) -> list[str]:
        """The names of the project's stacks, from its stack files: dev, staging, prod, then A-Z."""
        files = self.stack_dir.glob(f"Pulumi.*{self.ext}")
        names = [p.name[len("Pulumi.") : -len(self.ext)] for p in files]
        return sorted(names, key=lambda n: (_STACK_RANK.get(n, len(_STACK_RANK)), n))

    def owns(self, stack_file: Path) -> bool:
        """Whether `stack_file` is one of this project's stack files (where Pulumi looks)."""
        name = stack_file.name
        return (
            name.startswith("Pulumi.")
            and name.endswith(self.ext)
            and stack_file.resolve().parent == self.stack_dir.resolve()
        )


def display(path: Path, base: Path | None = None) -> str:
    """`path` relative to `base` (default: the current directory) when it is below it."""
    try:
        return str(path.resolve().relative_to((base or Path.cwd()).resolve()))
    except ValueError:
        return str(path)


def read_text(path: Path, limit: int = MAX_STACK_FILE_BYTES) -> str:
    """A file's text; CliError for unreadable, non-UTF-8, empty or larger than `limit` bytes."""
    try:
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError as err:
        raise CliError(f"{display(path)}: cannot read: {err.strerror}") from None
    return decode(data, display(path), limit)


def read_source(source: str, limit: int = MAX_STACK_FILE_BYTES) -> tuple[str, str]:
    """(text, name) of a path, or of stdin for `-`, read up to `limit` bytes."""
    if source != "-":
        return read_text(Path(source), limit), source
    stream: Any = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text-only stdin (e.g. replaced in tests)
        text = sys.stdin.read(limit + 1)
        return decode(text.encode("utf-8", "surrogatepass"), "<stdin>", limit), "<stdin>"
    return decode(cast(bytes, stream.read(limit + 1)), "<stdin>", limit), "<stdin>"


def decode(data: bytes, name: str, limit: int | None = None) -> str:
    """UTF-8 text of `data`; CliError naming `name` if it is not text, is empty or is too large."""
    if limit is not None and len(data) > limit:
        raise CliError(f"{name}: larger than {limit:,} bytes; refusing to read it")
    try:
        text = decode_text(data)  # a byte-order mark (PowerShell's) is dropped
    except UntrustedInputError as err:
        raise CliError(f"{name}: {err}") from None
    if not text.strip():
        raise CliError(f"{name}: is empty")
    return text


def _load_yaml(path: Path) -> Any:
    """A project or stack file's content: JSON for `.json` (as Pulumi reads it), else YAML."""
    text = read_text(path)
    try:
        return load_json(text) if path.suffix == ".json" else load_yaml(text)
    except UntrustedInputError as err:
        raise CliError(f"{display(path)}: {err}") from None


def _find_project_file(start: Path) -> Path | None:
    """The project file Pulumi uses from `start`: the nearest folder's, first of PROJECT_FILES."""
    for folder in (start, *start.parents):
        for name in PROJECT_FILES:
            if (folder / name).is_file():
                return folder / name
    return None


def load_project(project_file: Path) -> PulumiProject:
    """The project a project file describes (name, runtime, stackConfigDir, main, config)."""
    data = _load_yaml(project_file)
    where = display(project_file)
    if not isinstance(data, Mapping):
        raise CliError(f"{where}: a Pulumi project file is a YAML mapping")
    spec = dict(cast(Mapping[str, Any], data))
    root = project_file.parent
    problems: list[str] = []
    for key in ("name", "stackConfigDir", "main"):
        if key in spec and not isinstance(spec[key], str):
            problems.append(f"{where}: {key}: must be a string")
    if isinstance(spec.get("config"), str):
        # Pulumi's old spelling of stackConfigDir (project.go, RewriteConfigPathIntoStackConfigDir).
        if "stackConfigDir" in spec:
            problems.append(
                f"{where}: config: a folder name beside stackConfigDir; Pulumi refuses both "
                "(use only stackConfigDir)"
            )
        spec["stackConfigDir"] = spec.pop("config")
    problems += _runtime_problems(spec.get("runtime"), where)
    if problems:
        raise CliError(problems)
    name = str(spec.get("name") or root.name)
    try:
        declared = project_config(spec.get("config"), name, where)
    except ConfigProblems as err:
        raise CliError(err.problems) from None
    program = root / str(spec.get("main") or ".")
    if program.is_dir():
        program = program / "__main__.py"
    return PulumiProject(
        root=root,
        name=name,
        stack_dir=root / str(spec.get("stackConfigDir") or "."),
        program=program,
        ext=project_file.suffix,
        config=declared,
        file=project_file,
    )


def _runtime_problems(runtime: object, where: str) -> list[str]:
    """Why mlgov cannot run the project's program as Pulumi would (empty: a python program)."""
    name: object = (
        cast(Mapping[str, object], runtime).get("name") if isinstance(runtime, Mapping) else runtime
    )
    if name is None:
        return [f"{where}: runtime: missing; Pulumi needs it (mlgov plans `runtime: python`)"]
    if name != "python":
        return [
            f"{where}: runtime: {str(name)[:40]!r}; mlgov runs Python programs only, and with "
            "another runtime `pulumi up` deploys a program mlgov never sees (for `yaml`, the "
            "project file's own resources)"
        ]
    return []


def find_project(*starts: Path) -> PulumiProject:
    """The Pulumi project of the first start folder (default: the current one) inside one."""
    folders = starts or (Path.cwd(),)
    for start in folders:
        found = _find_project_file(start.resolve())
        if found is not None:
            return load_project(found)
    raise CliError(
        f"no Pulumi project: no Pulumi.yaml in {display(folders[0], Path('/'))} or its parents; "
        "run mlgov inside your Pulumi project"
    )


def read_stack_config(path: Path, project: PulumiProject | None = None) -> dict[str, Any]:
    """The config a stack runs with: its file's `config:`, the project's applied (read_stack).

    For the operator tools (`cap`, `jobs`, `spend`, ...): a stack that imports ESC environments
    gets a warning, as what they supply is not applied (`plan` records it as a finding instead).
    """
    read = read_stack(path, project)
    if read.environments:
        warn(
            [
                f"{display(path)}: environment: imports ESC environments "
                f"({', '.join(read.environments)}); mlgov cannot read them offline, so config "
                "they supply (or merge into mlgov:settings) is not applied here"
            ]
        )
    return read.config


def read_stack(path: Path, project: PulumiProject | None = None) -> StackConfig:
    """A stack file read as `pulumi up` reads it, with the config its program runs with.

    Keys as Pulumi parses them (`gcp:config:zone` is `gcp:zone`), the project's `config:`
    applied (the project given, or the one the file is a stack file of; a file elsewhere, such
    as `--config /tmp/x.yaml`, gets none), and the ESC environments it imports.
    """
    data = _load_yaml(path)
    where = display(path)
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):  # pyright: ignore[reportUnknownMemberType]
        raise CliError(f"{where}: a Pulumi stack file needs a top-level `config:` mapping")
    stack = cast(dict[str, Any], data)
    if project is None:
        project = _project_of(path)
    declared = project.config if project is not None else ()
    try:
        keys = stack_keys(cast(dict[Any, Any], stack["config"]))
        return effective_config(keys, declared, environments_of(stack.get("environment")), where)
    except ConfigProblems as err:
        raise CliError(
            [p if p.startswith(where) else f"{where}: {p}" for p in err.problems]
        ) from None


def _project_of(stack_file: Path) -> PulumiProject | None:
    """The project whose stack file `stack_file` is (None if it is no project's)."""
    found = _find_project_file(stack_file.resolve().parent)
    if found is None:
        return None
    project = load_project(found)
    return project if project.owns(stack_file) else None


def stack_name_of(path: Path) -> str:
    """`dev` for `Pulumi.dev.yaml`; the file stem otherwise."""
    name = path.name
    if name.startswith("Pulumi.") and name.endswith((".yaml", ".yml", ".json")):
        return name.split(".", 1)[1].rsplit(".", 1)[0]
    return path.stem


def stack_file_of(stack: str | None, config: str | None) -> tuple[str, Path]:
    """(stack name, stack file) for `--stack NAME` (in the project here) or `--config PATH`."""
    if config is not None:
        return stack_name_of(Path(config)), Path(config)
    return stack or "", find_project().stack_file(stack or "")


def settings_of(config: Mapping[str, Any], path: Path) -> Settings:
    """The validated settings of a stack file's config; CliError with one line per problem."""
    from governance.settings import SettingsError, settings_from_config

    try:
        return settings_from_config(config)
    except SettingsError as err:
        where = display(path)  # once: a hostile file can have 200,000 problems
        raise CliError([f"{where}: {p}" for p in err.problems]) from None


def context_of(config: Mapping[str, Any], path: Path) -> PlanContext:
    """What the plan needs of a stack file, of either kind; CliError naming `path` per problem."""
    from governance.settings import SettingsError
    from governance.settings.context import plan_context

    try:
        return plan_context(config)
    except SettingsError as err:
        where = display(path)
        raise CliError([f"{where}: {p}" for p in err.problems]) from None
