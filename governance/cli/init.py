"""`mlgov init`: a minimal, commented stack file for a new mlgov stack (and project).

    mlgov init --stack NAME [--environment dev|staging|prod] [--project ID]
               [--project-number N] [--region R] [--billing-account ID] [--team T]
               [--cost-center C] [--budget USD]

Inside a Pulumi project it writes `<stackConfigDir>/Pulumi.NAME.yaml`; in a folder with no
project it also writes `Pulumi.yaml` and the three-line `__main__.py` that builds mlgov's
platform, so `mlgov plan --stack NAME` works right away. The stack file holds only the keys the
platform requires, each with a comment; every other section is optional and named at the end.
Values not given are examples marked `CHANGE ME` (settings/examples.py): they plan offline, and
a plan that still holds one gets a finding (mandatory in prod); Google refuses them.
It never overwrites: if any file it would write exists, it writes nothing and exits 2 naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from governance.errors import CliError, Exit, warn
from governance.settings.examples import CHANGE_ME, EXAMPLES, example_project

PROGRAM = '''\
"""An mlgov platform: read the stack's validated settings, build the components, export."""

import pulumi

from governance.components.program import build_platform
from governance.settings import read_settings

platform = build_platform(read_settings())
for key, value in platform.outputs().items():
    pulumi.export(key, value)
'''
PROJECT = """\
# A Pulumi project running mlgov's platform program (__main__.py) with Python.
name: {name}
runtime: python
stackConfigDir: stacks
"""
BUDGETS = {"dev": 1000, "staging": 2000, "prod": 10000}


@dataclass(frozen=True)
class Values:
    """What goes into the stack file; `examples` names the values left as examples."""

    stack: str
    environment: str
    project: str
    project_number: str
    region: str
    billing_account: str
    team: str
    cost_center: str
    budget: int
    examples: tuple[str, ...]

    @property
    def prefix(self) -> str:
        """A name prefix the settings accept: letters of the team and the environment."""
        team = re.sub(r"[^a-z0-9]+", "-", self.team.lower()).strip("-")[:10] or "ml"
        if not team[0].isalpha():
            team = f"t{team}"[:10]
        return f"{team}-{self.environment}"


def _scalar(value: str) -> str:
    """`value` as a YAML scalar that reads back as exactly this string.

    Plain when YAML would read it unchanged (acme-ml-dev); else double-quoted (JSON's quoting is
    valid YAML): a `: `, `#`, newline, `no` or `0123` would otherwise change the stack file's
    structure or the value's type, and the settings would judge something the user did not type.
    """
    import yaml

    plain = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", value) is not None
    return value if plain and yaml.safe_load(value) == value else json.dumps(value)


def _mark(values: Values, *keys: str) -> str:
    return f"  # {CHANGE_ME}: an example" if set(keys) & set(values.examples) else ""


def stack_file(v: Values) -> str:
    """The commented stack file for `v` (YAML)."""
    zones = ", ".join(_scalar(z) for z in _zones(v.region))
    team, cost_center = _scalar(v.team), _scalar(v.cost_center)
    return f"""\
# mlgov stack `{v.stack}` ({v.environment}). Plan it offline: mlgov plan --stack {v.stack}
# Only the keys mlgov's platform requires are here; the optional sections are listed at the end.
# Every key is described in mlgov's docs/reference/configuration.md.{_examples_note(v)}
config:
  gcp:project: {_scalar(v.project)}{_mark(v, "project")}
  gcp:region: {_scalar(v.region)}  # every regional resource goes here (data, notebooks, training)
  mlgov:settings:
    environment: {v.environment}  # dev | staging | prod: picks the limits the policies enforce
    prefix: {v.prefix}  # starts every resource name (2-20 lowercase letters, digits, -)
    # gcloud projects describe {_scalar(v.project)} --format='value(projectNumber)'
    project_number: {json.dumps(v.project_number)}{_mark(v, "project_number")}
    zones: [{zones}]  # where zonal resources may go, in the region
    billing_account: {_scalar(v.billing_account)}{_mark(v, "billing_account")}
    # Cost attribution on every resource (mlgov adds env, workload and managed-by itself).
    labels: {{team: {team}, cost-center: {cost_center}}}{_mark(v, "team", "cost_center")}
    # A monthly budget in USD. Alerts at 50%, 90% and 100% (and on a forecast of 100%) reach
    # the budget function, which stops workloads at 100%; until you set automation.dry_run:
    # false it only logs what it would stop.
    budget: {{amount_usd: {v.budget}}}{_required_in(v.environment)}
    # Optional sections (each creates resources only when present): notebooks, gke,
    # training_pools, tpu_vms, gpu_vms, metadata_db, datasets, artifacts, bigquery_quotas,
    # logging, vertex; and automation, limits, network, billing_export, usage to change defaults.
"""


def _zones(region: str) -> tuple[str, ...]:
    """Two zones of `region`: its first two in Google's table (europe-west1 has no -a).

    A region the table lacks (priced, zones unjudged) gets -a and -b; a region Google does not
    offer gets them too, and --region's own error line says what is wrong.
    """
    from governance.settings import locations

    return locations.region_zones(region)[:2] or (f"{region}-a", f"{region}-b")


def _examples_note(values: Values) -> str:
    if not values.examples:
        return ""
    return (
        f"\n# Values marked {CHANGE_ME} are examples: they plan offline (with a finding, mandatory "
        "in prod),\n# but Google refuses them: put in yours before `pulumi up`."
    )


def _required_in(environment: str) -> str:
    """Sections an environment's policies require, with why."""
    if environment != "prod":
        return ""
    return (
        "\n    # prod: a daily cap on the bytes BigQuery queries scan (mlgov-bigquery-query-quota)."
        "\n    bigquery_quotas: {}"
    )


def _values(args: argparse.Namespace) -> Values:
    given = {
        "project": args.project,
        "project_number": args.project_number,
        "billing_account": args.billing_account,
        "team": args.team,
        "cost_center": args.cost_center,
    }
    examples = tuple(k for k, value in given.items() if value is None)
    filled = {k: value if value is not None else EXAMPLES[k] for k, value in given.items()}
    if args.project is None:
        filled["project"] = example_project(args.environment)
    return Values(
        stack=args.stack,
        environment=args.environment,
        region=args.region,
        budget=args.budget if args.budget is not None else BUDGETS[args.environment],
        examples=examples,
        **filled,
    )


# The option that put a value at each key path (errors name what the user typed).
OPTIONS = {
    "gcp:project": "--project",
    "gcp:region": "--region",
    "mlgov:settings.project_number": "--project-number",
    "mlgov:settings.billing_account": "--billing-account",
    "mlgov:settings.labels.team": "--team",
    "mlgov:settings.labels.cost-center": "--cost-center",
    "mlgov:settings.budget.amount_usd": "--budget",
    "mlgov:settings.prefix": "--team",
}


def _check(values: Values) -> None:
    """CliError naming the option when a value given makes a stack file the settings refuse."""
    import yaml

    from governance.settings import SettingsError, settings_from_config

    config = yaml.safe_load(stack_file(values))["config"]
    try:
        settings_from_config(config)
    except SettingsError as err:
        problems: list[str] = []
        for problem in err.problems:
            path, _, text = problem.partition(": ")
            if path.startswith("mlgov:settings.zones"):
                continue  # the zones follow --region: its own line says what is wrong
            option = OPTIONS.get(path)
            problems.append(f"{option}: {text}" if option else problem)
        raise CliError(problems or err.problems) from None


def _targets(stack: str, values: Values) -> list[tuple[Path, str]]:
    """(path, text) of every file to write: the stack file, plus the project where none is."""
    from governance.inputs.project import PulumiProject, find_project

    try:
        project: PulumiProject | None = find_project()
    except CliError:
        project = None
    if project is not None:
        # Pulumi reads the stack file with the project file's extension (project.py).
        if project.ext == ".json":
            raise CliError(
                "mlgov init writes YAML stack files; this project's file is Pulumi.json, whose "
                "stack files Pulumi reads as JSON (Pulumi.NAME.json): write that one by hand"
            )
        return [(project.stack_dir / f"Pulumi.{stack}{project.ext}", stack_file(values))]
    here = Path.cwd()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", here.name) or "mlgov"
    return [
        (here / "Pulumi.yaml", PROJECT.format(name=name)),
        (here / "__main__.py", PROGRAM),
        (here / "stacks" / f"Pulumi.{stack}.yaml", stack_file(values)),
    ]


def _folders(path: Path) -> list[Path]:
    """The folders `path` is in, outermost first."""
    return list(reversed(path.parents))


def _write_new(path: Path, text: str) -> None:
    """Create `path` (and its folder) with `text`; OSError if it exists or cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:  # "x": fail rather than overwrite
        out.write(text)


def _write_all(targets: list[tuple[Path, str]], display: Callable[[Path], str]) -> None:
    """Write every file or none: on a failure, remove what this run created (CliError)."""
    created: list[Path] = []
    folders = [f for path, _ in targets for f in _folders(path) if not f.exists()]
    for path, text in targets:
        try:
            _write_new(path, text)
        except OSError as err:
            for done in reversed(created):
                done.unlink(missing_ok=True)
            for folder in reversed(dict.fromkeys(folders)):
                with contextlib.suppress(OSError):  # only if empty: never what was there
                    folder.rmdir()
            raise CliError(f"{display(path)}: cannot write: {err.strerror}") from None
        created.append(path)


def handler(args: argparse.Namespace) -> int:
    """Write the files, all or none; refuse (exit 2) if any exists or cannot be written."""
    from governance.inputs.project import STACK_NAME, display

    # Pulumi's stack names (at most 100 characters), as `plan --stack` reads them.
    if not STACK_NAME.fullmatch(args.stack) or args.stack.startswith("."):
        raise CliError(
            f"--stack: {args.stack[:80]!r} is not a stack name (e.g. dev, staging, prod; "
            "letters, digits, '-', '_' and '.', at most 100)"
        )
    values = _values(args)
    _check(values)
    targets = _targets(args.stack, values)
    existing = [path for path, _ in targets if path.exists()]
    if existing:
        raise CliError(
            [f"{display(path)}: already exists; mlgov init never overwrites" for path in existing]
        )
    blocked = [
        f"{display(folder)}: is a file, not a folder; mlgov init writes {display(path)} there"
        for path, _ in targets
        for folder in _folders(path)
        if folder.exists() and not folder.is_dir()
    ]
    if blocked:
        raise CliError(list(dict.fromkeys(blocked)))
    _write_all(targets, display)
    for path, _ in targets:
        print(f"wrote {display(path)}")
    if values.examples:
        flags = ", ".join(f"--{k.replace('_', '-')}" for k in values.examples)
        warn(
            [
                f"{display(targets[-1][0])}: example values marked {CHANGE_ME}; give {flags} "
                "or edit them before `pulumi up`"
            ]
        )
    print(f"next: mlgov plan --stack {args.stack}")
    return Exit.OK


def register(subparsers: Any) -> None:
    """Add `init` to the CLI's subparsers."""
    p = subparsers.add_parser(
        "init",
        help="write a minimal, commented stack file (and a project, if there is none)",
        description="Write a minimal, commented mlgov stack file. Never overwrites a file.",
        epilog="example: mlgov init --stack dev --project acme-ml-dev --team vision",
    )
    p.add_argument("-s", "--stack", required=True, help="stack name: writes Pulumi.NAME.yaml")
    p.add_argument(
        "--environment", choices=("dev", "staging", "prod"), default="dev", help="default: dev"
    )
    p.add_argument("--project", help="Google Cloud project id")
    p.add_argument("--project-number", help="the project's number")
    p.add_argument("--region", default="us-central1", help="default: us-central1")
    p.add_argument("--billing-account", help="billing account id (XXXXXX-XXXXXX-XXXXXX)")
    p.add_argument("--team", help="the `team` label")
    p.add_argument("--cost-center", help="the `cost-center` label")
    p.add_argument("--budget", type=int, help="monthly budget in USD (default per environment)")
    p.set_defaults(func=handler)
