"""The plan document (DESIGN.md contract 1): build it from a stack, read and check it.

`plan_stack` runs the real program under mocks (offline.py) and evaluates the policy rules and
cost estimates over what it registered; `load_document` reads a plan document someone else
produced and validates its shape, naming the offending path; `evaluate_document` re-runs
policies and costs over a document, which is all `check` does. Rendering is in render.py.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import yaml

from governance.costs.assumptions import UsageAssumptions
from governance.costs.errors import CostError
from governance.settings import SettingsError, settings_from_config

REPO = Path(__file__).resolve().parent.parent
STACKS = REPO / "stacks"
STACK_TYPE = "pulumi:pulumi:Stack"
COMPONENT_PREFIX = "mlgov:index:"

# The policy rules live in policies/ (CrossGuard runs them with that folder on sys.path);
# the offline check gives itself the same view.
if str(REPO / "policies") not in sys.path:
    sys.path.append(str(REPO / "policies"))

from mlgov_policies.config import PolicyConfig, PolicyConfigError  # noqa: E402
from mlgov_policies.evaluate import evaluate_resources  # noqa: E402


class InputError(Exception):
    """Bad input to the offline CLI (stack file or plan document); exit code 2."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# --------------------------------------------------------------------------- stack files
def stack_file(stack: str) -> Path:
    """The stack file of a named stack (`stacks/Pulumi.<stack>.yaml`)."""
    if not stack or "/" in stack or stack.startswith("."):
        raise InputError([f"--stack: {stack!r} is not a stack name (e.g. dev, staging, prod)"])
    path = STACKS / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        known = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS.glob("Pulumi.*.yaml"))
        raise InputError(
            [f"--stack: no stack file {path.relative_to(REPO)}; known stacks: {', '.join(known)}"]
        )
    return path


def read_stack_config(path: Path) -> dict[str, Any]:
    """The `config:` map of a Pulumi stack file, with clear errors for unreadable files."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError([f"{path}: cannot read: {err.strerror}"]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise InputError([f"{path}: not valid YAML{where}"]) from None
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):  # pyright: ignore[reportUnknownMemberType]
        raise InputError([f"{path}: a Pulumi stack file needs a top-level `config:` mapping"])
    return cast(dict[str, Any], data["config"])


def stack_name_of(path: Path) -> str:
    """`dev` for `Pulumi.dev.yaml`; the file stem otherwise."""
    name = path.name
    if name.startswith("Pulumi.") and name.endswith((".yaml", ".yml")):
        return name.split(".", 1)[1].rsplit(".", 1)[0]
    return path.stem


# --------------------------------------------------------------------------- evaluation
def is_component(type_: str) -> bool:
    """Whether a type token is one of mlgov's component resources (no cloud cost of its own)."""
    return type_.startswith(COMPONENT_PREFIX)


def _policy_config(doc: Mapping[str, Any]) -> PolicyConfig:
    raw = cast(Mapping[str, Any], doc.get("policy_config") or {})
    try:
        return PolicyConfig.from_mapping(raw)
    except PolicyConfigError as err:
        raise InputError([f"policy_config: {err}"]) from None


def _assumptions(doc: Mapping[str, Any]) -> UsageAssumptions:
    from pydantic import ValidationError

    try:
        return UsageAssumptions.model_validate(doc.get("assumptions") or {})
    except ValidationError as err:
        raise InputError(
            [f"assumptions.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors()]
        ) from None


def evaluate_document(doc: dict[str, Any]) -> dict[str, Any]:
    """Fill `monthly_usd`, `cost` and `violations` of a (validated) plan document, in place."""
    from governance.costs.budget_fit import budget_violations
    from governance.costs.estimate import estimate_resources

    # Component resources (our own `mlgov:index:*` wrappers) hold no cloud resource themselves.
    resources = [r for r in doc["resources"] if not is_component(r["type"])]
    try:
        report = estimate_resources(resources, _assumptions(doc))
    except CostError as err:
        raise InputError([f"cost: {err}"]) from None
    per_name = {rc.name: rc.monthly_usd for rc in report.resources}
    for resource in resources:
        if resource["name"] in per_name:
            resource["monthly_usd"] = round(per_name[resource["name"]], 2)
    found = evaluate_resources(resources, _policy_config(doc), stack=str(doc.get("stack") or ""))
    violations = [v.as_dict() for v in found]
    violations += budget_violations(resources, report, stack=str(doc.get("stack") or "stack"))
    doc["violations"] = violations
    doc["cost"] = report.as_dict()
    return doc


def plan_config(config: Mapping[str, Any], stack: str) -> dict[str, Any]:
    """The plan document for one stack's config (runs the program under mocks)."""
    from governance.offline import run_program

    settings = settings_from_config(config)  # fail fast, before importing pulumi_gcp
    recorded = run_program(config, stack)
    doc: dict[str, Any] = {
        "stack": stack,
        "project": settings.project,
        "region": settings.region,
        # Registration order depends on async timing; sort so plans and their diffs are stable.
        "resources": [
            {"type": r.type, "name": r.name, "inputs": r.inputs}
            for r in sorted(recorded, key=lambda r: (r.name, r.type))
        ],
        "violations": [],
        "policy_config": settings.policy_config(),
        "assumptions": settings.usage.model_dump(mode="json"),
    }
    return evaluate_document(doc)


def plan_stack(stack: str | None = None, config_path: Path | None = None) -> dict[str, Any]:
    """The plan document for `--stack NAME` or `--config PATH`."""
    path = config_path if config_path is not None else stack_file(stack or "")
    name = stack if stack is not None else stack_name_of(path)
    return plan_config(read_stack_config(path), name)


# --------------------------------------------------------------------------- documents
def _shape_problems(doc: Any) -> list[str]:
    if not isinstance(doc, dict):
        return ["document: must be a JSON object with `stack` and `resources`"]
    d: dict[str, Any] = doc  # pyright: ignore[reportUnknownVariableType]
    problems: list[str] = []
    if not isinstance(d.get("stack", ""), str):
        problems.append("stack: must be a string")
    resources = d.get("resources")
    if not isinstance(resources, list):
        return [*problems, "resources: required, must be a list of resources"]
    seen: set[str] = set()
    for i, item in enumerate(resources):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        path = f"resources[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{path}: must be an object with type, name and inputs")
            continue
        r: dict[str, Any] = item  # pyright: ignore[reportUnknownVariableType]
        for key in ("type", "name"):
            if not isinstance(r.get(key), str) or not r.get(key):
                problems.append(f"{path}.{key}: required, must be a non-empty string")
        if not isinstance(r.get("inputs", {}), dict):
            problems.append(f"{path}.inputs: must be an object")
        cost = r.get("monthly_usd")
        if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)):
            problems.append(f"{path}.monthly_usd: must be a number")
        name = r.get("name")
        if isinstance(name, str) and isinstance(r.get("type"), str):
            key = f"{r['type']}::{name}"
            if key in seen:
                problems.append(f"{path}.name: duplicate resource {name!r} of type {r['type']}")
            seen.add(key)
    for key in ("policy_config", "assumptions"):
        if d.get(key) is not None and not isinstance(d.get(key), dict):
            problems.append(f"{key}: must be an object")
    return problems


def parse_document(text: str, source: str) -> dict[str, Any]:
    """A plan document from JSON text, shape-checked; InputError names each bad path."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise InputError([f"{source}: not valid JSON ({err})"]) from None
    if problems := _shape_problems(doc):
        raise InputError([f"{source}: {p}" for p in problems])
    checked: dict[str, Any] = doc
    for resource in checked["resources"]:
        resource.setdefault("inputs", {})
    checked.setdefault("stack", "")
    return checked


def load_document(source: str) -> dict[str, Any]:
    """Read a plan document from a path, or stdin for `-`."""
    if source == "-":
        return parse_document(sys.stdin.read(), "<stdin>")
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as err:
        raise InputError([f"{source}: cannot read: {err.strerror}"]) from None
    return parse_document(text, source)


def exit_code(doc: Mapping[str, Any]) -> Literal[0, 1]:
    """1 if any mandatory violation, else 0 (advisory findings allowed)."""
    return 1 if any(v.get("enforcement") == "mandatory" for v in doc.get("violations", [])) else 0


__all__ = [
    "STACK_TYPE",
    "InputError",
    "SettingsError",
    "evaluate_document",
    "exit_code",
    "load_document",
    "parse_document",
    "plan_stack",
]
