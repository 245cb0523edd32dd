"""The PR comment's big documents: the golden plans, grown by notebooks, with governance weakened.

bench/comment_bench.py times the comment on them; tests/cli/test_comment_safety.py checks the
same comment is safe and fits. They live here, not in tests/, because nothing outside tests/
imports tests/ (tests/layout/test_import_rules.py). The golden plans are the program's own plan
documents for dev, staging and prod, recorded in tests/golden/ (read as data, never imported).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"


def golden(stack: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"plan.{stack}.json").read_text())


def with_notebooks(doc: dict[str, Any], count: int) -> dict[str, Any]:
    """`doc` plus `count` copies of its notebook and its office-hours job, costs carried."""
    head = copy.deepcopy(doc)
    nb = next(r for r in head["resources"] if r["name"] == "notebooks-oncall")
    job = next(r for r in head["resources"] if r["name"] == "notebooks-oncall-stop")
    added = 0.0
    for i in range(count):
        for template in (nb, job):
            clone = copy.deepcopy(template)
            clone["name"] = template["name"].replace("oncall", f"nb-{i:04d}")
            head["resources"].append(clone)
            added += clone["monthly_usd"]
    head["cost"]["monthly_usd"] += added
    head["cost"]["baseline_monthly_usd"] += added * 3
    return head


def weaken(doc: dict[str, Any]) -> dict[str, Any]:
    """Dry run on in every function's policy (a governance weakening)."""
    head = copy.deepcopy(doc)
    for r in head["resources"]:
        env = r["inputs"].get("serviceConfig", {}).get("environmentVariables", {})
        if "MLGOV_POLICY" in env:
            env["MLGOV_POLICY"] = json.dumps({**json.loads(env["MLGOV_POLICY"]), "dry_run": True})
    return head
