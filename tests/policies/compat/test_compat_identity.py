"""What mlgov-iam-dedicated-service-account assumes about GCP, checked against Google's own API
descriptions: where no service account is given, TPU VMs and GKE nodes run as the default one,
and Compute Engine VMs get none.
"""

from __future__ import annotations

from discovery_documents import properties

from mlgov_policies.rules import iam


def _description(api: str, schema: str, field: str) -> str:
    return " ".join(properties(api, schema)[field]["description"].split())


def test_tpu_vms_default_to_the_compute_account() -> None:
    assert "If None is specified, the default compute service account will be used" in (
        _description("tpu.v2", "Node", "serviceAccount")
    )


def test_gke_nodes_default_to_the_default_account() -> None:
    text = _description("container.v1", "NodeConfig", "serviceAccount")
    assert 'if no Service Account is specified, the "default" service account is used' in text


def test_compute_instances_list_their_accounts_and_default_to_none() -> None:
    # A list with "Only one service account per VM instance": no default is named, so an
    # instance without one has no identity, and the rule flags only the default account itself.
    text = _description("compute.v1", "Instance", "serviceAccounts")
    assert "Only one service account per VM instance is supported" in text
    assert "default" not in text.lower()


def test_the_default_account_pattern_matches_googles_form_only() -> None:
    assert iam.DEFAULT_COMPUTE_ACCOUNT.fullmatch(
        "628364681111-compute@developer.gserviceaccount.com"
    )
    assert not iam.DEFAULT_COMPUTE_ACCOUNT.fullmatch("sa-compute@developer.gserviceaccount.com")
