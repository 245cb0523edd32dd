"""The plan document (docs/architecture.md#plan-document): its type and its one loader.

`plan` builds a `PlanDocument`; `check` and `diff` read one with `read_document`, which checks its
shape and reports every problem at once, each naming its path (`resources[3].name`); the JSON is
parsed with bounded nesting and size (governance/untrusted.py, `MAX_DOCUMENT_BYTES`). The same
loader reads `pulumi preview --json` and `pulumi stack export` files (formats/ converts them;
`read_input` also gives a preview's plan before the change). The usage
assumptions and policy config a document carries are parsed on demand (`assumptions_of`,
`policy_config_of`), because `diff` only needs them when it re-estimates. The JSON Schema in
plan.schema.json describes the same shape for other tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NotRequired, Required, TypedDict, cast

from pydantic import ValidationError

from governance.costs.assumptions import UsageAssumptions
from governance.costs.usage_file import UsageFile, UsageFileError, parse_usage_file
from governance.errors import CliError
from governance.inputs.project import read_source
from governance.untrusted import UntrustedInputError, load_json
from mlgov_policies.config import PolicyConfig, PolicyConfigError

if TYPE_CHECKING:
    from governance.inputs.plan_input import PlanInput

SCHEMA_VERSION = 1
"""Bumped only when a key changes meaning or goes away; added keys keep the version."""
MAX_DOCUMENT_BYTES = 128 * 1024 * 1024
"""Largest plan document read: `check --json` of 10,000 resources is ~16 MB with its cost lines
(bench/hostile_bench.py times a diff of two 50 MB documents)."""


class PlanResource(TypedDict):
    """One resource: its type token, logical name, input properties and monthly estimate."""

    type: str
    name: str
    inputs: dict[str, Any]
    monthly_usd: NotRequired[float | None]
    worst_case_monthly_usd: NotRequired[float]
    """Informational monthly ceiling the resource enforces (a query quota); not in any total."""


class PlanDocument(TypedDict, total=False):
    """A plan: what a stack creates, what the policies found, what it costs."""

    schema_version: int
    stack: Required[str]
    project: str
    region: str
    currency: str
    price_catalog: dict[str, Any]
    resources: Required[list[PlanResource]]
    violations: list[dict[str, Any]]
    warnings: list[dict[str, str]]
    cost: dict[str, Any]
    policy_config: dict[str, Any]
    assumptions: dict[str, Any]
    usage_file: dict[str, Any]
    acknowledgements: list[dict[str, str]]
    """Weakening changes the stack accepts (`mlgov:settings.acknowledge`): {change, reason}."""
    source: dict[str, Any]
    """For a file in one of Pulumi's formats: which, and what was read and skipped (formats/)."""
    input_findings: list[dict[str, Any]]
    """Findings about the input file's own settings, in the violation shape (a Pulumi provider's
    reserved default labels, formats/default_labels.py); `check` adds them to `violations`."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _resource_problems(i: int, item: Any, seen: set[tuple[str, str]]) -> list[str]:
    path = f"resources[{i}]"
    if not isinstance(item, dict):
        return [f"{path}: must be an object with type, name and inputs"]
    r = cast(dict[str, Any], item)
    problems = [
        f"{path}.{key}: required, must be a non-empty string"
        for key in ("type", "name")
        if not isinstance(r.get(key), str) or not r.get(key)
    ]
    if not isinstance(r.get("inputs", {}), dict):
        problems.append(f"{path}.inputs: must be an object")
    if r.get("monthly_usd") is not None and not _number(r.get("monthly_usd")):
        problems.append(f"{path}.monthly_usd: must be a number")
    if not problems:
        key = (str(r["type"]), str(r["name"]))
        if key in seen:
            problems.append(f"{path}.name: duplicate resource {key[1]!r} of type {key[0]}")
        seen.add(key)
    return problems


def shape_problems(doc: Any) -> list[str]:
    """Every way `doc` is not a plan document (empty when it is one)."""
    if not isinstance(doc, dict):
        return ["document: must be a JSON object with `stack` and `resources`"]
    d = cast(dict[str, Any], doc)
    problems: list[str] = []
    if not isinstance(d.get("stack", ""), str):
        problems.append("stack: must be a string")
    resources = d.get("resources")
    if not isinstance(resources, list):
        return [*problems, "resources: required, must be a list of resources"]
    seen: set[tuple[str, str]] = set()
    for i, item in enumerate(cast(list[Any], resources)):
        problems += _resource_problems(i, item, seen)
    for key in (
        "policy_config",
        "policy_pack_config",
        "assumptions",
        "cost",
        "usage_file",
        "limits",
    ):
        if d.get(key) is not None and not isinstance(d.get(key), dict):
            problems.append(f"{key}: must be an object")
    problems += _violations_problems(d.get("violations"))
    problems += _violations_problems(d.get("input_findings"), "input_findings")
    problems += _pairs_problems(d.get("acknowledgements"), "acknowledgements", ("change", "reason"))
    return problems + _pairs_problems(d.get("warnings"), "warnings", ("key", "message"))


def _violations_problems(violations: Any, name: str = "violations") -> list[str]:
    """Problems of an optional list of findings (`diff` and `comment` read it as written)."""
    if violations is None:
        return []
    if not isinstance(violations, list):
        return [f"{name}: must be a list of {{policy, resource, enforcement, message}} objects"]
    return [
        f"{name}[{i}]: must be an object"
        for i, item in enumerate(cast(list[Any], violations))
        if not isinstance(item, dict)
    ]


def _pairs_problems(items: Any, name: str, keys: tuple[str, str]) -> list[str]:
    """Problems of an optional list of two-string objects (`warnings`, `acknowledgements`)."""
    if items is None:
        return []
    first, second = keys
    if not isinstance(items, list):
        return [f"{name}: must be a list of {{{first}, {second}}} objects"]
    problems: list[str] = []
    for i, item in enumerate(cast(list[Any], items)):
        entry = cast(dict[str, Any], item) if isinstance(item, dict) else {}
        if not all(isinstance(entry.get(k), str) for k in keys):
            problems.append(f"{name}[{i}]: must be an object with string {first} and {second}")
    return problems


def parse_input(text: str, source: str) -> PlanInput:
    """The plan in JSON text: mlgov's own document, or a Pulumi preview or stack export.

    Pulumi's formats are detected from the content and converted (governance/inputs/);
    CliError names each bad path, or says what to run when the file is none of them.
    """
    from governance.inputs.detect import explain_not_json, read_format
    from governance.inputs.plan_input import PlanInput

    try:
        doc = load_json(text)
    except UntrustedInputError as err:
        if err.syntax is not None:  # not JSON: say what it is, when it is Pulumi's event stream
            raise CliError(explain_not_json(text, source, err.syntax)) from None
        raise CliError(f"{source}: {err}") from None
    if (converted := read_format(doc, source)) is not None:
        return converted
    if problems := shape_problems(doc):
        raise CliError([f"{source}: {p}" for p in problems])
    checked = cast(PlanDocument, doc)
    for resource in checked["resources"]:
        resource.setdefault("inputs", {})
    checked.setdefault("stack", "")
    return PlanInput(checked)


def parse_document(text: str, source: str) -> PlanDocument:
    """A plan document from JSON text, shape-checked (a Pulumi file: the plan after it)."""
    return parse_input(text, source).plan


def read_input(source: str) -> PlanInput:
    """Read a plan from a path, or stdin for `-`, in any format `parse_input` reads."""
    text, name = read_source(source, MAX_DOCUMENT_BYTES)
    return parse_input(text, name)


def read_judged(source: str, partial: bool = False, base: bool = False) -> PlanInput:
    """`read_input`, refusing a plan that cannot be judged (governance/review/unjudgeable.py).

    Every problem is one line of the CliError: no Google Cloud resource (not asked of a `base`,
    which may be a stack before its first resource), a preview without its `same` steps unless
    `partial`, a size or count out of range, a function below its working minimum.
    """
    from governance.review.unjudgeable import problems as unjudgeable

    read = read_input(source)
    name = "<stdin>" if source == "-" else source
    if refused := unjudgeable(read.plan, name, partial, require_google=not base):
        raise CliError(refused)
    return read


def read_document(source: str, partial: bool = False) -> PlanDocument:
    """Read a plan document from a path, or stdin for `-`, refusing one that cannot be judged."""
    return read_judged(source, partial).plan


def assumptions_of(doc: Mapping[str, Any], source: str = "") -> UsageAssumptions:
    """The document's usage assumptions; CliError names each bad key."""
    where = f"{source}: " if source else ""
    try:
        return UsageAssumptions.model_validate(doc.get("assumptions") or {})
    except ValidationError as err:
        raise CliError(
            [f"{where}assumptions.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors()]
        ) from None


def policy_config_of(doc: Mapping[str, Any], source: str = "") -> PolicyConfig:
    """The document's policy configuration; CliError names the problem."""
    where = f"{source}: " if source else ""
    try:
        return PolicyConfig.from_mapping(cast(Mapping[str, Any], doc.get("policy_config") or {}))
    except PolicyConfigError as err:
        raise CliError(f"{where}policy_config: {err}") from None


def usage_file_of(doc: Mapping[str, Any], source: str = "") -> UsageFile | None:
    """The usage file a document carries (`usage_file`), or None; CliError names each bad key."""
    raw = doc.get("usage_file")
    if raw is None:
        return None
    where = f"{source}: " if source else ""
    body = {k: v for k, v in cast(Mapping[str, Any], raw).items() if k != "source"}
    try:
        return parse_usage_file(body, str(cast(Mapping[str, Any], raw).get("source") or ""))
    except UsageFileError as err:
        raise CliError([f"{where}usage_file.{p}" for p in err.problems]) from None
