"""The `mlgov` command (also `python -m governance`): argument parsing and the one error format.

Exit codes (docs/architecture.md#exit-codes, `errors.Exit`): 0 fine (advisory findings allowed), 1
at least one mandatory policy violation and nothing else, 2 invalid input, with one line
`mlgov: error: <problem>` per problem, each naming the key path or file; 3 an internal error (a
bug: one line, the traceback only with `--debug` or MLGOV_DEBUG=1); 4 a Google Cloud API refused
or could not be reached; 130 interrupted. No path ends in a traceback. Each subcommand's module
registers itself here (`_registrars`) and imports its heavy dependencies only when it runs, so
`mlgov --help` and `mlgov check` start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

from governance import __version__
from governance.cli.flags import (
    partial_flag,
    quiet_flag,
    usage_file_arg,
    usage_file_flag,
)
from governance.errors import (
    PROG,
    CliError,
    Exit,
    debug_wanted,
    internal_error,
    report,
    warn,
)
from governance.review.collector import fewer_collections, no_final_collections
from governance.review.policy_config import policy_config_flag
from governance.text.terminal import safe_output

EXAMPLES = """\
examples:
  mlgov plan --stack dev                      plan the dev stack offline (human table)
  mlgov plan --stack dev --json > plan.json   the plan document
  mlgov plan --all --out-dir plans            every stack in one process: plans/NAME.json,
                                              plans/NAME.err, plans/status.tsv
  mlgov check plan.json                       re-check a saved plan (- = stdin)
  mlgov check preview.json                    check `pulumi preview --json` output (or a
                                              `pulumi stack export`) of any Pulumi program
  mlgov check preview.json --policy-config policy.yaml
                                              ... with your levels and settings per rule
  mlgov diff base.json head.json --markdown   cost and governance changes
  mlgov jobs --stack dev list                 the stack's cleanup schedules
  mlgov cap status --stack prod               what the budget cap changed in GKE
  mlgov report -o report.html                 one HTML page of where the money goes

offline (no account, no credentials, no Pulumi CLI): plan, check, policy-config, diff, comment,
  init, stacks, report --no-spend. Talk to Google Cloud (Application Default Credentials from
  `gcloud auth application-default login` and the network, or a local server: --endpoint,
  MLGOV_API_ENDPOINTS): spend, jobs, cap, prices refresh; report reads spend where it can and
  warns where it cannot.

exit codes:
  0    fine (advisory findings allowed)
  1    at least one mandatory policy violation (plan, check, comment)
  2    invalid input: arguments, stack file, settings or plan document (the key path is named)
  3    internal error: a bug; one line, the traceback with --debug or MLGOV_DEBUG=1
  4    a Google Cloud API refused the call or could not be reached (jobs, cap, prices;
       spend exits 2 for every failure, as docs/architecture.md fixes)
  130  interrupted
"""


class _Parser(argparse.ArgumentParser):
    """Every (sub)command's parser: usage errors exit 2, and each takes `--debug`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # SUPPRESS: a subcommand's parser must not reset a --debug given before the subcommand.
        self.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="on an internal error (exit 3), print the traceback (also: MLGOV_DEBUG=1)",
        )

    def error(self, message: str) -> Any:  # usage errors are invalid input: exit 2, no traceback
        if (choices := self._missing_choice(message)) is not None:
            # A command group called bare (`mlgov prices`, `mlgov cap`): its help lists what it
            # can do, which says more than argparse's "required: prices_command".
            self.print_help(sys.stderr)
            where = self.prog.removeprefix(PROG).strip()
            report([f"{where + ': ' if where else ''}name one of {', '.join(choices)} (see above)"])
            raise SystemExit(Exit.INVALID)
        self.print_usage(sys.stderr)
        report([message])
        raise SystemExit(Exit.INVALID)

    def _missing_choice(self, message: str) -> list[str] | None:
        """The choices of the subcommand (or action) argument `message` says is missing, if any."""
        required = "the following arguments are required: "
        if not message.startswith(required):
            return None
        missing = message.removeprefix(required).split(", ")
        for action in self._actions:
            if action.option_strings or not action.choices:
                continue
            names = {action.dest, action.metavar, "{" + ",".join(action.choices) + "}"}
            if names & set(missing):
                return [str(choice) for choice in action.choices]
        return None


PIPED_WIDTH = 120  # tables written to a pipe or a file (logs, CI, `| less`) stay this narrow


def terminal_width() -> int:
    """The width to fit tables to: $COLUMNS, else the terminal's, else PIPED_WIDTH."""
    columns = shutil.get_terminal_size(fallback=(0, 0)).columns
    return columns if columns > 0 else PIPED_WIDTH


def plain_output() -> bool:
    """Whether stdout is not a terminal: then tables are plain ASCII (cuts shown as `...`)."""
    return not sys.stdout.isatty()


def _emit(doc: Any, args: argparse.Namespace, checked_file: str | None = None) -> int:
    """Print `doc` as asked; `checked_file`: the file `check` read, which heads both views."""
    from governance.review import plan, render

    # Settings that do nothing: on stderr, so `--json` output stays a clean document.
    warnings: list[dict[str, str]] = doc.get("warnings") or []
    warn(f"{w['key']}: {w['message']}" for w in warnings)
    from governance.review.unjudgeable import partial_note

    # A --partial judgement says so first, whatever the format (a JSON document: its own key).
    if (partial := partial_note(doc)) is not None:
        doc["partial"] = partial
        if not args.json:
            print(partial)
    if getattr(args, "explain", None) is not None:
        from governance.review.explain import explain
        from governance.text.docs_links import linked_text

        print(linked_text(explain(doc, args.explain or None)))
    elif args.json:
        print(json.dumps(doc, indent=2, sort_keys=False))
    elif args.markdown:
        print(render.markdown(doc, checked_file=checked_file))
    else:
        heading = None if checked_file is None else check_heading(checked_file, doc.get("stack"))
        print(render.text(doc, terminal_width(), plain=plain_output(), heading=heading))
    return plan.exit_code(doc)


def _shows_lines(args: argparse.Namespace) -> bool:
    """Whether the output shows cost lines (`--json`, `--explain`; the plan table does not)."""
    return bool(args.json) or getattr(args, "explain", None) is not None


def _plan(args: argparse.Namespace) -> int:
    from governance.review import plan
    from governance.review.policy_config import policy_config_arg
    from governance.text import progress

    if (several := _batch_options(args)) is not None:
        from governance.cli import batch

        with progress.shown("planning", quiet=args.quiet):
            return batch.run(several, main)
    usage = usage_file_arg(args)
    pack = policy_config_arg(args)
    stack = args.stack[0] if args.stack else None
    with progress.shown(f"planning {stack or args.config}", quiet=args.quiet):
        doc = plan.plan_stack(stack, args.config, usage, _shows_lines(args), pack)
    return _emit(doc, args)


def _batch_options(args: argparse.Namespace) -> Any:
    """`batch.Options` when several stacks (or --out-dir) were asked for, else None.

    One `--stack` or `--config` without `--out-dir` is the single plan printed on stdout.
    """
    stacks: list[str] = args.stack or []
    several = args.all or len(stacks) > 1 or args.out_dir is not None
    batch_only = {
        "--base": args.base,
        "--base-out-dir": args.base_out_dir,
        "--cache-dir": args.cache_dir,
        "--policy-config-dir": args.policy_config_dir,
    }
    if not several:
        if given := [flag for flag, value in batch_only.items() if value is not None]:
            raise CliError(f"{', '.join(given)}: only with --out-dir (several stacks' plans)")
        return None
    problems: list[str] = []
    if args.out_dir is None:
        problems.append("several stacks (--all, or --stack more than once) need --out-dir DIR")
    if args.config is not None:
        problems.append("--out-dir: plans stacks by name (--stack, --all), not --config")
    if args.json or args.markdown or args.explain is not None:
        problems.append("--out-dir writes each stack's plan document (JSON): no --json, "
                        "--markdown or --explain")  # fmt: skip
    if (args.base is None) != (args.base_out_dir is None):
        problems.append("--base and --base-out-dir go together")
    if args.policy_config is not None and args.policy_config_dir is not None:
        problems.append("--policy-config or --policy-config-dir, not both")
    if problems:
        raise CliError(problems)
    from pathlib import Path

    from governance.cli.batch import Options

    def absolute(path: str | None) -> Path | None:
        return Path(path).resolve() if path is not None else None

    out_dir = str(args.out_dir)
    return Options(
        stacks=None if args.all else stacks,
        out_dir=Path(out_dir).resolve(),
        base=absolute(args.base),
        base_out_dir=absolute(args.base_out_dir),
        cache_dir=absolute(args.cache_dir),
        policy_config=absolute(args.policy_config),
        policy_config_dir=args.policy_config_dir,
        usage_file=absolute(args.usage_file),
        debug=bool(getattr(args, "debug", False)),
    )


def _check(args: argparse.Namespace) -> int:
    from governance.inputs.document import read_document
    from governance.review import plan
    from governance.review.policy_config import policy_config_arg
    from governance.text import progress

    _explain_swallowed_path(args)
    usage = usage_file_arg(args)
    pack = policy_config_arg(args)
    with progress.shown(f"checking {args.path}", quiet=args.quiet):
        doc = read_document(args.path, partial=args.partial)
        progress.detail("policies and costs")
        checked = plan.evaluate_document(doc, usage, _shows_lines(args), pack)
    return _emit(checked, args, checked_file=args.path)


def check_heading(path: str, stack: object) -> str:
    """`check`'s first line: a check of a file (not a plan of a stack), and the stack it names."""
    source = "stdin" if path == "-" else path
    return f"mlgov check for {source}" + (f" (stack {stack})" if stack else "")


def _explain_swallowed_path(args: argparse.Namespace) -> None:
    """`check --explain FILE` means every resource of FILE, not the resource named FILE.

    `--explain` takes an optional NAME, so argparse hands it the plan file that follows it and
    then finds no path: the most natural way to ask for the cost lines of a preview. Read it as
    the file; `--explain=NAME FILE` (or `FILE --explain NAME`) still names one resource.
    """
    if args.path is not None:
        return
    if args.explain:
        args.path, args.explain = args.explain, ""
        return
    raise CliError(
        "check: no plan file given: `mlgov check PATH` (PATH: an mlgov plan document, "
        "`pulumi preview --json` output or a `pulumi stack export`; - for stdin)"
    )


def _output_flags(parser: argparse.ArgumentParser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the plan document as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print a PR-comment summary")
    fmt.add_argument(
        "--explain",
        nargs="?",
        const="",
        metavar="NAME",
        help="print every resource's cost lines (quantity x unit price = amount, catalog key, "
        "location, pricing model, price date); NAME: only that resource "
        "(`--explain=NAME`)",
    )
    usage_file_flag(parser)


def _batch_flags(parser: argparse.ArgumentParser) -> None:
    several = parser.add_argument_group(
        "several stacks in one process (docs/reference/plan.md#several-stacks)"
    )
    several.add_argument(
        "--out-dir",
        metavar="DIR",
        help="write DIR/NAME.json (the plan document), DIR/NAME.err (its messages) per stack "
        "and DIR/status.tsv (NAME, exit code, planned|mandatory|failed per line)",
    )
    several.add_argument(
        "--policy-config-dir",
        metavar="DIR",
        help="each stack's --policy-config is DIR/config.NAME.json where it exists (DIR: in "
        "each checkout's project folder, e.g. policies)",
    )
    several.add_argument(
        "--base",
        metavar="CHECKOUT",
        help="also plan the same stacks (with --all: its own) in this checkout of the PR base, "
        "with its own mlgov, in this process",
    )
    several.add_argument("--base-out-dir", metavar="DIR", help="where --base's plans go")
    several.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="reuse plans of a clean git checkout kept here, by tree, packages and inputs",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = _Parser(
        prog=PROG,
        description="mlgov offline tools: plan stacks, check plans, diff costs, run cleanup jobs.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser(
        "plan",
        help="evaluate a stack under Pulumi mocks (no cloud needed)",
        description="Run the project's Pulumi program under mocks; check policies and costs.",
        epilog="examples:\n  mlgov plan --stack dev\n  mlgov plan --config Pulumi.qa.yaml --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "-s",
        "--stack",
        action="append",
        metavar="NAME",
        help="stack name: the project's Pulumi.NAME.yaml (repeat it, with --out-dir, for several)",
    )
    which.add_argument("--config", help="path to any Pulumi stack file")
    which.add_argument(
        "--all", action="store_true", help="every stack `mlgov stacks` lists (with --out-dir)"
    )
    _output_flags(p)
    policy_config_flag(p)
    _batch_flags(p)
    quiet_flag(p)
    p.set_defaults(func=_plan)

    c = sub.add_parser(
        "check",
        usage=f"{PROG} check [-h] [--debug] [--json | --markdown | --explain [NAME]] "
        "[--usage-file PATH] [--partial] [--policy-config FILE] [-q] path",
        help="evaluate policies and costs over a plan document or a Pulumi preview",
        description="Evaluate policies and costs over a plan: an mlgov plan document,\n"
        "`pulumi preview --json` output or a `pulumi stack export` (told apart by content).",
        epilog="examples:\n  mlgov plan --stack dev --json | mlgov check -\n"
        "  pulumi preview --json --show-sames > preview.json && mlgov check preview.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Optional to argparse only so `check --explain FILE` reaches _explain_swallowed_path; the
    # usage line still shows it as required, which it is.
    c.add_argument("path", nargs="?", help="plan JSON file (any of those formats), or - for stdin")
    _output_flags(c)
    partial_flag(c)
    policy_config_flag(c)
    quiet_flag(c)
    c.set_defaults(func=_check)

    s = sub.add_parser(
        "stacks",
        help="list the project's stacks, one name a line (what CI plans)",
        description="Print the name of every stack of the Pulumi project here, one a line,\n"
        "from its stack files where `pulumi up` finds them (Pulumi.yaml's stackConfigDir).",
        epilog='example:\n  for stack in $(mlgov stacks); do mlgov plan --stack "$stack"; done',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.set_defaults(func=_stacks)

    for register in _registrars():
        register(sub)
    return parser


def _stacks(args: argparse.Namespace) -> int:
    """Every stack a PR can change: CI plans each, so a stack file added in a PR is reviewed."""
    from governance.inputs.project import find_project

    del args
    for name in find_project().stacks():
        print(name)
    return 0


def _registrars() -> list[Callable[[Any], None]]:
    from governance.cli.cap import register as cap
    from governance.cli.costs import register as costs
    from governance.cli.init import register as init
    from governance.cli.jobs import register as jobs
    from governance.cli.judge import register as judge
    from governance.cli.policy_config import register as policy_config
    from governance.cli.report import register as report
    from governance.cli.spend import register as spend

    return [policy_config, costs, jobs, spend, cap, report, init, judge]


def quiet_python_version_notices() -> None:
    """Filter google-api-core's notice that a Python version's support ends in a year or less.

    Every google-cloud-* library (through google-api-core) warns once at import, as a
    FutureWarning printed on stderr, that Google will stop supporting the running Python in new
    releases once that Python reaches its end of life (3.11: notices from 2026-10-24 on, one per
    library, five lines for `spend`). It is about future library releases, not this run, and an
    operator can do nothing about it mid-command; mlgov supports 3.11 (pyproject's
    requires-python). Only that notice is filtered: the ones for a Python already past its end
    of life, or no longer supported by the installed library, still show.
    """
    warnings.filterwarnings(
        "ignore",
        message=r"You are using a Python version \(.*\) which Google will stop supporting",
        category=FutureWarning,
    )


def _settings_error() -> type[Exception]:
    """`SettingsError` if a subcommand loaded the settings, else a class nothing raises.

    Importing governance.settings imports pulumi (SettingsError is a RunError): ~1 s that
    `check`, `diff` and `comment` on a plan file never need (bench/RESULTS.md, "preview").
    Nothing can raise the error before its module is imported.
    """
    module = sys.modules.get("governance.settings.errors")
    return cast(type[Exception], module.SettingsError) if module is not None else _NotLoaded


class _NotLoaded(Exception):
    """Stands for SettingsError while governance.settings is not imported."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (never raises, except SystemExit from argparse)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = debug_wanted("--debug" in arguments)  # known before parsing, for errors while parsing
    with safe_output():  # names from plans and PRs reach the terminal as text (terminal.py)
        return _main(arguments, debug)


def _main(arguments: list[str], debug: bool) -> int:
    try:
        return _dispatch(arguments)
    except KeyboardInterrupt:
        return Exit.INTERRUPTED
    except BrokenPipeError:
        raise  # the reader went away: run() handles it
    except Exception as err:  # everything else is a bug: one line, never a traceback
        if (found := _program_error(err)) is not None:
            report([found])
            return Exit.INVALID
        return internal_error(err, debug=debug)


def _dispatch(arguments: list[str]) -> int:
    """Parse and run one subcommand; the errors it expects become lines and exit codes."""
    from governance.costs.errors import CostError

    quiet_python_version_notices()
    args = build_parser().parse_args(arguments)
    try:
        _docs_url(args)
        code: int = args.func(args)
    except CliError as err:
        report(err.problems)
        return err.code
    except _settings_error() as err:
        report(cast(Any, err).problems)
        return Exit.INVALID
    except CostError as err:
        report([str(err)])
        return Exit.INVALID
    finally:
        from governance.text.docs_links import use_docs_url

        use_docs_url(None)  # one run's --docs-url, not the next in-process caller's
    return int(code)


def _docs_url(args: argparse.Namespace) -> None:
    """Where cited docs pages link: `--docs-url`, else MLGOV_DOCS_URL (checked), or the default."""
    from governance.text.docs_links import DOCS_URL_ENV, DocsUrlError, checked, use_docs_url

    given: str | None = getattr(args, "docs_url", None)
    name = "--docs-url"
    if given is None and (from_env := os.environ.get(DOCS_URL_ENV, "").strip()):
        given, name = from_env, DOCS_URL_ENV
    try:
        use_docs_url(checked(given) if given is not None else None)
    except DocsUrlError as err:
        raise CliError(f"{name}: {err}") from None


def _program_error(err: Exception) -> str | None:
    """The message of a `pulumi.errors.RunError` the Pulumi program raised, else None.

    Pulumi programs raise RunError for invalid configuration (pulumi.errors: it ends `pulumi up`
    without a stack trace), so it is invalid input here too.
    """
    errors: Any = sys.modules.get("pulumi.errors")
    run_error: Any = getattr(errors, "RunError", None)
    if run_error is None or not isinstance(err, run_error):
        return None
    lines = str(err).strip().splitlines() or [type(err).__name__]
    return "the Pulumi program refused the stack: " + " ".join(line.strip() for line in lines)


def run() -> None:
    """Console-script entry point (`mlgov`, `python -m governance`): exit with main's code."""
    try:
        with fewer_collections():  # a short-lived process of long-lived objects: collector.py
            code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error; silence the flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = Exit.OK
    no_final_collections()  # the process ends here: collector.py
    sys.exit(code)
