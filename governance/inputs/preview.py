"""`pulumi preview --json` (the preview digest, FORMAT §1) as two plan documents: after and before.

The digest (FORMAT §1.2) lists steps; which state of a step holds the inputs depends on its op
(FORMAT §1.4): the state after the change is `newState` for create, update, replace and same
(and import); the state before it is `oldState` for update, replace, same and delete (and
discard). `newState` is never assumed to exist (a delete has none). A replacement is one logical
`replace` step unless `--show-replacement-steps` adds the physical `create-replacement` and
`delete-replaced` steps (FORMAT §1.5); those count only for a URN without a logical step, so a
replacement is never counted twice. A `read-replacement` deletes the managed resource it reads
another into (before side only); a `read` prices nothing new, except a managed resource it
relinquishes (same id), which keeps billing after; a `refresh` counts only for a resource no
other step lists (unchanged, both sides): a drifted resource that `--refresh` lists again as an
update counts once, by the program's step (`_side` has the whole table).
An `import` adopts a resource that already runs, so it is on both sides (its newState before too)
and changes no cost. A delete does not always end a bill: with `retainOnDelete` Pulumi only
forgets the resource (FORMAT §1.8 field; engine `DeleteStep.Apply`), so it stays on the "after"
side as `retained` (`_side`).

The "after" document is what `check` evaluates; with the "before" one, `diff` shows a preview's
own change (deletes cost less, replaces show both sides). Project, region and zone come through
each step's provider (location.py), default labels too (default_labels.py). A digest that is not
a whole preview of the program is refused rather than priced: one the preview failed to finish
(error diagnostics, FORMAT §1.1 and §5: its steps stop where the program failed), a `refresh
--preview-only` digest, one listing fewer steps than its changeSummary counts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any, cast

from governance.errors import CliError
from governance.inputs.document import SCHEMA_VERSION, PlanDocument
from governance.inputs.location import (
    GCP_PROVIDER,
    ProviderDefaults,
    Providers,
    from_config,
    from_provider,
    location_problems,
)
from governance.inputs.plan_input import PlanInput, as_object, first_names, warning
from governance.inputs.resources import (
    STACK_TYPE,
    Collected,
    is_provider,
    state_at,
    unique_names,
)
from governance.inputs.urns import parse_urn
from governance.inputs.values import Cleaner

FORMAT = "pulumi preview --json"
RERUN = "re-run `pulumi preview --json > preview.json`"
# Ops whose newState is the resource after the change, and whose oldState is the one before.
# A `read-replacement` reads another cloud resource into the URN of a managed one, which the
# engine then deletes (GenerateReadSteps: the IDs differ), so its oldState is only "before".
AFTER = frozenset({"create", "update", "replace", "same", "import"})
BEFORE = frozenset({"update", "replace", "same", "delete", "discard", "import", "read-replacement"})
# Steps whose resource exists in the cloud before the change even without an oldState: an
# import adopts a resource that already runs (and bills), so it is on both sides and changes no
# cost; a same step without oldState (never seen, but nothing guarantees it) is the same too.
ALREADY_THERE = frozenset({"same", "import"})
# Physical halves of a replacement (`--show-replacement-steps`), used only without a logical step.
PHYSICAL_AFTER = frozenset({"create-replacement", "import-replacement"})
PHYSICAL_BEFORE = frozenset({"delete-replaced", "discard-replaced"})
PHYSICAL = PHYSICAL_AFTER | PHYSICAL_BEFORE
# Steps priced by their own rule in `_side` (FORMAT §1.4 table): a `read` of a resource the
# stack managed (same ID: Pulumi "relinquishes" it, it keeps running and billing), a `refresh`
# that is the only step of its URN (an unchanged resource; its program step is a hidden same).
# Any other read, refresh or remove-pending-replace changes nothing the stack pays for.
NOT_PRICED = frozenset({"read", "refresh", "remove-pending-replace"})
KNOWN = AFTER | BEFORE | PHYSICAL | NOT_PRICED
# Steps that delete the old resource (a replacement's logical step: its old half).
RETAINABLE = frozenset({"delete", "replace", "delete-replaced", "read-replacement"})
# Steps whose newState may be a resource adopted with `import` (it already runs before).
REPLACING_IMPORTS = frozenset({"replace", "import-replacement"})
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _diagnostics(doc: Mapping[str, Any], severity: str | None = "error") -> list[str]:
    """Diagnostic messages (of one severity; None: any), ANSI colours removed (FORMAT §1.2, §5)."""
    raw: Any = doc.get("diagnostics") or []
    found: list[str] = []
    for diag in cast(list[Any], raw) if isinstance(raw, list) else []:
        entry = as_object(diag)
        if severity is None or entry.get("severity") == severity:
            message = " ".join(_ANSI.sub("", str(entry.get("message", ""))).split())
            found.append(message[:300] or "(no message)")
    return found


def read_preview(doc: Mapping[str, Any], source: str) -> PlanInput:
    """The plan after a preview's changes and the plan before them; CliError if unusable."""
    steps_raw = doc.get("steps")
    errors = _diagnostics(doc)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise CliError(
            f"{source}: a `{FORMAT}` digest of a preview that failed: {errors[0]}{more}; "
            f"its steps stop where it failed, so nothing can be checked: fix that and {RERUN}"
        )
    if steps_raw is not None and not isinstance(steps_raw, list):
        raise CliError(f"{source}: steps: must be a list of preview steps")
    if not steps_raw:
        said = _diagnostics(doc, None)
        raise CliError(
            f"{source}: a `{FORMAT}` digest with no steps (a finished preview lists at least the "
            "stack), "
            + (
                f"only diagnostics ({said[0]})"
                if said
                else "so the preview did not get to planning"
            )
            + f": see its stderr, fix that and {RERUN}"
        )
    steps = _steps(cast(list[Any], steps_raw), source)
    logical = {urn for urn, op, _, _ in steps if op not in PHYSICAL}
    ops = Counter(op for _, op, _, _ in steps)
    _refuse_fragments(doc, steps, logical, ops, source)
    config: Any = doc.get("config", {})
    if not isinstance(config, dict):
        raise CliError(f"{source}: config: must be an object of config keys")
    if problems := location_problems(cast(Mapping[str, Any], config), "gcp:"):
        raise CliError([f"{source}: config.{p}" for p in problems])
    default = from_config(cast(Mapping[str, Any], config))
    after_providers, before_providers = _providers(steps, default, source)
    unknown_ops = [(urn, op) for urn, op, _, _ in steps if op not in KNOWN]
    cleaner = Cleaner()
    after = _side(steps, logical, after_providers, cleaner, before=False)
    warnings = [
        warning(source, f"step {urn}: op {op!r} is not one mlgov knows: skipped")
        for urn, op in unknown_ops
    ]
    stack = next((u.stack for urn, *_ in steps if (u := parse_urn(urn)) is not None), "")
    refreshed = _refresh_only(steps)
    warnings += after.warnings(source) + _omitted_sames(doc, ops, refreshed, source)
    warnings += _retained(after, source) + _no_stack_step(steps, source)
    if doc.get("maybeCorrupt") is True:
        warnings.append(warning(source, "the preview marked its digest maybeCorrupt: re-run it"))
    summary: dict[str, Any] = {
        "format": FORMAT,
        "file": source,
        "ops": dict(sorted(ops.items())),
        "read": len(after.resources),
        "skipped": dict(sorted(after.skipped.items())),
        "secrets": cleaner.secrets,
        "unknowns": cleaner.unknowns,
    }
    if omitted := omitted_sames(doc, ops, refreshed):
        # Unchanged resources counted but not listed: unjudgeable.py refuses the file unless
        # --partial says to judge only what changes.
        summary["omitted_sames"] = omitted

    def before() -> PlanDocument:  # only `diff` and `comment` need it: converted on demand
        side = _side(steps, logical, before_providers, Cleaner(), before=True)
        doc = _document(stack, default, side, [], dict(summary))
        return _with_findings(doc, before_providers)

    return PlanInput(
        plan=_with_findings(_document(stack, default, after, warnings, summary), after_providers),
        format=FORMAT,
        read_before=before,
    )


def _side(
    steps: list[Step], logical: set[str], providers: Providers, cleaner: Cleaner, *, before: bool
) -> Collected:
    """The resources after the change (or before it) by op (FORMAT §1.4 table).

    After the change, a deleted or replaced resource whose state says `retainOnDelete` is still
    there: Pulumi's delete step only forgets it (its `Apply` skips the provider's Delete), so
    Google keeps billing it. It stays on the "after" side as `retained` (the old half of a
    replacement as `NAME (retained)`), priced but no longer checked by the rules. A managed
    resource a `read` relinquishes (the program now `get`s the same ID) is kept the same way.
    A replacement by an imported resource (its newState has `importID`) adopts one that already
    runs: before the change both run, the imported one as NAME and the old one as
    `NAME (replaced)`, so the diff shows the old one going and the adopted one unchanged.
    """
    ops = BEFORE | PHYSICAL_BEFORE if before else AFTER | PHYSICAL_AFTER
    urn_ops = _ops_by_urn(steps)
    adopted = {
        urn
        for urn, op, _, new in steps
        if op in REPLACING_IMPORTS
        and (op in PHYSICAL) == (urn not in logical)
        and _state(new).get("importID")
    }
    chosen: dict[str, tuple[str, Located]] = {}
    retained: dict[str, tuple[str, Located]] = {}
    replaced: dict[str, tuple[str, Located]] = {}
    for urn, op, old, new in steps:
        physical_half = op in PHYSICAL and urn in logical  # the logical step counts
        retains = old is not None and op in RETAINABLE and _retains(old)
        if retains and not before and not physical_half:
            retained[urn] = (op, cast(Located, old))
        if op == "read":
            if old is not None and _state(old).get("external") is not True:
                (chosen if before else retained)[urn] = (op, old)  # relinquished, still billing
            continue
        if op == "refresh":
            if urn_ops[urn] == {"refresh"} and new is not None:
                chosen[urn] = (op, new)  # its refreshed state, on both sides
            continue
        if op not in ops or physical_half:
            continue
        if urn in adopted and op in REPLACING_IMPORTS:
            op = "import"  # the adopted resource: it runs before and after, like an import
        if before and urn in adopted:
            if op == "import" and new is not None:
                chosen[urn] = (op, new)
            if old is not None:
                replaced[urn] = (op if op != "import" else "replace", old)
            continue
        located = (old if old is not None or op not in ALREADY_THERE else new) if before else new
        if located is not None:
            # One resource per URN: with `--refresh`, a drifted resource's refresh step is
            # shown as an update or delete (FORMAT §1.4) before the program's own step for it,
            # which is the one that says what the stack will hold.
            chosen[urn] = (op, located)
    collected = Collected()
    for op, located in chosen.values():
        state, parsed = state_at(*located)
        defaults = providers.of(state.get("provider"))
        collected.add(state, parsed, cleaner, defaults, extra={"op": op})
    for urn, (op, located) in replaced.items():
        state, parsed = state_at(*located)
        name = f"{parsed.name} (replaced)" if urn in chosen else parsed.name
        defaults = providers.of(state.get("provider"))
        collected.add(state, parsed, cleaner, defaults, extra={"op": op}, name=name)
    for urn, (op, located) in retained.items():
        state, parsed = state_at(*located)
        name = f"{parsed.name} (retained)" if urn in chosen else parsed.name
        defaults = providers.of(state.get("provider"))
        extra = {"op": op, "retained": True}
        collected.add(state, parsed, cleaner, defaults, extra=extra, name=name)
    return collected


def _state(located: Located | None) -> dict[str, Any]:
    """The state object of a located state (an empty one when absent or not an object)."""
    return as_object(located[0]) if located is not None else {}


def _retains(located: Located) -> bool:
    """Whether a state says Pulumi leaves the cloud resource in place when deleting it."""
    state = as_object(located[0])
    return state.get("retainOnDelete") is True and state.get("external") is not True


Located = tuple[Any, str]
"""A raw state and its key path (for errors)."""
Step = tuple[str, str, Located | None, Located | None]
"""(urn, op, oldState, newState)."""


def _steps(raw: list[Any], source: str) -> list[Step]:
    """(urn, op, oldState, newState) per step, in URN order.

    The order of resources is not stable (FORMAT §1.5); the file's order within one URN is kept
    (a refresh's step comes before the program's).
    """
    steps: list[Step] = []
    for i, item in enumerate(raw):
        path = f"{source}: steps[{i}]"
        if not isinstance(item, dict):
            raise CliError(f"{path}: must be a preview step object")
        step = cast(dict[str, Any], item)
        op, urn = step.get("op"), step.get("urn")
        if not isinstance(op, str) or not op:
            raise CliError(f"{path}.op: required, must be a step op such as create or update")
        if not isinstance(urn, str) or not urn:
            raise CliError(f"{path}.urn: required, must be the resource's URN")
        old = (step["oldState"], f"{path}.oldState") if step.get("oldState") is not None else None
        new = (step["newState"], f"{path}.newState") if step.get("newState") is not None else None
        steps.append((urn, op, old, new))
    steps.sort(key=lambda s: s[0])  # stable: the order within one URN is kept
    return steps


def _providers(
    steps: list[Step], default: ProviderDefaults, source: str
) -> tuple[Providers, Providers]:
    """Provider configs by URN after and before the change (explicit providers only, §1.5).

    A gcp provider's project, region and zone are held to what Google offers, as the stack
    config's are: CliError naming the provider.
    """
    after: dict[str, ProviderDefaults] = {}
    before: dict[str, ProviderDefaults] = {}
    for urn, op, old, new in steps:
        new_state = as_object(new[0]) if new is not None else {}
        old_state = as_object(old[0]) if old is not None else {}
        # a provider this preview creates did not exist before it (its findings are new)
        was = old_state or (new_state if op in ALREADY_THERE else {})
        for state, index in ((new_state, after), (was, before)):
            if is_provider(state):
                inputs = as_object(state.get("inputs"))
                if state.get("type") == GCP_PROVIDER and (problems := location_problems(inputs)):
                    raise CliError([f"{source}: provider {urn}: inputs.{p}" for p in problems])
                index[urn] = from_provider(urn, inputs)
    return Providers(after, default), Providers(before, default)


def _retained(after: Collected, source: str) -> list[dict[str, str]]:
    """Warnings naming the resources the change leaves in the cloud without managing them.

    A delete with retainOnDelete, and a managed resource a `read` relinquishes (the program now
    reads the same ID with `get`): both keep running, and billing, outside the stack.
    """
    kept = [r for r in after.resources if r.get("retained") is True]
    names = sorted(str(r["name"]) for r in kept if r.get("op") != "read")
    read = sorted(str(r["name"]) for r in kept if r.get("op") == "read")
    found: list[dict[str, str]] = []
    if names:
        found.append(
            warning(
                source,
                f"{len(names)} resource(s) ({first_names(names)}) are deleted with "
                "retainOnDelete: Pulumi only forgets them and Google keeps billing them, so the "
                "totals keep them (delete them in Google Cloud, or drop retainOnDelete first, to "
                "stop paying)",
            )
        )
    if read:
        found.append(
            warning(
                source,
                f"{len(read)} resource(s) ({first_names(read)}) the stack managed are now read "
                "with `get` (a `read` step of the same ID): Pulumi stops managing them but they "
                "keep running and billing, so the totals keep them, no longer checked by the "
                "rules",
            )
        )
    return found


def _is_stack(urn: str) -> bool:
    parsed = parse_urn(urn)
    return parsed is not None and parsed.qualified_type == STACK_TYPE


def _ops_by_urn(steps: list[Step]) -> dict[str, set[str]]:
    """The ops of the steps that list each URN."""
    by_urn: dict[str, set[str]] = {}
    for urn, op, _, _ in steps:
        by_urn.setdefault(urn, set()).add(op)
    return by_urn


def _refresh_only(steps: list[Step]) -> int:
    """How many URNs only a `refresh` step lists (unchanged resources, priced by it)."""
    return sum(1 for ops in _ops_by_urn(steps).values() if ops == {"refresh"})


# Ops every finished digest lists as often as changeSummary counts them (FORMAT §1.2, §1.5):
# only `same` (without --show-sames), reads (without --show-reads) and the physical halves of a
# replacement are counted or listed apart. A refresh may add updates and deletes, never remove.
_ALWAYS_LISTED = ("create", "update", "delete", "replace", "import", "discard")


def _refuse_fragments(
    doc: Mapping[str, Any], steps: list[Step], logical: set[str], ops: Counter[str], source: str
) -> None:
    """CliError for a digest that is not a whole `pulumi preview` of the program.

    Steps of several stacks (URNs carry the project and stack) are files put together.
    `pulumi refresh --preview-only --json` prints the same digest, but runs no program: every
    step is the state's own `refresh` (the root stack's too), so it says nothing about what the
    program will create. A digest that lists fewer creates, updates, deletes or replaces than its
    own `changeSummary` counts was cut or filtered after Pulumi wrote it: pricing what is left
    would present a fragment as the program.
    """
    stacks = sorted({f"{u.project}/{u.stack}" for urn, *_ in steps if (u := parse_urn(urn))})
    if len(stacks) > 1:
        raise CliError(
            f"{source}: steps: URNs of {len(stacks)} stacks ({first_names(stacks, 3)}): one "
            "preview holds one stack's steps, so this is several files put together; check each "
            "stack's `pulumi preview --json` on its own"
        )
    stack_ops = {op for urn, op, _, _ in steps if _is_stack(urn)}
    all_ops = {op for _, op, _, _ in steps}
    if stack_ops == {"refresh"} or (
        not stack_ops and "refresh" in all_ops and all_ops <= {"refresh", "update", "delete"}
    ):
        raise CliError(
            f"{source}: a `pulumi refresh --preview-only --json` digest (every step is a refresh "
            "of the state, the stack's too): it compares the state with the cloud and runs no "
            "program, so it cannot say what the program will cost: run `pulumi preview --json` "
            "(with --refresh to refresh first)"
        )
    summary = as_object(doc.get("changeSummary"))
    listed = Counter(ops)
    # a replacement shown only by its physical halves is listed all the same
    listed["replace"] += len({u for u, op, _, _ in steps if op in PHYSICAL and u not in logical})
    short = [
        f"{counted} {op}" + f" but lists {listed[op]}"
        for op in _ALWAYS_LISTED
        if isinstance(counted := summary.get(op), int)
        and not isinstance(counted, bool)
        and counted > listed[op]
    ]
    if short:
        raise CliError(
            f"{source}: steps: its changeSummary counts {'; '.join(short)}: the digest was cut or "
            "filtered after Pulumi wrote it, so its totals would price a fragment of the "
            f"program: {RERUN} and pass the file unchanged"
        )


def _no_stack_step(steps: list[Step], source: str) -> list[dict[str, str]]:
    """A warning when the root stack's step is missing (every finished digest lists it)."""
    if any(_is_stack(urn) for urn, *_ in steps):
        return []
    return [
        warning(
            source,
            f"steps: no step for the root stack ({STACK_TYPE}), which every finished `{FORMAT}` "
            "lists: the file may be a fragment of the preview (filtered or cut), and then the "
            "totals leave out what is missing",
        )
    ]


def omitted_sames(doc: Mapping[str, Any], ops: Counter[str], refreshed: int) -> int:
    """How many unchanged resources changeSummary counts but the steps do not list.

    URNs a `--refresh` preview lists by their refresh step alone count as listed.
    """
    summary: Any = doc.get("changeSummary")
    counted = cast(Mapping[str, Any], summary).get("same") if isinstance(summary, dict) else None
    if not isinstance(counted, int) or isinstance(counted, bool):
        return 0
    return max(counted - ops["same"] - refreshed, 0)


def _omitted_sames(
    doc: Mapping[str, Any], ops: Counter[str], refreshed: int, source: str
) -> list[dict[str, str]]:
    """A warning when unchanged resources are counted but not listed (no `--show-sames`)."""
    missing = omitted_sames(doc, ops, refreshed)
    if not missing:
        return []
    return [
        warning(
            source,
            f"{missing} unchanged resource(s) are counted in changeSummary but not listed: run "
            "`pulumi preview --json --show-sames` so the totals, budgets and stack-wide rules "
            "see the whole stack, not only what changes",
        )
    ]


def _with_findings(doc: PlanDocument, providers: Providers) -> PlanDocument:
    """The document with the findings about its providers' settings (`input_findings`)."""
    if found := providers.reserved_label_findings():
        doc["input_findings"] = found
    return doc


def _document(
    stack: str,
    default: ProviderDefaults,
    collected: Collected,
    warnings: list[dict[str, str]],
    summary: dict[str, Any],
) -> PlanDocument:
    unique_names(collected.resources)
    collected.resources.sort(key=lambda r: (r["name"], r["type"]))
    doc: PlanDocument = {
        "schema_version": SCHEMA_VERSION,
        "stack": stack,
        "resources": collected.resources,
        "source": summary,
    }
    if project := default.values.get("project"):
        doc["project"] = project
    if region := default.region:
        doc["region"] = region
        doc["assumptions"] = {"default_region": region}
    if warnings:
        doc["warnings"] = warnings
    return doc
