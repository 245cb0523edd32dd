"""Pure helpers: GCP physical names and labels."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from governance.labels import Labels, base_labels, label_problem
from governance.naming import account_id, dataset_id, resource_name, role_id

GCP_NAME = re.compile(r"[a-z]([a-z0-9-]*[a-z0-9])?")


def test_resource_name_joins_and_cleans() -> None:
    assert resource_name("acme-dev", "nb", "Alice_Smith") == "acme-dev-nb-alice-smith"
    assert resource_name("acme", "", "x") == "acme-x"
    assert resource_name("", "9lives") == "m-9lives"


def test_long_names_are_cut_with_a_stable_hash() -> None:
    long = resource_name("acme-dev", "nb", "a" * 80)
    assert len(long) == 63
    assert long == resource_name("acme-dev", "nb", "a" * 80)
    assert long != resource_name("acme-dev", "nb", "a" * 79 + "b")


@given(st.text(min_size=0, max_size=120), st.text(min_size=0, max_size=120))
def test_resource_names_always_fit_gcp_rules(prefix: str, part: str) -> None:
    name = resource_name(prefix, part)
    assert len(name) <= 63
    assert GCP_NAME.fullmatch(name), name


@given(st.text(min_size=0, max_size=60))
def test_account_ids_fit(role: str) -> None:
    value = account_id("acme-dev", role)
    assert 6 <= len(value) <= 30
    assert GCP_NAME.fullmatch(value), value


def test_dataset_and_role_ids() -> None:
    assert dataset_id("raw-events.v2") == "raw_events_v2"
    assert role_id("acme-dev", "notebook_schedule") == "acme_dev_notebook_schedule"
    assert len(role_id("x" * 70, "y")) == 64


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("team", "research", None),
        ("cost-center", "cc-1234", None),
        ("Team", "x", "label key 'Team' must start with a lowercase letter"),
        ("1team", "x", "label key '1team' must start with a lowercase letter"),
        ("team", "Research", "label value 'Research' for 'team' may contain only"),
        ("team", "x" * 64, "may contain only lowercase letters"),
        ("k" * 64, "x", "must start with a lowercase letter"),
    ],
)
def test_label_rules(key: str, value: str, problem: str | None) -> None:
    found = label_problem(key, value)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(problem) or problem in found


def test_labels_for_a_workload() -> None:
    base = base_labels("dev", {"team": "research", "cost-center": "cc-1"})
    labels = base.for_workload("notebook", expires_on=date(2026, 12, 31), exempt=True).as_dict()
    assert labels == {
        "cost-center": "cc-1",
        "env": "dev",
        "managed-by": "mlgov",
        "mlgov-exempt": "true",
        "mlgov-expires-on": "2026-12-31",
        "team": "research",
        "workload": "notebook",
    }
    assert list(labels) == sorted(labels)
    assert "mlgov-exempt" not in base.for_workload("data").as_dict()


def test_invalid_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="label value 'Bad Value'"):
        Labels({"team": "Bad Value"})
    with pytest.raises(ValueError, match="at most 64 labels"):
        Labels({f"k{i}": "v" for i in range(65)})
