"""`mlgov cap status|lift` for spend caps: see each cap's state, and lift an enforced one.

    mlgov cap status --stack NAME [--json]
    mlgov cap lift --stack NAME --service KEY [--project P] --reason TEXT [--dry-run] [--json]

The stack file gives the billing account, the governed project and the caps it declares
(`spend_caps`). Caps are found on the billing account by project and service (Budget API
`budgets.list` with `scope`), so no Pulumi state is needed. `status` lists each cap's
`spendCap.outputState` (CONFIGURED, ENFORCED, AWAITING_NEXT_PERIOD) and `reconciling`, and any
cap on the project the stack does not declare. `lift` is the only way mlgov lifts a cap, and only
an ENFORCED one: it sets `spendCap.inputState` to AWAITING_NEXT_PERIOD (update mask
`spendCap.inputState`, with the etag just read), so usage resumes until the next month, when
Google re-arms the cap. It needs a reason, and logs one JSON line (who, when, why, before, after)
on stderr; Google's audit log records the call too. Automation never lifts a cap.

`--endpoint URL` (as for the rest of `cap`) or `MLGOV_API_ENDPOINTS={"billingbudgets": URL}` talks
to another base URL, anonymously. Exit codes: 0 done (or nothing to do); 4 (`Exit.CLOUD`) the API
refused or could not be reached, or the cap to lift was not found; 2 invalid input (unknown stack
or service, a project the stack does not govern, no reason, bad endpoint, no credentials).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from governance.errors import CliError, Exit

if TYPE_CHECKING:
    from governance.settings import Settings
    from governance.spend_caps.api import BudgetApi

ACTIONS = ("lift",)
"""The `cap` actions only spend caps have (status covers both kinds of cap)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags `cap lift` takes (registered on the `cap` subcommand)."""
    parser.add_argument("--service", help="lift: the capped service key (e.g. vertex_ai)")
    parser.add_argument(
        "--project", help="lift: a governed project of the stack (default: its one)"
    )
    parser.add_argument("--reason", help="lift: why (logged with who and when); required")


@dataclass(frozen=True)
class Row:
    """One spend cap as `status` shows it."""

    service: str
    project: str
    declared: float | None  # the stack's amount; None: on the project, not in the stack
    amount: float | None  # as Google has it
    currency: str
    output_state: str
    input_state: str
    reconciling: bool
    budget: str  # the budget's name; "" when not found

    @property
    def found(self) -> bool:
        """Whether Google has this cap."""
        return bool(self.budget)


# --------------------------------------------------------------------------- reading
def _stack(args: argparse.Namespace) -> tuple[str, Settings]:
    from governance.inputs.project import read_stack_config, settings_of, stack_file_of

    name, path = stack_file_of(args.stack, args.config)
    return name, settings_of(read_stack_config(path), path)


def _api(args: argparse.Namespace) -> BudgetApi:
    """The Budget API client, at `--endpoint` like the rest of `cap`, else as configured.

    MLGOV_API_ENDPOINTS `billingbudgets`/`cloudbilling`, else Google's with application default
    credentials.
    """
    from governance.endpoints import EndpointError, check_url
    from governance.spend_caps.api import BudgetApi, Endpoints, NoCredentials, session

    try:
        if flag := getattr(args, "endpoint", None):
            url = check_url(flag, "--endpoint")
            endpoints = Endpoints(url, url, anonymous=True)
            return BudgetApi(session(endpoints, "--endpoint"), endpoints)
        return BudgetApi.connect()
    except (NoCredentials, EndpointError) as err:
        raise CliError(str(err)) from None


def _failed(err: Exception, what: str) -> CliError:
    hint = ""
    if getattr(err, "status", 0) == 403:
        hint = (
            " (needs billing.resourcebudgets.read on the project, or billing.budgets.list on the "
            "billing account; lift needs billing.resourcebudgets.write or billing.budgets.update)"
        )
    return CliError(f"billingbudgets: {what}: {err}{hint}", Exit.CLOUD)


def caps_on_project(api: BudgetApi, s: Settings) -> list[dict[str, Any]]:
    """The spend-cap budgets on the stack's project, as `budgets.list` answers them."""
    from governance.spend_caps.api import ApiError

    parent, scope = f"billingAccounts/{s.billing_account}", f"projects/{s.project_number}"
    try:
        listed = list(api.budgets(parent, scope=scope))
    except ApiError as err:
        raise _failed(err, f"list {parent} (scope {scope})") from None
    return [b for b in listed if b.get("spendCap") is not None]


def rows(s: Settings, found: Sequence[Mapping[str, Any]]) -> list[Row]:
    """Each declared cap (found or not), then each cap on the project the stack does not declare.

    Declared caps come in the eligible services' order (vertex_ai, gemini_api, cloud_run,
    cloud_run_functions).

    A declared cap is matched by service; where several caps cover one service (made by hand),
    the one with mlgov's display name wins and the others are listed as not declared.
    """
    from governance.naming import spend_cap_name
    from governance.spend_caps import changes
    from mlgov_policies.compat.spend_caps import BY_SERVICE, SERVICES, money_value
    from mlgov_policies.props import dig

    def row(key: str, declared: float | None, b: Mapping[str, Any] | None) -> Row:
        money = dig(b, "amount", "specifiedAmount")
        return Row(
            service=key,
            project=s.project,
            declared=declared,
            amount=money_value(money) if b else None,
            currency=str(dig(money, "currencyCode") or ""),
            output_state=changes.output_state(b) if b else "NOT DEPLOYED",
            input_state=changes.input_state(b) if b else "",
            reconciling=bool(dig(b, "spendCap", "reconciling")),
            budget=str(b.get("name") or "") if b else "",
        )

    remaining = list(found)
    out: list[Row] = []
    for key in [k for k in SERVICES if k in s.spend_caps]:  # Google's list order, not YAML's
        amount = s.spend_caps[key]
        service = SERVICES[key].service
        matches = [b for b in remaining if changes.services_of(b) == [service]]
        ours = [b for b in matches if b.get("displayName") == spend_cap_name(s.prefix, key)]
        pick = (ours or matches or [None])[0]
        if pick is not None:
            remaining.remove(pick)
        out.append(row(key, amount, pick))
    for b in remaining:
        services = changes.services_of(b)
        key = BY_SERVICE[services[0]].key if services and services[0] in BY_SERVICE else "?"
        out.append(row(key, None, b))
    return out


def _usd(value: float | None, currency: str = "") -> str:
    return "-" if value is None else f"{value:,.2f}" + (f" {currency}" if currency else "")


def print_section(doc: Mapping[str, Any]) -> None:
    """The human `status` table of spend caps, from the `status` document."""
    print(
        f"spend caps on billingAccounts/{doc['billing_account']}, project {doc['project']} "
        "(Preview)"
    )
    caps: list[Mapping[str, Any]] = list(doc["caps"])
    header = ("SERVICE", "PROJECT", "CAP", "STATE", "RECONCILING", "BUDGET")
    table = [header] + [
        (
            c["service"] + ("" if c["declared"] is not None else " (not in the stack)"),
            c["project"],
            _usd(c["amount"] if c["amount"] is not None else c["declared"], c["currency"]),
            c["output_state"],
            "yes" if c["reconciling"] else "no",
            c["budget"] or "-",
        )
        for c in caps
    ]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    for c in caps:
        if c["output_state"] == "ENFORCED":
            print(
                f"  {c['service']} is ENFORCED: new usage is blocked until next month; to lift "
                f"it: mlgov cap lift --stack {doc['stack']} --service {c['service']} "
                "--reason '...'"
            )
        declared, amount = c["declared"], c["amount"]
        if declared is not None and amount is not None and amount != declared:
            print(
                f"  {c['service']}: Google has {_usd(amount)}, the stack declares "
                f"{_usd(declared)}; `pulumi up` sets it"
            )


def status(args: argparse.Namespace, *, show: bool = True) -> dict[str, Any] | None:
    """`cap status` for spend caps: the JSON part (printed as text if `show`); None if no caps.

    Raises:
        CliError: invalid input (exit 2) or the API failed (exit 4).
    """
    name, s = _stack(args)
    if not s.spend_caps:
        return None
    found = rows(s, caps_on_project(_api(args), s))
    doc: dict[str, Any] = {
        "stack": name,
        "billing_account": s.billing_account,
        "project": s.project,
        "caps": [{**asdict(r), "found": r.found} for r in found],
    }
    if show and not args.json:
        print_section(doc)
    return doc


def declares_spend_caps(args: argparse.Namespace) -> bool:
    """Whether the stack file declares any spend cap."""
    return bool(_stack(args)[1].spend_caps)


# --------------------------------------------------------------------------- lifting
def _operator(api: BudgetApi) -> str:
    """Who is lifting: the credentials' account where they name one, and the local user."""
    local = f"local user {getpass.getuser()}"
    if api.endpoints.anonymous:
        return local
    import google.auth
    import google.auth.exceptions

    try:
        credentials = cast(object, google.auth.default()[0])  # pyright: ignore[reportUnknownMemberType]
    except google.auth.exceptions.DefaultCredentialsError:
        return local
    account = getattr(credentials, "service_account_email", None) or getattr(
        credentials, "account", None
    )
    if isinstance(account, str) and account and account != "default":
        return f"{account} ({local})"
    return local


def _check_lift_args(args: argparse.Namespace, name: str, s: Settings) -> str:
    """The service key to lift; CliError (exit 2) for what the stack cannot mean."""
    from mlgov_policies.compat.spend_caps import eligible_list

    if not args.service:
        raise CliError("lift: --service is required (e.g. --service vertex_ai)")
    if args.service not in s.spend_caps:
        declared = ", ".join(s.spend_caps) or "none"
        raise CliError(
            f"lift: stack {name} declares no spend cap on {args.service!r} (its spend_caps: "
            f"{declared}; services spend caps can cover: {eligible_list()})"
        )
    if args.project is not None and args.project != s.project:
        raise CliError(
            f"lift: project {args.project!r} is not governed by stack {name} (it governs "
            f"{s.project})"
        )
    if not (args.reason or "").strip():
        raise CliError("lift: --reason is required: say why the cap is lifted (it is logged)")
    return str(args.service)


def lift(args: argparse.Namespace) -> int:
    """`cap lift`: lift one ENFORCED spend cap of the stack; returns the exit code."""
    from governance.spend_caps import changes
    from governance.spend_caps.api import ApiError

    if args.dry_run and args.action != "lift":
        raise CliError("--dry-run: only with `restore` or `lift`")
    name, s = _stack(args)
    key = _check_lift_args(args, name, s)
    api = _api(args)
    [row] = [
        r for r in rows(s, caps_on_project(api, s)) if r.service == key and r.declared is not None
    ]
    if not row.found:
        raise CliError(
            f"lift: no spend cap on {key} in project {s.project} on billingAccounts/"
            f"{s.billing_account} (has `pulumi up` created it?)",
            Exit.CLOUD,
        )
    try:
        live = api.get(row.budget)
    except ApiError as err:
        raise _failed(err, f"get {row.budget}") from None
    before = changes.output_state(live)
    patch = changes.lift(live)
    record: dict[str, Any] = {
        "event": "spend_cap_lift",
        "at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "operator": _operator(api),
        "reason": args.reason.strip(),
        "stack": name,
        "project": s.project,
        "service": key,
        "budget": row.budget,
        "before": before,
        "dry_run": bool(args.dry_run),
    }
    if patch is None:
        why = (
            "already lifted (AWAITING_NEXT_PERIOD): Google re-arms it at the start of next month"
            if changes.input_state(live) == changes.LIFTED
            else f"it is {before}, not ENFORCED: usage of {key} is not blocked"
        )
        record.update(after=before, outcome="nothing to lift", detail=why)
    elif args.dry_run:
        record.update(after=changes.LIFTED, outcome="would lift", update_mask=patch.update_mask)
    else:
        try:
            answer = api.patch(row.budget, patch.body, patch.update_mask)
        except ApiError as err:
            raise _failed(err, f"lift {row.budget}") from None
        record.update(after=changes.output_state(answer), outcome="lifted")
    # The audit line: always on stderr, so a redirected --json keeps it in the terminal/log.
    print(f"mlgov: log: {json.dumps(record)}", file=sys.stderr)
    if args.json:
        print(json.dumps(record, indent=2))
    elif record["outcome"] == "lifted":
        print(
            f"{key} in {s.project}: spend cap lifted ({before} -> {record['after']}); usage "
            "resumes once Google has processed it, and the cap re-arms next month"
        )
    elif record["outcome"] == "would lift":
        print(f"{key} in {s.project}: would lift the spend cap ({before} -> {changes.LIFTED})")
    else:
        print(f"{key} in {s.project}: nothing to lift: {record['detail']}")
    return Exit.OK
