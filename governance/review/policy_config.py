"""`--policy-config FILE`: a CrossGuard policy-pack config, read and checked for the judge.

`mlgov policy-config` (governance/cli/policy_config.py) prints the `--policy-pack-config` a
stack's settings imply. `load_policy_config` reads such a file (JSON or YAML) for `check`,
`diff` and `comment --policy-config`: levels per rule and settings, checked strictly
(mlgov_policies/pack_config.py); what it changes on a plan is policy_scope.py's business.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from governance.errors import CliError

if TYPE_CHECKING:
    from mlgov_policies.pack_config import PackConfig


def parse_policy_config(raw: object, source: str) -> PackConfig:
    """A checked policy-pack config from parsed JSON/YAML; CliError names each key path."""
    from governance.review.cost_findings import COST_FINDINGS
    from mlgov_policies.pack_config import PackConfigError, parse_pack_config

    try:
        pack = parse_pack_config(raw, level_only=COST_FINDINGS, source=source)
    except PackConfigError as err:
        raise CliError([f"{source}: {p}" for p in err.problems]) from None
    if problems := list(_locations_not_offered(pack)):
        raise CliError([f"{source}: {p}" for p in problems])
    return pack


def _locations_not_offered(pack: PackConfig) -> Iterator[str]:
    """Regions and BigQuery locations Google does not offer, as stack files are held to.

    The policy pack (pure, no catalog) checks only the shapes; a region no resource can be in
    would fail every resource, so it is refused here like `gcp:region: mars-central1`.
    """
    from governance.settings.locations import bigquery_location_problem, region_problem

    region = pack.values.get("region")
    if isinstance(region, str) and (found := region_problem(region)):
        yield f"{pack.set_by['region'][0]}.region: {found}"
    key = "allowed_bigquery_locations"
    locations: tuple[str, ...] = tuple(pack.values.get(key) or ())  # parse_value: strings
    for i, location in enumerate(locations):
        if found := bigquery_location_problem(location):
            yield f"{pack.set_by[key][0]}.{key}[{i}]: {found}"


def load_policy_config(path: str) -> PackConfig:
    """Read and check a `--policy-config` file (JSON, or YAML); CliError names file and key.

    Parsed as untrusted input (governance/untrusted.py: bounded size, nesting and aliases, no
    repeated YAML keys): a policy config can come with a pull request like a stack file.
    """
    from pathlib import Path

    from governance.inputs.project import display, read_text
    from governance.untrusted import UntrustedInputError, load_json, load_yaml

    # A path, never stdin: `check -` reads the plan from there.
    text, name = read_text(Path(path)), display(Path(path))
    try:
        try:
            raw: Any = load_json(text)
        except UntrustedInputError as err:
            if err.syntax is None:
                raise  # JSON, but too deep or with NaN: not a YAML question
            raw = load_yaml(text)
    except UntrustedInputError as err:
        raise CliError(f"{name}: policy config: {err}") from None
    return parse_policy_config(raw, name)


def policy_config_flag(parser: argparse.ArgumentParser) -> None:
    """Add `--policy-config FILE` to a subcommand."""
    parser.add_argument(
        "--policy-config",
        metavar="FILE",
        help="CrossGuard --policy-pack-config (JSON or YAML): enforcement level per rule "
        "(mandatory, advisory, disabled; `all` for every rule) and settings such as environment, "
        "region, required_labels (docs/reference/preview.md)",
    )


def policy_config_arg(args: argparse.Namespace) -> PackConfig | None:
    """The `--policy-config` given (checked; exit 2 naming each problem), or None.

    Warns (stderr) where CrossGuard would read the file differently: a setting given to some of
    the rules that read it, which mlgov applies to all of them.
    """
    from governance.errors import warn

    path: str | None = getattr(args, "policy_config", None)
    if not path:
        return None
    pack = load_policy_config(path)
    warn(
        f"{pack.source}: {key} is set for {', '.join(pack.set_by[key])} but not for "
        f"{', '.join(left_out)}: mlgov checks the stack with one {key}, so it applies to them "
        "too (CrossGuard would give them its default); set it at every rule that reads it"
        for key, left_out in pack.partial_keys().items()
    )
    return pack
