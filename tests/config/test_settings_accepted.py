"""Values Google (and Pulumi) accept, and nothing else (governance/settings/accepted.py).

Each refusal is one line naming the key the user wrote; the same real values keep passing. The
stack-file path end to end (YAML 1.2 booleans, exit 2) is at the end.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from governance.settings import SettingsError, settings_from_config
from governance.settings.context import plan_context
from governance.untrusted import load_yaml
from tests.cli.test_exit_codes import DEV, Run, one_refusal, run, stack_file
from tests.conftest import stack_config

__all__ = ["run"]  # the CLI fixture, used below

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"


def _set(*path: str, value: Any) -> Mutation:
    def mutate(config: dict[str, Any]) -> None:
        node = config if ":" in path[0] else config[P]
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value

    return mutate


def _problems(mutate: Mutation, stack: str = "dev") -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config)
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def _accepts(mutate: Mutation, stack: str = "dev") -> None:
    config = copy.deepcopy(stack_config(stack))
    mutate(config)
    settings_from_config(config)


REFUSED = [
    # project ids: Resource Manager's restricted strings
    (("gcp:project",), "acme-google-ml", "gcp:project", "may not contain 'google'"),
    (("gcp:project",), "undefined", "gcp:project", "may not contain 'undefined'"),
    # booleans Pulumi would not read as booleans
    (("automation", "dry_run"), "yes", f"{P}.automation.dry_run", "'yes' is not a boolean"),
    (("automation", "dry_run"), "no", f"{P}.automation.dry_run", "'no' is not a boolean"),
    (("automation", "dry_run"), 0, f"{P}.automation.dry_run", "0 is not a boolean"),
    (("automation", "enabled"), "off", f"{P}.automation.enabled", "'off' is not a boolean"),
    (
        ("notebooks", "alice", "exempt"),
        "y",
        f"{P}.notebooks.alice.exempt",
        "'y' is not a boolean",
    ),
    (
        ("training_pools", "t4", "spot"),
        "1",
        f"{P}.training_pools.t4.spot",
        "'1' is not a boolean",
    ),
    # budget: Money's amount, bounded
    (("budget", "amount_usd"), 10**13, f"{P}.budget.amount_usd", "less than or equal to"),
    # machine types: Compute's lowercase names
    (
        ("notebooks", "alice", "machine_type"),
        "N1-STANDARD-4",
        f"{P}.notebooks.alice.machine_type",
        "is not a Compute Engine machine type name",
    ),
    (
        ("notebooks", "alice", "machine_type"),
        "n1-standard-4 ",
        f"{P}.notebooks.alice.machine_type",
        "is not a Compute Engine machine type name",
    ),
    (
        ("gke", "system_pool", "machine_type"),
        "standard",
        f"{P}.gke.system_pool.machine_type",
        "is not a Compute Engine machine type name",
    ),
    # GPUs and TPUs: the compat tables' names
    (
        ("gke", "autoprovisioning", "accelerators"),
        {"NVIDIA_L4": 4},
        f"{P}.gke.autoprovisioning.accelerators.NVIDIA_L4",
        "did you mean nvidia-l4?",
    ),
    (
        ("training_pools", "t4", "accelerator"),
        "nvidia-tesla-t5",
        f"{P}.training_pools.t4.accelerator",
        "is not a Compute Engine GPU type",
    ),
    (
        ("gpu_vms", "job", "gpu"),
        {"type": "NVIDIA_L4"},
        f"{P}.gpu_vms.job.gpu.type",
        "did you mean nvidia-l4?",
    ),
    (
        ("tpu_vms", "tpu", "accelerator_type"),
        "v9-8",
        f"{P}.tpu_vms.tpu.accelerator_type",
        "is not a TPU accelerator type",
    ),
    (
        ("tpu_vms", "tpu", "accelerator_type"),
        "V5LITEPOD-8",
        f"{P}.tpu_vms.tpu.accelerator_type",
        "is not a TPU accelerator type",
    ),
    (
        ("tpu_vms", "tpu", "runtime_version"),
        "v2 alpha",
        f"{P}.tpu_vms.tpu.runtime_version",
        "is not a TPU software version name",
    ),
    (
        ("gpu_vms", "job", "image"),
        "debian-12",
        f"{P}.gpu_vms.job.image",
        "is not a Compute Engine image",
    ),
    # limits: allow-list entries of the shape Google uses (a typo would match nothing)
    (
        ("limits", "notebook_machine_types"),
        ["n1-standard-4", "N1-STANDARD-8"],
        f"{P}.limits.notebook_machine_types.1",
        "is not a Compute Engine machine type name",
    ),
    (
        ("limits", "notebook_gpu_types"),
        ["nvidia-tesla-t4"],
        f"{P}.limits.notebook_gpu_types.0",
        "did you mean NVIDIA_TESLA_T4?",
    ),
    (
        ("limits", "sql_tiers"),
        ["db_g1_small"],
        f"{P}.limits.sql_tiers.0",
        "is not a Cloud SQL tier",
    ),
    (
        ("limits", "vertex_serving_gpu_types"),
        ["nvidia-l4"],
        f"{P}.limits.vertex_serving_gpu_types.0",
        "is not a Vertex AI accelerator type",
    ),
    # Workbench disks: at most 64,000 GB
    (
        ("notebooks", "alice", "data_disk_gb"),
        65536,
        f"{P}.notebooks.alice.data_disk_gb",
        "less than or equal to 64000",
    ),
    # Cloud Scheduler: unix-cron only, and a schedule that fires
    (
        ("automation", "reap_expired_schedule"),
        "99 * * * *",
        f"{P}.automation.reap_expired_schedule",
        "Bad minute",
    ),
    (
        ("automation", "reap_expired_schedule"),
        "0 0 30 2 *",
        f"{P}.automation.reap_expired_schedule",
        "is not a valid unix-cron schedule",
    ),
    (
        ("automation", "reap_expired_schedule"),
        "0 0 L * *",
        f"{P}.automation.reap_expired_schedule",
        "Cloud Scheduler has no L, W, # or ?",
    ),
    (
        ("automation", "reap_idle_vms_schedule"),
        "0 0 * * 5#3",
        f"{P}.automation.reap_idle_vms_schedule",
        "Cloud Scheduler has no L, W, # or ?",
    ),
    (
        ("automation", "reap_idle_vms_schedule"),
        "@hourly",
        f"{P}.automation.reap_idle_vms_schedule",
        "five fields",
    ),
    (
        ("automation", "reap_idle_vms_schedule"),
        "0 *  * * *",
        f"{P}.automation.reap_idle_vms_schedule",
        "five fields",
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "key", "says"), REFUSED, ids=[f"{r[2]}={r[1]!r}" for r in REFUSED]
)
def test_values_google_refuses_are_refused_naming_the_key(
    path: tuple[str, ...], value: Any, key: str, says: str
) -> None:
    def mutate(config: dict[str, Any]) -> None:
        settings = config[P]
        settings.setdefault("gke", {})
        settings.setdefault("training_pools", {}).setdefault(
            "t4", {"kind": "gpu", "machine_type": "n1-standard-8", "accelerator": "nvidia-tesla-t4"}
        )
        settings.setdefault("tpu_vms", {}).setdefault("tpu", {"zone": "us-central1-a"})
        settings.setdefault("gpu_vms", {}).setdefault("job", {})
        _set(*path, value=value)(config)

    problems = _problems(mutate)
    mine = [p for p in problems if p.startswith(f"{key}: ")]
    assert mine, problems
    assert says in mine[0], mine[0]


ACCEPTED = [
    (("automation", "dry_run"), "false"),  # Pulumi passes CLI-set config as strings
    (("automation", "dry_run"), "True"),
    (("automation", "dry_run"), False),
    (("automation", "reap_expired_schedule"), "30 6 * JAN-DEC MON-FRI"),
    (("automation", "reap_expired_schedule"), "*/15 0-23/2 1,15 * 0"),
    (("notebooks", "alice", "machine_type"), "n1-standard-4"),
    (("labels",), {"team": "équipe", "cost-center": "cc-1", "projet": ""}),  # Google: allowed
    (("labels",), {"team": "研究", "cost-center": "cc-1"}),
    (("budget", "amount_usd"), 1_000_000_000_000),
    (("gke", "autoprovisioning", "accelerators"), {"nvidia-h100-80gb": 8, "nvidia-l4": 4}),
]


@pytest.mark.parametrize(
    ("path", "value"), ACCEPTED, ids=[f"{a[0][-1]}={a[1]!r}" for a in ACCEPTED]
)
def test_real_values_pass(path: tuple[str, ...], value: Any) -> None:
    _accepts(_set(*path, value=value))


def test_budget_required_of_a_program_of_ones_own_is_a_flag_too() -> None:
    config = {"gcp:project": "shop-ml-dev", "mlgov:plan": {"budget_required": "yes"}}
    with pytest.raises(SettingsError) as err:
        plan_context(config)
    assert err.value.problems == [
        "mlgov:plan.budget_required: 'yes' is not a boolean: write true or false (Pulumi reads "
        'only those; "yes", "on", 1 and the like are refused so the stack file says what it means)'
    ]
    google = {"gcp:project": "google-ml-dev"}
    with pytest.raises(SettingsError) as err:
        plan_context(google)
    assert err.value.problems[0].startswith("gcp:project: 'google-ml-dev' is not a project id")


def test_names_that_would_begin_a_topic_or_bucket_with_goog_are_refused() -> None:
    assert _problems(_set("prefix", value="goog-ml")) == [
        f"{P}.prefix: 'goog-ml' starts with 'goog': the budget's Pub/Sub topic is named from it, "
        "and Pub/Sub refuses topic names that begin with 'goog'"
    ]
    assert _problems(_set("gcp:project", value="googly-ml-dev")) == [
        "gcp:project: 'googly-ml-dev' starts with 'goog': mlgov's buckets are named from the "
        "project id, and Cloud Storage refuses bucket names that begin with 'goog'"
    ]


def test_labels_upper_case_and_symbols_stay_refused() -> None:
    for value in ("Research", "a.b", "a b", "x" * 64):
        problems = _problems(_set("labels", "team", value=value))
        assert problems[0].startswith(f"{P}.labels.team: label value "), problems


# --------------------------------------------------------------------------- YAML as Pulumi reads it
def test_yaml_reads_scalars_as_pulumi_does() -> None:
    doc = load_yaml("a: yes\nb: off\nc: 19:00\nd: true\ne: 1e3\nf: 0x1F\ng: False\n")
    # Go yaml.v3 (Pulumi) keeps yes/off and 19:00 as strings; PyYAML's YAML 1.1 would not.
    assert doc == {
        "a": "yes",
        "b": "off",
        "c": "19:00",
        "d": True,
        "e": 1000.0,
        "f": 31,
        "g": False,
    }


def test_an_unquoted_yes_in_a_stack_file_exits_2_naming_the_key(run: Run, tmp_path: Path) -> None:
    path = stack_file(tmp_path, DEV, "dry_run: true", "dry_run: yes")
    line = one_refusal(run("plan", "--config", str(path)), f"{P}.automation.dry_run")
    assert "'yes' is not a boolean" in line


def test_an_unquoted_time_of_day_reads_as_the_time(run: Run, tmp_path: Path) -> None:
    # YAML 1.1 read `19:00` as the base-60 number 1140 and the plan failed; Pulumi reads "19:00".
    path = stack_file(tmp_path, DEV, 'stop: "19:00"', "stop: 19:00")
    code, _, err = run("plan", "--config", str(path), "--json")
    assert code == 0, err


# --------------------------------------------------------------------------- provider keys
def test_provider_default_labels_may_not_exempt_the_whole_stack() -> None:
    # gcp:defaultLabels lands on every resource the provider creates, outside the plan: the same
    # hole as `labels: {mlgov-exempt: "true"}`, so the same refusal, in both kinds of stack file.
    platform = _problems(lambda c: c.update({"gcp:defaultLabels": {"mlgov-exempt": "true"}}))
    assert platform == [
        "gcp:defaultLabels.mlgov-exempt: label 'mlgov-exempt' is reserved: `mlgov-*` labels steer "
        "the automation; set it with `exempt: true` on the notebook, training pool, TPU VM or GPU "
        "VM itself"
    ]
    own = {"gcp:project": "shop-ml-dev", "gcp:defaultLabels": '{"mlgov-exempt": "true"}'}
    with pytest.raises(SettingsError) as err:
        plan_context(own)
    assert err.value.problems == platform


def test_provider_default_labels_follow_the_label_rules_and_ordinary_ones_pass() -> None:
    problems = _problems(lambda c: c.update({"gcp:defaultLabels": {"Team": "x", "a b": "y"}}))
    assert [p.split(": ", 1)[0] for p in problems] == [
        "gcp:defaultLabels.Team",
        'gcp:defaultLabels."a b"',
    ]
    _accepts(lambda c: c.update({"gcp:defaultLabels": {"owner": "platform"}}))


def test_provider_zone_is_a_zone_google_offers() -> None:
    problems = _problems(lambda c: c.update({"gcp:zone": "us-central1-z"}))
    assert problems[0].startswith("gcp:zone: 'us-central1-z' is not a zone Google offers")
    with pytest.raises(SettingsError) as err:
        plan_context({"gcp:project": "shop-ml-dev", "gcp:zone": "Mars"})
    assert err.value.problems == ["gcp:zone: 'Mars' is not a zone name such as us-central1-a"]
