"""Which changed files are code that decides governance: every file but stack files and prose.

Default-deny, as a reviewer who assumes every PR is hostile would have it: a file decides what
the check says or what deploys unless it is known not to. The plan runs the program, imports
whatever the program's folder and `sys.path` hold, archives `functions/`, reads the project file,
the policy-pack configs, the lock and the build settings; `make` runs the Makefile, tests and
docs hooks; the workflows run everything. A name list of those would miss the next one (a root
`yaml/` package the program's folder puts first on `sys.path`, a `uv.toml`), so only these are
left out:

- stack files (`Pulumi.<stack>.yaml` in the project's stack folder): data the governance diff
  judges value by value;
- prose: Markdown anywhere, and everything under `docs/` that is not Python.

Pure: paths (POSIX, relative to the repository root) in, the ones that decide governance out.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

PROSE_SUFFIXES = frozenset({".md"})
DOCS = "docs"


def is_stack_file(path: str, stack_dir: str, ext: str) -> bool:
    """Whether `path` is a stack file of the project (`Pulumi.<name><ext>` in `stack_dir`)."""
    p = PurePosixPath(path)
    folder = PurePosixPath(stack_dir) if stack_dir not in ("", ".") else PurePosixPath()
    name = p.name
    return (
        p.parent == folder
        and name.startswith("Pulumi.")
        and name.endswith(ext)
        and len(name) > len("Pulumi.") + len(ext)
    )


def decides_governance(path: str, stack_dir: str = "stacks", ext: str = ".yaml") -> bool:
    """Whether a changed file is code (or config) that decides governance."""
    p = PurePosixPath(path)
    if is_stack_file(path, stack_dir, ext):
        return False
    if p.suffix.lower() in PROSE_SUFFIXES:
        return False
    return not (p.parts and p.parts[0] == DOCS and p.suffix.lower() != ".py")


def governance_code(
    paths: Iterable[str], stack_dir: str = "stacks", ext: str = ".yaml"
) -> list[str]:
    """The changed paths that decide governance, sorted and each once."""
    return sorted({p for p in paths if p and decides_governance(p, stack_dir, ext)})


def read_changed(text: str) -> list[str]:
    """The paths of `git diff --name-only -z` output (NUL-separated; newlines also accepted)."""
    parts = text.split("\0") if "\0" in text else text.splitlines()
    return [p for p in parts if p]
