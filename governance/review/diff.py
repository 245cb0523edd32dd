"""`mlgov diff`: the cost change between two plan documents, for pull requests (like Infracost's).

A document's per-resource `monthly_usd` and its `cost` totals are used when every resource has
them (and no `--usage-file` asks for other usage); otherwise the whole document is re-estimated
from its inputs, its own "assumptions" key and the usage file. Resources are matched by (type,
name); a resource the head replaces (a preview's `replace` step: the old one is deleted, a new
one created) is `replaced`, not `changed`, and shown even when its cost stays the same.

One rounding rule (`cents`), the one `plan` and `check` apply: every amount is rounded to the
cent once, from the exact estimate: each resource's monthly cost, and each total (so `diff` of a
Pulumi file, which re-estimates, and `comment`, which reads evaluated plans, show the same
figures). A change is the difference of two rounded amounts, so a row's before, after and change
always agree; the rows of a table may differ from its total by a few cents of rounding.
Documents are read by document.py (the loader `check` uses too). Rendering: plain text, Markdown
or JSON; types are spelled as `plan` spells them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from governance.costs.catalog import Catalog
from governance.costs.errors import CostError, add_context
from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import UsageFile
from governance.inputs.document import assumptions_of, usage_file_of
from governance.review.render import short_type
from mlgov_policies.vocabulary import is_component

CENT = 0.005
IN_DOCUMENT = "the usage file in the document"
MARKDOWN_HEADING = "### mlgov cost estimate"
REPLACED_NOTE = (
    "replaced: the old resource is deleted and a new one created (what it held goes with it "
    "unless copied); before is the old one's monthly cost, after the new one's"
)
# Pulumi's own resources (the stack, providers) cost nothing, like mlgov's components.
_PULUMI_TYPES = "pulumi:"
# Preview ops (a converted preview's rows carry `op`) that delete a resource and create its
# replacement: the logical step, or the physical one `--show-replacement-steps` lists alone.
REPLACE_OPS = frozenset({"replace", "create-replacement", "import-replacement"})
UNPRICED_NOTE = (
    "unpriced: no price on that side (an input known only after apply, or no cost model); the "
    "totals leave it out, so its change is unknown, not a saving or a rise"
)
RETAINED_NOTE = (
    "retained: deleted from the stack with retainOnDelete (or, on a `read` step, now read with "
    "`get` instead of managed), so Pulumi forgets it but leaves it in Google Cloud, where it keeps "
    "billing until someone deletes it there"
)


def cents(value: float) -> float:
    """An amount rounded to the cent: the one rounding rule of plans, diffs and comments."""
    return round(value, 2)


@dataclass(frozen=True, slots=True)
class CostChange:
    """One resource whose monthly cost differs between base and head."""

    name: str
    type: str
    status: str  # added | removed | changed | replaced | retained
    before: float
    after: float
    unpriced_before: bool = False
    unpriced_after: bool = False

    @property
    def delta(self) -> float:
        """Change in USD/month: after minus before, both already rounded to the cent."""
        return cents(self.after - self.before)

    @property
    def shown_delta(self) -> str:
        """The change as people read it: "unknown" when a side has no price (counted as $0)."""
        return "unknown" if self.unpriced_before or self.unpriced_after else _signed(self.delta)


@dataclass(frozen=True)
class CostBasis:
    """What a plan's totals hold beyond its resources' list prices (the footer says it)."""

    usage_file: str | None = None
    """The usage file whose declared usage (egress, operations, queries) the totals price."""
    left_out: int = 0
    """Usage-based parts nobody declared: not in the totals."""
    commitment: str = "none"
    """A committed-use assumption ("1y", "3y"): machines at committed-use prices."""

    def prices(self) -> str:
        """Which prices the totals use."""
        if self.commitment != "none":
            return f"committed-use prices ({self.commitment}) where they apply, list prices else"
        return "list prices (sustained-use discounts where Google applies them)"

    def usage(self) -> str:
        """Which usage-based charges (egress, operations, queries) the totals hold."""
        if self.usage_file is not None:
            named = (
                self.usage_file
                if self.usage_file == IN_DOCUMENT
                else f"the usage file {self.usage_file}"
            )
            held = f"usage-based charges (egress, operations, queries) as {named} declares"
            return held + (
                f", not the {self.left_out} part(s) it leaves undeclared" if self.left_out else ""
            )
        if self.left_out:
            return (
                f"no usage-based charges: {self.left_out} part(s) that depend on usage (egress, "
                "operations, queries) wait for a --usage-file"
            )
        return "no usage-based charges (egress, operations, queries)"


@dataclass(frozen=True)
class PlanCost:
    """Monthly cost per (type, name) and the totals of one plan document."""

    per_resource: dict[tuple[str, str], float]
    monthly_usd: float
    baseline_monthly_usd: float
    reestimated: bool = False
    unpriced: frozenset[tuple[str, str]] = frozenset()
    """(type, name) of resources without a price (counted as $0 in the totals)."""
    replaced: frozenset[tuple[str, str]] = frozenset()
    """(type, name) of resources this plan replaces (a preview's replace steps)."""
    retained: frozenset[tuple[str, str]] = frozenset()
    """(type, name) of resources this plan deletes with retainOnDelete (still billed)."""
    basis: CostBasis = CostBasis()
    """What the totals hold: which prices, and which usage-based charges."""


def totals_note(base: PlanCost, head: PlanCost) -> str:
    """The footer of a cost diff: what both totals hold (each side's when they differ), no taxes.

    Said from the totals' own basis, so a `--usage-file` that adds egress is never followed by
    "no egress".
    """
    old, new = base.basis, head.basis
    prices = (
        old.prices()
        if old.prices() == new.prices()
        else (f"before: {old.prices()}; after: {new.prices()}")
    )
    usage = (
        old.usage()
        if old.usage() == new.usage()
        else (f"before: {old.usage()}; after: {new.usage()}")
    )
    return f"Totals: {prices}, from the mlgov price catalog; {usage}; no taxes"


@dataclass(frozen=True)
class CostDiff:
    """Per-resource and total monthly changes from a base plan to a head plan."""

    base: PlanCost
    head: PlanCost
    changes: list[CostChange] = field(default_factory=list[CostChange])

    @property
    def delta(self) -> float:
        """Change of the monthly total (USD), from the two rounded totals."""
        return cents(self.head.monthly_usd - self.base.monthly_usd)

    @property
    def replaces(self) -> bool:
        """Whether any change is a replacement."""
        return any(c.status == "replaced" for c in self.changes)

    @property
    def unpriced(self) -> bool:
        """Whether any change has a side without a price."""
        return any(c.unpriced_before or c.unpriced_after for c in self.changes)

    @property
    def retains(self) -> bool:
        """Whether any change is a resource left in the cloud by retainOnDelete."""
        return any(c.status == "retained" for c in self.changes)

    @property
    def empty(self) -> bool:
        """True when nothing changes by a cent or more."""
        return not self.changes and abs(self.delta) < CENT

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "changes": [
                {
                    "name": c.name,
                    "type": c.type,
                    "status": c.status,
                    "before_usd": round(c.before, 2),
                    "after_usd": round(c.after, 2),
                    "delta_usd": round(c.delta, 2),
                    **({"unpriced_before": True} if c.unpriced_before else {}),
                    **({"unpriced_after": True} if c.unpriced_after else {}),
                }
                for c in self.changes
            ],
            "before": {
                "monthly_usd": round(self.base.monthly_usd, 2),
                "baseline_monthly_usd": round(self.base.baseline_monthly_usd, 2),
            },
            "after": {
                "monthly_usd": round(self.head.monthly_usd, 2),
                "baseline_monthly_usd": round(self.head.baseline_monthly_usd, 2),
            },
            "delta_usd": round(self.delta, 2),
            "empty": self.empty,
        }

    def render_text(self) -> str:
        """Human-readable summary."""
        if self.empty:
            return f"no cost change (monthly estimate {_usd(self.head.monthly_usd)})"
        lines = [
            f"Monthly cost: {_usd(self.base.monthly_usd)} -> {_usd(self.head.monthly_usd)} "
            f"({_signed(self.delta)}{_pct(self.delta, self.base.monthly_usd)})",
            f"Ungoverned baseline: {_usd(self.base.baseline_monthly_usd)} -> "
            f"{_usd(self.head.baseline_monthly_usd)}; governance saves "
            f"{_usd(self.head.baseline_monthly_usd - self.head.monthly_usd)}/month at head",
        ]
        # Pulumi's preview marks a replacement `+-`.
        marks = {"added": "+", "removed": "-", "changed": "~", "replaced": "+-", "retained": "-="}
        for c in self.changes:
            lines.append(
                f" {marks[c.status]:>2} {c.status:8} {short_type(c.type)} {c.name}: "
                f"{_cell(c.before, c.unpriced_before)} -> "
                f"{_cell(c.after, c.unpriced_after)} ({c.shown_delta})"
            )
        if self.replaces:
            lines.append(f"  ({REPLACED_NOTE})")
        if self.retains:
            lines.append(f"  ({RETAINED_NOTE})")
        if self.unpriced:
            lines.append(f"  ({UNPRICED_NOTE})")
        return "\n".join(lines)

    def render_markdown(self) -> str:
        """A pull-request comment under `MARKDOWN_HEADING` (`diff --markdown` adds governance)."""
        if self.empty:
            return "\n".join([
                MARKDOWN_HEADING,
                "",
                f"No cost change (monthly estimate {_usd(self.head.monthly_usd)}).",
                "",
                f"<sub>{totals_note(self.base, self.head)}.</sub>",
            ])  # fmt: skip
        rows = [
            MARKDOWN_HEADING,
            "",
            f"Monthly cost will change by **{_signed(self.delta)}**"
            f"{_pct(self.delta, self.base.monthly_usd)}: "
            f"{_usd(self.base.monthly_usd)} → {_usd(self.head.monthly_usd)}.",
            "",
            "| | Resource | Type | Before | After | Change |",
            "|---|---|---|---:|---:|---:|",
        ]
        for c in self.changes:
            rows.append(
                f"| {c.status} | `{c.name}` | {short_type(c.type)} | "
                f"{_cell(c.before, c.unpriced_before)} | {_cell(c.after, c.unpriced_after)} | "
                f"{c.shown_delta} |"
            )
        rows.append(
            f"| | **Total** | | **{_usd(self.base.monthly_usd)}** | "
            f"**{_usd(self.head.monthly_usd)}** | **{_signed(self.delta)}** |"
        )
        if self.replaces:
            rows += ["", f"<sub>{REPLACED_NOTE}.</sub>"]
        if self.retains:
            rows += ["", f"<sub>{RETAINED_NOTE}.</sub>"]
        if self.unpriced:
            rows += ["", f"<sub>{UNPRICED_NOTE}.</sub>"]
        saved = self.head.baseline_monthly_usd - self.head.monthly_usd
        rows += [
            "",
            f"Ungoverned baseline (on-demand, always on): {_usd(self.base.baseline_monthly_usd)}"
            f" → {_usd(self.head.baseline_monthly_usd)}; governance saves **{_usd(saved)}**/month.",
            "",
            f"<sub>{totals_note(self.base, self.head)}.</sub>",
        ]
        return "\n".join(rows)


def _usd(value: float) -> str:
    return f"-${-value:,.2f}" if value < -CENT else f"${max(value, 0.0):,.2f}"


def _cell(value: float, unpriced: bool) -> str:
    return "unpriced" if unpriced else _usd(value)


def _signed(value: float) -> str:
    return f"+${value:,.2f}" if value >= 0 else f"-${-value:,.2f}"


def _pct(delta: float, before: float) -> str:
    return f", {delta / before:+.1%}" if before >= CENT else ""


def plan_cost(
    doc: Mapping[str, Any],
    catalog: Catalog | None = None,
    origin: str = "plan",
    usage_file: UsageFile | None = None,
) -> PlanCost:
    """Costs of one document: carried numbers if complete, else a re-estimate.

    `usage_file` (a `--usage-file`) always re-estimates, replacing the one the document carries.
    Every amount is rounded by `cents`.
    """
    resources = cast("list[dict[str, Any]]", doc.get("resources") or [])
    cost = doc.get("cost")
    totals = cast("dict[str, Any]", cost) if isinstance(cost, dict) else {}
    # component resources (mlgov:index:*) may carry no monthly_usd: their children are priced
    priced = [r for r in resources if not _unpriced(str(r.get("type", "")))]
    replaced = frozenset(_key(r) for r in priced if r.get("op") in REPLACE_OPS)
    retained = frozenset(_key(r) for r in priced if r.get("retained") is True)
    carried = (
        usage_file is None
        and all(_carried(r) for r in priced)
        and all(_is_number(totals.get(k)) for k in ("monthly_usd", "baseline_monthly_usd"))
    )
    if carried:
        per = {_key(r): cents(float(r.get("monthly_usd") or 0.0)) for r in priced}
        unpriced = frozenset(_key(r) for r in priced if r.get("monthly_usd") is None)
        return PlanCost(
            per, cents(float(totals["monthly_usd"])), cents(float(totals["baseline_monthly_usd"])),
            unpriced=unpriced, replaced=replaced, retained=retained, basis=_carried_basis(totals),
        )  # fmt: skip
    usage = assumptions_of(doc, origin)
    declared = usage_file if usage_file is not None else usage_file_of(doc, origin)
    try:
        report = estimate_resources(resources, usage, catalog, declared)
    except CostError as err:
        raise add_context(err, f"{origin}: ") from None
    exact: dict[tuple[str, str], float] = {}
    for r in report.resources:
        key = (r.type, r.name)
        exact[key] = exact.get(key, 0.0) + r.monthly_usd
    return PlanCost(
        {key: cents(value) for key, value in exact.items()},
        cents(report.monthly_usd), cents(report.baseline_monthly_usd), reestimated=True,
        unpriced=frozenset((r.type, r.name) for r in report.unpriced), replaced=replaced,
        retained=retained,
        basis=CostBasis(
            usage_file=(
                None if report.usage_file is None
                else report.usage_file.source or IN_DOCUMENT
            ),
            left_out=report.depends_on_usage(), commitment=report.commitment,
        ),
    )  # fmt: skip


def _carried_basis(totals: Mapping[str, Any]) -> CostBasis:
    """The basis a document's own `cost` records (plan.py writes these keys)."""
    source, waiting, commitment = (
        totals.get("usage_file"),
        totals.get("depends_on_usage"),
        totals.get("commitment"),
    )
    return CostBasis(
        usage_file=(
            None if not source else (IN_DOCUMENT if source == "(in the document)" else str(source))
        ),
        left_out=waiting if isinstance(waiting, int) and not isinstance(waiting, bool) else 0,
        commitment=str(commitment) if isinstance(commitment, str) and commitment else "none",
    )


def _key(r: dict[str, Any]) -> tuple[str, str]:
    return (str(r["type"]), str(r.get("name", "")))


def _carried(r: dict[str, Any]) -> bool:
    """A row with its own number, or one `plan` marked unpriced (null plus the reason)."""
    value = r.get("monthly_usd")
    return _is_number(value) or (value is None and isinstance(r.get("unpriced"), str))


def _unpriced(type_: str) -> bool:
    return is_component(type_) or type_.startswith(_PULUMI_TYPES)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def diff_plans(
    base: Mapping[str, Any],
    head: Mapping[str, Any],
    catalog: Catalog | None = None,
    usage_file: UsageFile | None = None,
) -> CostDiff:
    """Per-resource and total changes from `base` to `head` (`usage_file`: for both)."""
    before = plan_cost(base, catalog, "base", usage_file)
    after = plan_cost(head, catalog, "head", usage_file)
    changes: list[CostChange] = []
    for key in sorted(before.per_resource.keys() | after.per_resource.keys()):
        type_, name = key
        u_old, u_new = key in before.unpriced, key in after.unpriced
        if key in after.retained:
            # Shown even at the same cost: it leaves the stack, not the bill.
            old, new, status = (
                before.per_resource.get(key, 0.0),
                after.per_resource[key],
                "retained",
            )
        elif key not in before.per_resource:
            old, new, status = 0.0, after.per_resource[key], "added"
        elif key not in after.per_resource:
            old, new, status = before.per_resource[key], 0.0, "removed"
        elif key in after.replaced:
            # Shown even at the same cost: the old resource goes, a new one is created.
            old, new, status = before.per_resource[key], after.per_resource[key], "replaced"
        else:
            old, new, status = before.per_resource[key], after.per_resource[key], "changed"
            if abs(new - old) < CENT and u_old == u_new:
                continue
        if status != "changed" and max(old, new) < CENT and not (u_old or u_new):
            continue  # free resources coming, going or replaced are not cost changes
        changes.append(CostChange(name, type_, status, old, new, u_old, u_new))
    changes.sort(key=lambda c: -abs(c.delta))
    return CostDiff(before, after, changes)
