"""The import graph of the shipped code, read from the source (nothing is imported or run).

`python -m tests.layout.imports` prints files per folder, the circles (count, largest, and each
one's files) and the imports that cross out of the shipped tree into tests/: the figures
docs/reference/layout.md quotes, reproducible on any checkout. tests/layout/test_import_rules.py
asserts the rules on the same graph.

Every import counts, wherever it stands: module level, inside a function, or under
`if TYPE_CHECKING:` (a reader and pyright follow a type-only import as much as one that runs).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

ROOT = Path(__file__).resolve().parents[2]

# The code that is not tests: each top-level entry DESIGN fixes, apart from tests/.
SHIPPED_ROOTS = ("governance", "functions", "policies", "bench", "__main__.py")


# Read-only all the way down (a tuple, mappings that refuse writes, frozensets), so one graph can
# be shared by every test of the rules.
@dataclass(frozen=True)
class Graph:
    files: tuple[str, ...]  # repository-relative paths, "governance/cli/main.py"
    edges: Mapping[str, frozenset[str]]  # file -> the files of this tree it imports
    imported_modules: Mapping[str, frozenset[str]]  # file -> every dotted module name it imports


def _python_files() -> Iterator[Path]:
    for root in SHIPPED_ROOTS:
        path = ROOT / root
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*.py")):
            parts = file.relative_to(ROOT).parts
            if any(part in {"__pycache__", ".venv", "node_modules"} for part in parts):
                continue
            yield file


def _imports(tree: ast.AST) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(module, names) for each import; `import a.b` gives ("a.b", ())."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, tuple(alias.name for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))


# Where imports are looked up, as pyright's extraPaths: the functions import `govern` and the
# policy pack `mlgov_policies` from their own folders.
SOURCE_PATHS = (ROOT, ROOT / "functions", ROOT / "policies")


def _module_file(module: str) -> str | None:
    for source in SOURCE_PATHS:
        base = source.joinpath(*module.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate.relative_to(ROOT).as_posix()
    return None


def build() -> Graph:
    files: list[str] = []
    edges: dict[str, frozenset[str]] = {}
    modules: dict[str, frozenset[str]] = {}
    for path in _python_files():
        name = path.relative_to(ROOT).as_posix()
        files.append(name)
        targets: set[str] = set()
        seen: set[str] = set()
        for module, names in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            seen.add(module)
            submodules = [_module_file(f"{module}.{n}") for n in names]
            found = [s for s in submodules if s is not None]
            seen.update(f"{module}.{n}" for n, s in zip(names, submodules, strict=True) if s)
            # `from pkg import sub` imports pkg/sub.py; `from mod import name` imports mod.py.
            if len(found) < len(names) or not names:
                target = _module_file(module)
                if target is not None:
                    targets.add(target)
            targets.update(found)
        targets.discard(name)
        edges[name] = frozenset(targets)
        modules[name] = frozenset(seen)
    return Graph(tuple(files), MappingProxyType(edges), MappingProxyType(modules))


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.edges.get(node, frozenset()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for file in graph.files:
        if file not in index:
            visit(file)
    return sorted(found, key=lambda c: (-len(c), c))


def folder(file: str) -> str:
    return file.rsplit("/", 1)[0] if "/" in file else "."


def imports_of_tests(graph: Graph) -> list[tuple[str, str]]:
    return sorted(
        (file, module)
        for file, modules in graph.imported_modules.items()
        for module in modules
        if module == "tests" or module.startswith("tests.")
    )


def main() -> None:
    graph = build()
    per_folder: dict[str, int] = defaultdict(int)
    for file in graph.files:
        per_folder[folder(file)] += 1
    print("files per folder:")
    for name, count in sorted(per_folder.items()):
        if name.startswith("governance") or name == "governance":
            print(f"  {count:4d}  {name}/")
    found = circles(graph)
    print(f"circles: {len(found)}, largest {max((len(c) for c in found), default=0)} files")
    for component in found:
        folders = sorted({folder(f) for f in component})
        print(f"  {len(component):3d} files in {', '.join(f + '/' for f in folders)}")
    crossing = imports_of_tests(graph)
    print(f"imports of tests/ from shipped code: {len(crossing)}")
    for file, module in crossing:
        print(f"  {file} -> {module}")


if __name__ == "__main__":
    main()
