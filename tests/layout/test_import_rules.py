"""The import rules of the house, asserted on the import graph of the code that is not tests.

Each folder holds one job; a circle of imports inside one folder is that folder's business, but
a circle that spans two folders ties their jobs together, and a circle of more than ten files is
a knot nobody can read. The graph counts every import, type-only ones too (tests/layout/imports.py
says how it is read; `python -m tests.layout.imports` prints it).
"""

from __future__ import annotations

import pytest

from tests.layout.imports import Graph, build, circles, folder, imports_of_tests

LARGEST_CIRCLE = 10


@pytest.fixture(scope="module")
def graph() -> Graph:
    # Reading ~430 files' imports takes about a second; every rule reads the same graph, which
    # is read-only (imports.py: Graph), so it is built once for this file.
    return build()


def test_the_graph_is_read_from_the_source(graph: Graph) -> None:
    # The rules below would pass on an empty graph: prove it holds the house and its imports.
    assert len(graph.files) > 300
    assert "governance/cli/main.py" in graph.edges["governance/__main__.py"]
    assert "governance/review/plan.py" in graph.edges["governance/cli/spend.py"]


def test_no_circle_spans_two_folders(graph: Graph) -> None:
    spanning = [c for c in circles(graph) if len({folder(f) for f in c}) > 1]
    assert spanning == []


def test_no_circle_is_larger_than_ten_files(graph: Graph) -> None:
    large = [c for c in circles(graph) if len(c) > LARGEST_CIRCLE]
    assert large == []


def test_spend_does_not_import_the_cli(graph: Graph) -> None:
    into_cli = {
        (file, target)
        for file, targets in graph.edges.items()
        # `python -m governance.spend` is an entry point: nothing imports it, it runs the CLI.
        if file.startswith("governance/spend/") and not file.endswith("/__main__.py")
        for target in targets
        if target.startswith("governance/cli/")
    }
    assert into_cli == set()


def test_only_the_cli_and_the_entry_points_import_the_cli(graph: Graph) -> None:
    # cli/ is the outermost room: it parses arguments and calls the rooms below, never the
    # reverse (a judge or a reader that imports a command ties its job to argparse and the
    # command line). The entry points, `__main__.py` files, exist only to run the CLI.
    assert "governance/cli/main.py" in graph.edges["governance/__main__.py"]
    into_cli = {
        (file, target)
        for file, targets in graph.edges.items()
        if not file.startswith("governance/cli/") and not file.endswith("/__main__.py")
        for target in targets
        if target.startswith("governance/cli/")
    }
    assert into_cli == set()


def test_nothing_outside_tests_imports_tests(graph: Graph) -> None:
    # The product, the functions, the policy pack and the benchmarks stand without the suite;
    # the suite may import them (bench/cost_plan.py and comment_plans.py are shared that way).
    assert imports_of_tests(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    # The rules are only as good as the finder: a two-folder circle and a lone file.
    graph = Graph(
        files=("a/x.py", "b/y.py", "c/z.py"),
        edges={
            "a/x.py": frozenset({"b/y.py"}),
            "b/y.py": frozenset({"a/x.py"}),
            "c/z.py": frozenset({"a/x.py"}),
        },
        imported_modules={"a/x.py": frozenset({"tests.fakegcp"})},
    )
    assert circles(graph) == [["a/x.py", "b/y.py"]]
    assert imports_of_tests(graph) == [("a/x.py", "tests.fakegcp")]


def test_the_shared_graph_refuses_writes(graph: Graph) -> None:
    # The rules above share one graph: a test that changed it would change what the others see.
    with pytest.raises(TypeError):
        graph.edges["governance/new.py"] = frozenset()  # pyright: ignore[reportIndexIssue]
    with pytest.raises(TypeError):
        graph.imported_modules["governance/new.py"] = frozenset()  # pyright: ignore[reportIndexIssue]
    assert "governance/new.py" not in graph.edges
