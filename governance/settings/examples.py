"""The example values `mlgov init` writes where it is given none (marked `CHANGE ME`).

They pass the settings' checks so a new stack plans offline at once, but they name no real
project, billing account or owner: a plan that still holds one is judged by
governance/review/placeholders.py (mandatory in prod, advisory elsewhere). Kept here, below both
the command that writes them and the review that finds them, so the two never disagree.
"""

from __future__ import annotations

CHANGE_ME = "CHANGE ME"

PROJECT_PREFIX = "my-ml-"
"""The example project id is this plus the environment (`my-ml-dev`, `my-ml-prod`)."""

EXAMPLES = {
    "project": f"{PROJECT_PREFIX}dev",
    "project_number": "100000000000",
    "billing_account": "000000-000000-000000",
    "team": "my-team",
    "cost_center": "cc-0000",
}
"""Per `mlgov init` option (underscored): the value written when the option is not given."""

ENVIRONMENTS = ("dev", "staging", "prod")


def example_project(environment: str) -> str:
    """The example project id `mlgov init` writes for `environment`."""
    return f"{PROJECT_PREFIX}{environment}"


def placeholder_values() -> dict[str, tuple[str, ...]]:
    """Every example value per option, the project's for each environment."""
    values: dict[str, tuple[str, ...]] = {key: (value,) for key, value in EXAMPLES.items()}
    values["project"] = tuple(example_project(e) for e in ENVIRONMENTS)
    return values
