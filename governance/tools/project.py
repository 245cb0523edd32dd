"""The user's Pulumi project and its stack files, found from the current directory.

`mlgov plan --stack dev` works like `pulumi preview -s dev`: it finds `Pulumi.yaml` in the current
directory or a parent, reads the stack file from the project's `stackConfigDir`, and runs the
program the project's `main` names (default: `__main__.py` beside `Pulumi.yaml`). Every file is
read through `read_text`, so a missing, unreadable, binary, empty or oversized file is one clear
error (exit 2), never a traceback; YAML is parsed by governance/untrusted.py, which bounds alias
expansion and nesting.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from governance.tools.errors import CliError
from governance.untrusted import UntrustedInputError, load_yaml

if TYPE_CHECKING:
    from governance.settings import Settings

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
MAX_STACK_FILE_BYTES = 4 * 1024 * 1024
"""Largest stack or project file read (a stack with 10,000 notebooks is ~1.7 MB)."""


@dataclass(frozen=True)
class PulumiProject:
    """A Pulumi project: where it is, where its stack files are, which program it runs."""

    root: Path
    name: str
    stack_dir: Path
    program: Path

    def stack_file(self, stack: str) -> Path:
        """The stack file of a named stack (`<stackConfigDir>/Pulumi.<stack>.yaml`)."""
        # Pulumi's stack names: letters, digits, hyphens, underscores and periods.
        if not STACK_NAME.fullmatch(stack) or stack.startswith("."):
            raise CliError(f"--stack: {stack[:80]!r} is not a stack name (e.g. dev, staging, prod)")
        path = self.stack_dir / f"Pulumi.{stack}.yaml"
        if not path.is_file():
            raise CliError(
                f"--stack: no stack file {display(path, self.root)}; "
                f"known stacks: {', '.join(self.stacks()) or 'none'}"
            )
        return path

    def stacks(self) -> list[str]:
        """The names of the project's stacks, from its stack files."""
        files = self.stack_dir.glob("Pulumi.*.yaml")
        return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in files)


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
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CliError(
            f"{name}: not UTF-8 text (invalid byte at offset {err.start}); save it as UTF-8"
        ) from None
    if not text.strip():
        raise CliError(f"{name}: is empty")
    return text


def _load_yaml(path: Path) -> Any:
    text = read_text(path)
    try:
        return load_yaml(text)
    except UntrustedInputError as err:
        raise CliError(f"{display(path)}: {err}") from None


def _find_project_file(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        for name in PROJECT_FILES:
            if (folder / name).is_file():
                return folder / name
    return None


def load_project(project_file: Path) -> PulumiProject:
    """The project a `Pulumi.yaml` describes (its `name`, `stackConfigDir` and `main`)."""
    data = _load_yaml(project_file)
    if not isinstance(data, Mapping):
        raise CliError(f"{display(project_file)}: a Pulumi project file is a YAML mapping")
    spec = cast(Mapping[str, Any], data)
    root = project_file.parent
    problems: list[str] = []
    for key in ("name", "stackConfigDir", "main"):
        if key in spec and not isinstance(spec[key], str):
            problems.append(f"{display(project_file)}: {key}: must be a string")
    if problems:
        raise CliError(problems)
    program = root / str(spec.get("main") or ".")
    if program.is_dir():
        program = program / "__main__.py"
    return PulumiProject(
        root=root,
        name=str(spec.get("name") or root.name),
        stack_dir=root / str(spec.get("stackConfigDir") or "."),
        program=program,
    )


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


def read_stack_config(path: Path) -> dict[str, Any]:
    """The `config:` map of a Pulumi stack file."""
    data = _load_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):  # pyright: ignore[reportUnknownMemberType]
        raise CliError(f"{display(path)}: a Pulumi stack file needs a top-level `config:` mapping")
    return cast(dict[str, Any], data["config"])


def stack_name_of(path: Path) -> str:
    """`dev` for `Pulumi.dev.yaml`; the file stem otherwise."""
    name = path.name
    if name.startswith("Pulumi.") and name.endswith((".yaml", ".yml")):
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
