"""Run another checkout's own mlgov in this process (`plan --base DIR`).

A pull request's base is planned by the base's code: its program, its components, its rules and
its prices, as `cd DIR && python -m governance plan ...` would plan it, but without paying the
Pulumi and pulumi-gcp imports a second time. While `checkout_imports(DIR)` is open, the packages
the checkout ships (its pyproject's wheel packages: `governance`, `mlgov_policies`) import from
DIR, the current directory is DIR, and this process's own copies of those packages are set
aside; they come back when it closes. Everything installed (pulumi, pulumi_gcp, pydantic) is
shared, exactly as the separate process shared the same virtualenv.

A checkout whose CLI cannot be imported here (too old, or broken) is run as that separate
process instead (`subprocess_command`).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from governance.cli.batch import Command, Printed, in_process
from governance.errors import PROG, Exit

DEFAULT_PACKAGES = ("governance", "policies/mlgov_policies")
"""Where mlgov's packages are in a checkout whose pyproject does not say."""


def packages_of(root: Path) -> list[str]:
    """The checkout's package folders, relative to it (pyproject's hatch wheel `packages`)."""
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return list(DEFAULT_PACKAGES)
    found: Any = data
    for key in ("tool", "hatch", "build", "targets", "wheel", "packages"):
        found = cast(dict[str, Any], found).get(key) if isinstance(found, dict) else None
    if not isinstance(found, list) or not found:
        return list(DEFAULT_PACKAGES)
    listed = [str(p).strip("/") for p in cast(list[Any], found) if isinstance(p, str) and p]
    return [p for p in listed if p and ".." not in Path(p).parts] or list(DEFAULT_PACKAGES)


def _ours(name: str, tops: set[str]) -> bool:
    return name.partition(".")[0] in tops


@contextmanager
def checkout_imports(root: Path) -> Generator[None]:
    """While the block runs, the checkout's packages import from `root`, and `root` is the cwd."""
    root = root.resolve()
    packages = packages_of(root)
    tops = {Path(p).name for p in packages}
    folders = list(dict.fromkeys(str((root / p).parent) for p in packages))
    saved = {name: m for name, m in sys.modules.items() if _ours(name, tops)}
    for name in saved:
        del sys.modules[name]
    saved_path, saved_cwd = list(sys.path), os.getcwd()
    sys.path[:0] = folders  # first: the checkout's packages shadow this process's
    os.chdir(root)
    importlib.invalidate_caches()
    try:
        yield
    finally:
        for name in [n for n in sys.modules if _ours(n, tops)]:
            del sys.modules[name]
        sys.modules.update(saved)
        sys.path[:] = saved_path
        os.chdir(saved_cwd)
        importlib.invalidate_caches()


def checkout_command(root: Path) -> Command:
    """A Command running the checkout's CLI; call inside `checkout_imports(root)`.

    Its `governance.cli.main.main(argv)` (the entry point `python -m governance` runs; in a
    checkout from before the CLI had its own package, `governance.tools.cli.main`), or, if the
    checkout has none this process can import, the checkout as a process of its own.
    """
    for module in _CLI_MODULES:
        try:
            main: Any = importlib.import_module(module).main
        except ModuleNotFoundError as err:
            if err.name is not None and module.startswith(err.name):
                continue  # this layout's CLI is not in the checkout: try the older one
            return subprocess_command(root)
        except Exception:  # any failure: the separate process reports what it is
            return subprocess_command(root)
        if not callable(main):
            return subprocess_command(root)
        return in_process(cast(Any, main))
    return subprocess_command(root)


# Where a checkout's CLI lives: this layout's, then the one before governance/cli/ (a PR's base
# may be older than the move).
_CLI_MODULES = ("governance.cli.main", "governance.tools.cli")


def subprocess_command(root: Path) -> Command:
    """A Command running `python -m governance ARGV` in `root`, with this interpreter."""

    def run(argv: list[str]) -> Printed:
        done = subprocess.run(  # noqa: S603 - this interpreter, fixed module, no shell
            [sys.executable, "-m", "governance", *argv],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode in (Exit.OK, Exit.FAILED) and not _json_object(done.stdout):
            # Python exits 1 on an uncaught exception too: without a plan it is no plan.
            note = f"{PROG}: error: the checkout's mlgov exited {done.returncode} with no plan\n"
            return Printed(Exit.INTERNAL, "", done.stderr + note)
        return Printed(done.returncode, done.stdout, done.stderr)

    return run


def _json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
