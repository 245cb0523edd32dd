"""governance/costs/ keeps its import circles small: none spans more than 10 files.

The graph is read from the source with `ast`, counting every import: at module level, inside
functions and under `if TYPE_CHECKING:` (a type-only import still ties two files together for
whoever reads or moves them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from pathlib import Path
from types import MappingProxyType

ROOT = Path(__file__).resolve().parents[2]
COSTS = ROOT / "governance" / "costs"
PACKAGE = "governance.costs"
LARGEST_CIRCLE = 10


def module_name(path: Path) -> str:
    """`governance/costs/resources/nat.py` -> `governance.costs.resources.nat`."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.AST, here: str, known: Iterable[str]) -> set[str]:
    """The modules of `known` a module's source imports (`from pkg import submodule` included)."""
    modules = set(known)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against this module's package
                package = here.split(".")[: -node.level]
                base = ".".join([*package, base] if base else package)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        found |= {name for name in names if name in modules}
    return found - {here}


@cache
def costs_graph() -> Mapping[str, frozenset[str]]:
    """Module -> the governance/costs modules it imports.

    Read once per process (parsing every cost file takes about 0.3 s) and shared by the tests
    below, so it is read-only: a mapping that refuses writes, of frozensets.
    """
    paths = {module_name(p): p for p in COSTS.rglob("*.py")}
    return MappingProxyType(
        {
            name: frozenset(imported(ast.parse(path.read_text(encoding="utf-8")), name, paths))
            for name, path in paths.items()
        }
    )


def reachable(graph: Mapping[str, AbstractSet[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def circles(graph: Mapping[str, AbstractSet[str]]) -> list[set[str]]:
    """The import circles (strongly connected sets of more than one module), largest first."""
    reach = {name: reachable(graph, name) for name in graph}
    found: list[set[str]] = []
    for name in sorted(graph):
        if name in reach[name] and not any(name in c for c in found):
            found.append({other for other in reach[name] if name in reach[other]})
    return sorted(found, key=len, reverse=True)


def test_the_graph_sees_every_kind_of_import():
    graph = costs_graph()
    assert len(graph) > 60
    # `from governance.costs.resources import (address, ...)` names submodules
    assert "governance.costs.resources.nat" in graph["governance.costs.registry"]
    # an import under `if TYPE_CHECKING:` counts (model.py names PlanContext for CostModel)
    assert "governance.costs.context" in graph["governance.costs.model"]
    assert "governance.costs.registry" in graph["governance.costs.assumptions"]
    # an import inside a function counts too
    tree = ast.parse("def f():\n    from governance.costs import bill\n")
    assert imported(tree, "governance.costs.x", graph) == {
        "governance.costs",
        "governance.costs.bill",
    }


def test_circles_are_found_whatever_their_size():
    ring = {f"m{i}": {f"m{(i + 1) % 12}"} for i in range(12)}
    assert circles(ring) == [set(ring)]
    assert circles({"a": {"b"}, "b": set()}) == []
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]


def test_no_import_circle_in_costs_is_larger_than_ten_files():
    found = circles(costs_graph())
    largest = found[0] if found else set()
    assert len(largest) <= LARGEST_CIRCLE, (
        f"an import circle of {len(largest)} files in governance/costs/: {sorted(largest)}"
    )


def test_the_assumptions_are_in_no_circle():
    # assumptions.py imports registry.py, which imports every cost file: a cost file that
    # imported assumptions.py (or the context naming it) would close the circle of every cost
    # file again. Cost files read their knobs through `PlanContext.knobs` instead.
    graph = costs_graph()
    assert "governance.costs.assumptions" not in reachable(graph, "governance.costs.assumptions")
