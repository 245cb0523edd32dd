"""Only real values (issue 20): whole-value shapes, reserved labels, time zones and dates.

Each refusal is one line naming the key the user wrote; regions and zones are in
test_settings_locations.py, the stack-file path end to end (YAML dates, exit 2) in
tests/cli/test_exit_codes.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import date
from typing import Any

import pytest

from governance.labels import base_labels, reserved_label_problem
from governance.settings import Settings, SettingsError, settings_from_config
from tests.conftest import STACKS, stack_config

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"


def _problems(mutate: Mutation, stack: str = "dev") -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config)
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def _settings(mutate: Mutation, stack: str = "dev") -> Settings:
    config = copy.deepcopy(stack_config(stack))
    mutate(config)
    return settings_from_config(config)


def _set(*path: str, value: Any) -> Mutation:
    """Set `mlgov:settings.<path>` (or a provider key, when path[0] contains a colon)."""

    def mutate(config: dict[str, Any]) -> None:
        node = config if ":" in path[0] else config[P]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


# --------------------------------------------------------------------------- reserved labels
@pytest.mark.parametrize("stack", STACKS)
def test_stack_labels_may_not_exempt_everything(stack: str) -> None:
    problems = _problems(lambda c: c[P]["labels"].update({"mlgov-exempt": "true"}), stack)
    assert problems == [
        f"{P}.labels.mlgov-exempt: label 'mlgov-exempt' is reserved: `mlgov-*` labels steer the "
        "automation; set it with `exempt: true` on the notebook, training pool, TPU VM or GPU VM "
        "itself"
    ]


@pytest.mark.parametrize(
    ("label", "setting"),
    [
        ("mlgov-expires-on", "`expires_on: YYYY-MM-DD`"),
        ("mlgov-root-access", "`root_access: true`"),
        ("mlgov-cap-prev", "mlgov's automation sets these labels itself"),
        ("mlgov-undeploy-at-cap", "mlgov's automation sets these labels itself"),
    ],
)
def test_every_reserved_label_is_refused_with_the_setting_that_sets_it(
    label: str, setting: str
) -> None:
    problems = _problems(lambda c: c[P]["labels"].update({label: "2026-12-31"}))
    assert len(problems) == 1
    assert problems[0].startswith(f"{P}.labels.{label}: label {label!r} is reserved")
    assert setting in problems[0]


def test_ordinary_labels_that_merely_mention_mlgov_are_fine() -> None:
    s = _settings(lambda c: c[P]["labels"].update({"team-mlgov": "x", "mlgovish": "y"}))
    assert s.labels["team-mlgov"] == "x"
    assert reserved_label_problem("team-mlgov") is None
    assert reserved_label_problem("mlgov-exempt") is not None


def test_base_labels_refuse_reserved_keys_even_past_the_settings() -> None:
    with pytest.raises(ValueError, match="mlgov-exempt"):
        base_labels("dev", {"team": "a", "mlgov-exempt": "true"})
    assert base_labels("dev", {"team": "a"}).values["managed-by"] == "mlgov"


def test_exemption_and_expiry_keep_working_through_their_own_settings() -> None:
    def mutate(c: dict[str, Any]) -> None:
        c[P]["notebooks"]["bob"].update(exempt=True, expires_on="2026-12-31")

    s = _settings(mutate)
    labels = base_labels(s.environment, s.labels).for_workload(
        "notebook", expires_on=s.notebooks["bob"].expires_on, exempt=s.notebooks["bob"].exempt
    )
    assert labels.values["mlgov-exempt"] == "true"
    assert labels.values["mlgov-expires-on"] == "2026-12-31"


# --------------------------------------------------------------------------- whole values
INJECTED = "Other-Project/locations/us-east1/clusters/victim#acme-ml-prod"


def test_the_injected_project_id_names_gcp_project() -> None:
    problems = _problems(_set("gcp:project", value=INJECTED), "prod")
    assert problems == [
        "gcp:project: 'Other-Project/locations/us-east1/clusters/victim#acme-m...' is not a "
        "project id: 6-30 lowercase letters, digits or hyphens, starting with a letter "
        "(e.g. acme-ml-dev)"
    ]


# A valid value with something around it: each must be refused at its key (pydantic's own
# `pattern` would accept all of them, since it matches anywhere in the string).
EMBEDDED = [
    (("gcp:project",), "x/acme-ml-dev"),
    (("gcp:project",), "acme-ml-dev\n"),
    (("gcp:region",), "us-central1/zones/x"),
    (("project_number",), "123456789012 "),
    (("project_number",), "0123456789012"),
    (("billing_account",), "billingAccounts/01D4EE-079462-DFD6EC"),
    (("prefix",), "acme-dev/../x"),
    (("zones",), ["us-central1-a", "us-central1-b#x"]),
    (("notebooks", "bob", "zone"), "projects/p/zones/us-central1-b"),
    (("notebooks", "bob", "owner"), "bob@acme.example <evil@x.y>"),
    (("notebooks", "alice", "office_hours", "stop"), "19:00;rm"),
    (("notebooks", "alice", "office_hours", "days"), "1-5 *"),
    (("billing_export",), {"dataset_id": "billing_export; DROP"}),
]


@pytest.mark.parametrize(("path", "value"), EMBEDDED, ids=[".".join(p) for p, _ in EMBEDDED])
def test_values_must_match_whole(path: tuple[str, ...], value: Any) -> None:
    problems = _problems(_set(*path, value=value))
    key = path[0] if ":" in path[0] else f"{P}.{'.'.join(path)}"
    assert len(problems) == 1, problems
    assert problems[0].startswith(key) and " is not " in problems[0], problems


def test_names_the_user_chooses_are_names() -> None:
    problems = _problems(lambda c: c[P]["notebooks"].update({"Alice/../x": {}}))
    assert problems == [
        f"{P}.notebooks.\"Alice/../x\": 'Alice/../x' is not a name of 1-40 lowercase letters, "
        "digits or hyphens, starting with a letter"
    ]
    problems = _problems(lambda c: c[P]["datasets"].update({"my-data": {}}))
    assert problems == [
        f"{P}.datasets.my-data: 'my-data' is not a BigQuery id: letters, digits and underscores"
    ]


def test_a_hostile_key_cannot_forge_another_error_line() -> None:
    problems = _problems(lambda c: c[P]["notebooks"].update({"a\nmlgov: error: fake": {}}))
    assert len(problems) == 1
    assert "\n" not in problems[0]
    assert problems[0].startswith(f'{P}.notebooks."a\\nmlgov: error: fake":')


def test_long_values_are_cut_in_the_message() -> None:
    problems = _problems(_set("gcp:project", value="x" * 100_000))
    assert len(problems) == 1 and len(problems[0]) < 300


def test_network_ranges_are_real_ipv4_ranges() -> None:
    for bad in ("999.1.1.1/20", "10.10.0.1/20", "10.10.0.0", "10.10.0.0/20x"):
        problems = _problems(_set("network", value={"subnet_cidr": bad}))
        assert problems == [
            f"{P}.network.subnet_cidr: "
            + (
                "must be an IPv4 CIDR range such as 10.10.0.0/20"
                if bad == "10.10.0.0"
                else "must be an IPv4 CIDR range with no host bits set, such as 10.10.0.0/20"
            )
        ], bad


def test_no_settings_field_relies_on_pydantic_pattern() -> None:
    # pydantic's `pattern` matches anywhere in the value; every shape goes through
    # base.matching (re.fullmatch), which puts no `pattern` in the JSON schema.
    schema = json.dumps(Settings.model_json_schema())
    assert '"pattern"' not in schema


# --------------------------------------------------------------------------- time zones
def test_time_zones_are_iana_names() -> None:
    problems = _problems(
        _set("notebooks", "alice", "office_hours", "timezone", value="Mars/Phobos")
    )
    assert problems == [
        f"{P}.notebooks.alice.office_hours.timezone: 'Mars/Phobos' is not an IANA time zone "
        "name (e.g. Europe/Berlin, Etc/UTC)"
    ]
    problems = _problems(_set("automation", "time_zone", value="Europe/Berln"))
    assert problems == [
        f"{P}.automation.time_zone: 'Europe/Berln' is not an IANA time zone name "
        "(e.g. Europe/Berlin, Etc/UTC); did you mean Europe/Berlin, Europe/Belfast, "
        "Europe/Helsinki?"
    ]


def test_path_like_time_zones_are_refused_not_opened() -> None:
    problems = _problems(_set("automation", "time_zone", value="../../etc/passwd"))
    assert problems[0].startswith(f"{P}.automation.time_zone: '../../etc/passwd' is not an IANA")


def test_real_time_zones_pass() -> None:
    s = _settings(_set("automation", "time_zone", value="America/Argentina/Buenos_Aires"))
    assert s.automation.time_zone == "America/Argentina/Buenos_Aires"


# --------------------------------------------------------------------------- dates
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-02-30", "'2026-02-30' is not a date that exists (day is out of range for month)"),
        ("2026-13-01", "'2026-13-01' is not a date that exists (month must be in 1..12)"),
        ("2026-2-3", "'2026-2-3' is not a date written YYYY-MM-DD (e.g. 2026-12-31)"),
        (1798675200, "1798675200 is not a date written YYYY-MM-DD (e.g. 2026-12-31)"),
        ("2026-12-31T00:00:00", "'2026-12-31T00:00:00' is not a date written YYYY-MM-DD"),
    ],
)
def test_dates_must_exist(value: Any, message: str) -> None:
    problems = _problems(_set("tpu_vms", "research-v5e", "expires_on", value=value), "prod")
    assert len(problems) == 1
    assert problems[0].startswith(f"{P}.tpu_vms.research-v5e.expires_on: {message}")


def test_dates_as_yaml_or_python_give_the_same_setting() -> None:
    as_text = _settings(_set("notebooks", "bob", "expires_on", value="2026-12-31"))
    as_date = _settings(_set("notebooks", "bob", "expires_on", value=date(2026, 12, 31)))
    assert as_text.notebooks["bob"].expires_on == as_date.notebooks["bob"].expires_on
