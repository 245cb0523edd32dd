"""The offline CLI: `python -m governance plan|check|diff|prices|jobs`.

Exit codes (DESIGN.md contract 1): 0 fine (advisory findings allowed), 1 at least one mandatory
policy violation, 2 invalid input (bad stack config or plan document) with one line per problem
naming the key path. Bad input never produces a traceback. Subcommands owned by other modules
(cost diff and price refresh in governance/costs/cli.py, scheduler jobs in governance/jobs.py)
register themselves here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_VIOLATION, EXIT_INVALID = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # usage errors are invalid input: exit 2, no traceback
        self.print_usage(sys.stderr)
        print(f"mlgov: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def _emit(doc: dict[str, Any], args: argparse.Namespace) -> int:
    from governance import plan, render

    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=False))
    elif args.markdown:
        print(render.markdown(doc))
    else:
        print(render.text(doc))
    return plan.exit_code(doc)


def _plan(args: argparse.Namespace) -> int:
    from governance import plan

    doc = plan.plan_stack(stack=args.stack, config_path=Path(args.config) if args.config else None)
    return _emit(doc, args)


def _check(args: argparse.Namespace) -> int:
    from governance import plan

    return _emit(plan.evaluate_document(plan.load_document(args.path)), args)


def _policy_config(args: argparse.Namespace) -> int:
    from governance import plan
    from governance.settings import settings_from_config
    from mlgov_policies.config import PolicyConfig  # plan.py put policies/ on sys.path
    from mlgov_policies.registry import crossguard_config

    path = Path(args.config) if args.config else plan.stack_file(args.stack)
    settings = settings_from_config(plan.read_stack_config(path))
    config = PolicyConfig.from_mapping(settings.policy_config())
    print(json.dumps(crossguard_config(config), indent=2))
    return EXIT_OK


def _output_flags(parser: argparse.ArgumentParser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the plan document as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print a PR-comment summary")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = _Parser(
        prog="python -m governance",
        description="mlgov offline tools: plan stacks, check plans, diff costs.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("plan", help="evaluate a stack under Pulumi mocks (no cloud needed)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", help="stack name: reads stacks/Pulumi.NAME.yaml")
    which.add_argument("--config", help="path to any Pulumi stack file")
    _output_flags(p)
    p.set_defaults(func=_plan)

    c = sub.add_parser("check", help="evaluate policies and costs over a plan document")
    c.add_argument("path", help="plan document JSON file, or - for stdin")
    _output_flags(c)
    c.set_defaults(func=_check)

    g = sub.add_parser(
        "policy-config", help="print the CrossGuard --policy-pack-config for a stack's settings"
    )
    which = g.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", help="stack name: reads stacks/Pulumi.NAME.yaml")
    which.add_argument("--config", help="path to any Pulumi stack file")
    g.set_defaults(func=_policy_config)

    for register in _registrars():
        register(sub)
    return parser


def _registrars() -> list[Callable[[Any], None]]:
    from governance.costs.cli import register as costs
    from governance.jobs import register as jobs

    return [costs, jobs]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    from governance.plan import InputError
    from governance.settings import SettingsError

    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except SettingsError as err:
        print(f"mlgov: {err}", file=sys.stderr)
        return EXIT_INVALID
    except InputError as err:
        for problem in err.problems:
            print(f"mlgov: error: {problem}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130
    return code
