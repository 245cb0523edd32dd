"""mlgov-compute-no-public-ip: no external IPv4 or IPv6 address on a VM or instance template.

Cases for mlgov_policies/rules/compute.py: one change to the known-good stack each, checked
offline and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, s

from mlgov_policies.config import PolicyConfig
from mlgov_policies.rules.compute import no_public_ip

_NIC = {"network": "acme-prod-net", "subnetwork": "acme-prod-subnet"}

CASES: tuple[Case, ...] = (
    Case(
        "vm-ephemeral-external-ip",
        "mlgov-compute-no-public-ip",
        # `accessConfigs: [{}]` is how a program asks for an ephemeral external IP (the
        # pulumi-gcp test program in tests/formats/data does exactly this).
        (s("gpu-vm", "networkInterfaces", [{**_NIC, "accessConfigs": [{}]}]),),
    ),
    Case(
        "vm-static-external-ip",
        "mlgov-compute-no-public-ip",
        (
            s(
                "gpu-vm",
                "networkInterfaces",
                [{**_NIC, "accessConfigs": [{"natIp": "34.42.137.103"}]}],
            ),
        ),
    ),
    Case(
        "vm-external-ipv6",
        "mlgov-compute-no-public-ip",
        (
            s(
                "gpu-vm",
                "networkInterfaces",
                [{**_NIC, "ipv6AccessConfigs": [{"networkTier": "PREMIUM"}]}],
            ),
        ),
    ),
    Case("vm-empty-access-configs", None, (s("gpu-vm", "networkInterfaces", [{**_NIC}]),)),
    Case(
        "vm-empty-access-config-list",
        None,
        (s("gpu-vm", "networkInterfaces", [{**_NIC, "accessConfigs": []}]),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_every_interface_is_named_and_templates_are_checked() -> None:
    props = {
        "networkInterfaces": [
            {"network": "a"},
            {"network": "b", "accessConfigs": [{}], "ipv6AccessConfigs": [{}]},
        ]
    }
    found = list(
        no_public_ip("gcp:compute/instanceTemplate:InstanceTemplate", props, PolicyConfig())
    )
    assert [m.split(" gives")[0] for m in found] == [
        "networkInterfaces[1].accessConfigs",
        "networkInterfaces[1].ipv6AccessConfigs",
    ]


def test_unknown_interfaces_are_skipped() -> None:
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    config = PolicyConfig()
    assert list(no_public_ip("", {"networkInterfaces": unknown}, config)) == []
    assert list(no_public_ip("", {"networkInterfaces": [{"accessConfigs": unknown}]}, config)) == []
