"""`acknowledge`: each entry names one change id and a reason; bad ones are refused by key path,
and the plan document carries the good ones for `mlgov comment` and `mlgov diff`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.settings import SettingsError, settings_from_config
from tests.conftest import stack_config

P = "mlgov:settings.acknowledge"
GOOD = {"change": "policy.dry_run", "reason": "INC-1: the cap misfired, dry run until fixed"}


def _problems(entries: Any) -> list[str]:
    config = copy.deepcopy(stack_config("prod"))
    config["mlgov:settings"]["acknowledge"] = entries
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def test_a_good_acknowledgement_is_kept_with_its_reason_tidied() -> None:
    config = copy.deepcopy(stack_config("prod"))
    config["mlgov:settings"]["acknowledge"] = [{**GOOD, "reason": "  INC-1:  the cap\n misfired "}]
    [ack] = settings_from_config(config).acknowledge
    assert (ack.change, ack.reason) == ("policy.dry_run", "INC-1: the cap misfired")


@pytest.mark.parametrize(
    ("entries", "key"),
    [
        ([{"change": "policy.dry_run", "reason": "ok"}], f"{P}.0.reason"),
        ([{"change": "policy.dry_run"}], f"{P}.0.reason"),
        ([{"change": "two words", "reason": GOOD["reason"]}], f"{P}.0.change"),
        ([{"change": "", "reason": GOOD["reason"]}], f"{P}.0.change"),
        ([{**GOOD, "until": "2027-01-01"}], f"{P}.0.until"),
        ([GOOD, GOOD], f"{P}.1.change"),
        ({"policy.dry_run": "why"}, P),
    ],
)
def test_bad_acknowledgements_are_refused_by_key(entries: Any, key: str) -> None:
    problems = _problems(entries)
    assert any(p.startswith(f"{key}:") for p in problems), problems


def test_the_plan_document_carries_acknowledgements_and_diff_checks_their_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = json.loads((Path(__file__).parents[1] / "golden" / "plan.dev.json").read_text())
    bad = {**base, "acknowledgements": [{"change": "policy.dry_run"}]}
    b, h = tmp_path / "b.json", tmp_path / "h.json"
    b.write_text(json.dumps(base))
    h.write_text(json.dumps(bad))
    assert main(["diff", str(b), str(h)]) == 2
    err = capsys.readouterr().err
    assert "acknowledgements[0]: must be an object with string change and reason" in err
