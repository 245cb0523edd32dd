"""Untrusted text cannot drive the terminal: no escape sequence or carriage return reaches it.

A plan document, preview or stack export can come with a pull request, and CI prints what
`check`, `diff` and `explain` say into a log people read. A resource named
`nb\\x1b[8m...` would hide the rest of the line (SGR 8, conceal) and `\\r` would let the text
after it overwrite a finding. Found feeding such names to `check`: they reached stdout raw.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.cli.main import main

NAME = "nb\x1b[8mhidden\rOK\x9b2J\u202eevil"


def _plan(tmp_path: Path) -> Path:
    doc = {
        "stack": "dev",
        "resources": [
            {
                "type": "gcp:workbench/instance:Instance",
                "name": NAME,
                "inputs": {
                    "location": "us-central1-a",
                    "gceSetup": {"machineType": "n1-standard-4\x1b[2J"},
                },
            }
        ],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["check", "{plan}"],
        ["check", "{plan}", "--explain"],
        ["diff", "{empty}", "{plan}"],
        ["check", "{plan}", "--explain", NAME],
        ["check", "{plan}", "--explain", "nosuch\x1b[2J"],  # an error line quoting the argument
    ],
)
@pytest.mark.parametrize("columns", ["200", "80"])
def test_control_characters_are_shown_not_sent(
    args: list[str],
    columns: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # At 80 columns the findings naming the resource wrap: textwrap turned the `\r` into a space
    # there (safe, but the marker was lost) until render made the text visible before wrapping.
    monkeypatch.setenv("COLUMNS", columns)
    plan, empty = _plan(tmp_path), tmp_path / "empty.json"
    empty.write_text(json.dumps({"stack": "dev", "resources": []}))
    code = main([a.replace("{plan}", str(plan)).replace("{empty}", str(empty)) for a in args])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), err
    for stream in (out, err):
        assert not any(ch in stream for ch in "\x1b\r\x9b\u202e"), stream
    assert "nb\\x1b[8mhidden\\rOK" in out + err or "nosuch\\x1b[2J" in err


def test_json_keeps_the_name_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(_plan(tmp_path)), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["resources"][0]["name"] == NAME
