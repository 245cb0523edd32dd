"""Hostile input fails fast and cleanly (governance/untrusted.py; issue 20 item 7).

The parsers themselves here; the whole command (exit 2, the file named, no traceback) on the same
inputs in tests/cli/test_exit_codes.py. How fast is bench/hostile_bench.py's job (no timed tests).
"""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from governance.untrusted import (
    MAX_DEPTH,
    MAX_VALUES,
    UntrustedInputError,
    load_json,
    load_yaml,
    too_deep,
)


def alias_bomb(levels: int = 9, fanout: int = 9) -> str:
    """The classic "billion laughs": each level lists the previous one `fanout` times."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fanout)}]")
    return "\n".join(lines) + "\n"


def nested(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + closer * depth


@pytest.fixture(params=["libyaml", "pure-python"])
def event_source(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways PyYAML reads events (a PyYAML built without libyaml takes the second)."""
    if request.param == "pure-python":
        monkeypatch.setitem(sys.modules, "yaml.cyaml", None)  # `from yaml.cyaml import` fails
    return str(request.param)


def refused(text: str, load=load_yaml) -> str:
    with pytest.raises(UntrustedInputError) as err:
        load(text)
    return str(err.value)


# --------------------------------------------------------------------------- YAML
def test_an_alias_bomb_is_refused_while_it_is_read(event_source: str) -> None:
    bomb = alias_bomb()
    assert len(bomb) < 3000  # the 2.8 KB file names ~387 million values
    assert refused(bomb) == (
        f"line 6: expands to more than {MAX_VALUES:,} values (an alias counts as the values it "
        "repeats)"
    )


def test_aliases_within_the_bound_still_work(event_source: str) -> None:
    small = alias_bomb(levels=3, fanout=3)
    data = load_yaml(small)
    assert len(data["a2"]) == 3 and data["a2"][0] is data["a1"]  # shared, as YAML means
    assert load_yaml("base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n")["other"] == {"x": 1, "y": 2}


def test_a_recursive_alias_is_refused(event_source: str) -> None:
    assert refused("a: &x [1, *x]\n") == "line 1: alias *x refers to a value that contains it"


@pytest.mark.parametrize(("opener", "closer"), [("[", "]"), ("{a: ", "}")])
def test_deep_nesting_is_refused_at_the_bound(opener: str, closer: str, event_source: str) -> None:
    assert (
        refused(nested(10_000, opener, closer)) == f"line 1: nested deeper than {MAX_DEPTH} levels"
    )
    assert refused(nested(MAX_DEPTH + 1, opener, closer)).endswith("nested deeper than 100 levels")
    assert load_yaml(nested(MAX_DEPTH, opener, closer)) is not None


def test_block_style_nesting_is_counted_too(event_source: str) -> None:
    text = "".join(f"{'  ' * i}k{i}:\n" for i in range(150)) + f"{'  ' * 150}v\n"
    assert refused(text) == f"line {MAX_DEPTH + 1}: nested deeper than {MAX_DEPTH} levels"


def test_a_repeated_key_is_refused_as_pulumi_does(event_source: str) -> None:
    text = "automation:\n  dry_run: false\n  enabled: true\n  dry_run: true\n"
    assert refused(text) == "line 4: key 'dry_run' appears twice in one mapping"
    # A merge key may be overridden: that is what merges are for.
    assert load_yaml("a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n")["b"] == {"x": 2}


def test_timestamps_stay_the_text_written(event_source: str) -> None:
    data = load_yaml("a: 2026-02-30\nb: 2026-12-31\nc: !!timestamp 2026-02-30\n")
    assert data == {"a": "2026-02-30", "b": "2026-12-31", "c": "2026-02-30"}
    # Everything else keeps YAML's types.
    assert load_yaml("n: 3\nf: 0.5\nt: true\nz: null\n") == {"n": 3, "f": 0.5, "t": True, "z": None}


def test_values_that_cannot_be_built_are_yaml_errors(event_source: str) -> None:
    assert refused("x: !!int abc\n").startswith("not valid YAML (line 1): cannot read value:")
    assert refused("x: !!python/object:os.system ls\n").startswith("not valid YAML (line 1):")
    assert refused("config: [1, 2").startswith("not valid YAML (line 1): ")


def test_the_loader_reads_what_pyyaml_reads(event_source: str) -> None:
    # The shipped stacks, read the safe way, equal PyYAML's own safe_load (dates aside).
    from tests.conftest import REPO

    for path in sorted((REPO / "stacks").glob("Pulumi.*.yaml")):
        text = path.read_text()
        expected = json.loads(json.dumps(yaml.safe_load(text), default=str))
        assert load_yaml(text) == expected, path.name


# --------------------------------------------------------------------------- JSON
def test_deep_json_is_refused() -> None:
    assert refused(nested(10_000), load_json) == f"nested deeper than {MAX_DEPTH} levels"
    assert refused(nested(MAX_DEPTH + 1), load_json) == f"nested deeper than {MAX_DEPTH} levels"
    assert load_json(nested(MAX_DEPTH)) is not None
    deep_object = '{"a": ' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1)
    assert refused(deep_object, load_json) == f"nested deeper than {MAX_DEPTH} levels"


def test_json_constants_that_are_not_numbers_are_refused() -> None:
    for constant in ("NaN", "Infinity", "-Infinity"):
        assert refused(f'{{"monthly_usd": {constant}}}', load_json) == (
            f"{constant} is not a JSON number"
        )


def test_json_syntax_errors_say_where() -> None:
    assert refused('{"a": }', load_json).startswith("not valid JSON (Expecting value: line 1")


def test_too_deep_counts_lists_and_objects_only() -> None:
    assert not too_deep({"a": [{"b": "c" * 1000}]}, limit=3)
    assert too_deep({"a": [{"b": []}]}, limit=3)
    assert not too_deep("scalar", limit=0)
