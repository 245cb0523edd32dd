"""layout.py: cells give way by their column's rule, columns in their stages' order."""

from __future__ import annotations

from governance.text.layout import GAP, TIGHT, Column, cut, fit, render, wrap_items


def test_cut_at_the_end_and_in_the_middle() -> None:
    assert cut("governance-reap-idle-vms", 30, "…") == "governance-reap-idle-vms"
    assert cut("governance-reap-idle-vms", 12, "…") == "governance-…"
    assert cut("governance-reap-idle-vms", 12, "...", "middle") == "gove...e-vms"
    assert cut("governance-reap-idle-gpus", 12, "…", "middle") == "gover…e-gpus"


def test_wrap_breaks_between_items_and_marks_what_is_left_out() -> None:
    text = "NAP on, OPTIMIZE_UTILIZATION, cpu<=32, memory<=128, nvidia-tesla-t4<=4, cost allocation"
    lines = wrap_items(text, 30, "…")
    assert lines == [
        "NAP on, OPTIMIZE_UTILIZATION,",
        "cpu<=32, memory<=128,",
        "nvidia-tesla-t4<=4,",
        "cost allocation",
    ]
    assert " ".join(lines) == text  # nothing lost when it fits in MAX_LINES
    assert all(len(line) <= 30 for line in lines)
    short = wrap_items(text, 12, "…", max_lines=2)
    assert len(short) == 2 and short[-1].endswith("…") and all(len(x) <= 12 for x in short)


def test_stages_shrink_in_order_and_the_unstaged_column_stays_whole() -> None:
    columns = [
        Column("A", gives=((1, 10),)),
        Column("B", gives=((0, 5),)),
        Column("C"),
    ]
    natural = [20, 20, 9]
    assert fit(columns, natural, None) == natural
    # 4 over: B gives way first (stage 0), A untouched.
    assert fit(columns, natural, sum(natural) + 2 * GAP - 4) == [20, 16, 9]
    # 20 over: B to its floor 5 (15), then A by 5.
    assert fit(columns, natural, sum(natural) + 2 * GAP - 20) == [15, 5, 9]
    # Far too narrow: what can shrink goes to TIGHT (B's floor was lower), C stays whole.
    assert fit(columns, natural, 10) == [TIGHT, 5, 9]


def test_render_uses_the_shorter_spelling_before_cutting() -> None:
    columns = [
        Column("NAME", gives=((1, 4),)),
        Column("TYPE", gives=((0, 8),), shorter=lambda t: t.rsplit("/", 1)[-1]),
        Column("COST", align="right"),
    ]
    rows = [["pool", "container/NodePool", "$1.00"], ["sql", "sql/DatabaseInstance", "$10.00"]]
    widths, lines = render(columns, rows, 4 + 8 + 6 + 2 * GAP, "…")
    assert widths == [4, 8, 6]
    assert lines[1] == "pool  NodePool   $1.00"
    assert lines[2] == "sql   Databas…  $10.00"


def test_a_column_that_takes_its_shorter_spelling_takes_it_in_every_row() -> None:
    # Issue 32: `Instance` beside `storage/Bucket`, because only the too-long cells were
    # respelled. A column keeps one spelling: every cell short, or every cell whole.
    columns = [
        Column("NAME", gives=((1, 4),)),
        Column("TYPE", gives=((0, 10),), shorter=lambda t: t.rsplit("/", 1)[-1]),
    ]
    rows = [["nb", "workbench/Instance"], ["b", "storage/Bucket"]]
    widths, lines = render(columns, rows, 4 + GAP + 10, "…")
    assert widths[1] == len("Instance")
    assert [line.split()[1] for line in lines[1:]] == ["Instance", "Bucket"]
    # Wide enough for every whole cell: none is respelled.
    _widths, lines = render(columns, rows, 80, "…")
    assert [line.split()[1] for line in lines[1:]] == ["workbench/Instance", "storage/Bucket"]
