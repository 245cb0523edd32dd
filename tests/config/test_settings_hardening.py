"""Hardened defaults in the settings: GKE control plane, notebook root, function ingress.

Defaults are the safe choice everywhere; each opening is a key the stack must write, and the
contradictions are refused with one line naming the key path.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from governance.settings import SettingsError, settings_from_config
from tests.conftest import STACKS, stack_config

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"


def _problems(stack: str, mutate: Mutation) -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config["mlgov:settings"])
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


def _settings(stack: str, mutate: Mutation):
    config = copy.deepcopy(stack_config(stack))
    mutate(config["mlgov:settings"])
    return settings_from_config(config)


def _plane(**values: Any) -> Mutation:
    return lambda s: s["gke"].update(control_plane=values)


def test_defaults_are_the_hardened_choice() -> None:
    s = _settings("staging", lambda s: s["gke"].pop("control_plane", None))
    assert s.gke is not None
    plane = s.gke.control_plane
    assert plane.public_endpoint is False
    assert plane.authorized_networks == ()
    assert plane.dns_endpoint is True
    assert all(nb.root_access is False for nb in s.notebooks.values())
    assert s.automation.scheduled_ingress == "ALLOW_ALL"


@pytest.mark.parametrize("stack", STACKS)
def test_shipped_stacks_keep_a_public_endpoint_only_in_dev(stack: str) -> None:
    s = settings_from_config(stack_config(stack))
    assert s.gke is not None
    assert s.gke.control_plane.public_endpoint is (stack == "dev")
    assert not any(nb.root_access for nb in s.notebooks.values())


def test_dev_may_open_the_public_endpoint_to_any_address() -> None:
    s = _settings("dev", _plane(public_endpoint=True))
    assert s.gke is not None and s.gke.control_plane.public_endpoint is True


@pytest.mark.parametrize("stack", ["staging", "prod"])
def test_public_endpoint_outside_dev_needs_authorized_networks(stack: str) -> None:
    assert _problems(stack, _plane(public_endpoint=True)) == [
        f"{P}.gke.control_plane.authorized_networks: the public endpoint is open to the whole "
        f"internet in {stack}; list the networks that may reach it, or set public_endpoint: "
        "false and use the DNS endpoint"
    ]


def test_public_endpoint_outside_dev_with_authorized_networks() -> None:
    networks = [{"cidr_block": "203.0.113.0/24", "display_name": "office"}]
    s = _settings("prod", _plane(public_endpoint=True, authorized_networks=networks))
    assert s.gke is not None
    [network] = s.gke.control_plane.authorized_networks
    assert (network.cidr_block, network.display_name) == ("203.0.113.0/24", "office")


def test_an_open_network_does_not_count_outside_dev() -> None:
    networks = [{"cidr_block": "198.51.100.0/24"}, {"cidr_block": "0.0.0.0/0"}]
    assert _problems("prod", _plane(public_endpoint=True, authorized_networks=networks)) == [
        f"{P}.gke.control_plane.authorized_networks.1.cidr_block: 0.0.0.0/0 authorizes the whole "
        "internet in prod; list narrower ranges, or set public_endpoint: false and use the DNS "
        "endpoint"
    ]


@pytest.mark.parametrize("cidr", ["203.0.113.7/24", "10.0.0.0/33", "office", "2001:db8::/32"])
def test_authorized_networks_are_ipv4_ranges(cidr: str) -> None:
    problems = _problems("dev", _plane(authorized_networks=[{"cidr_block": cidr}]))
    assert problems == [
        f"{P}.gke.control_plane.authorized_networks.0.cidr_block: must be an IPv4 "
        "CIDR range with no host bits set, such as 203.0.113.0/24"
    ]


def test_control_plane_typos_and_types_name_the_key() -> None:
    assert _problems("dev", _plane(public_endpiont=True)) == [
        f"{P}.gke.control_plane.public_endpiont: unknown key; did you mean 'public_endpoint'?"
    ]
    [problem] = _problems("dev", _plane(dns_endpoint="sometimes"))
    assert problem.startswith(f"{P}.gke.control_plane.dns_endpoint: 'sometimes' is not a boolean")


def test_notebook_root_access_is_a_boolean_per_notebook() -> None:
    s = _settings("dev", lambda s: s["notebooks"]["alice"].update(root_access=True))
    assert s.notebooks["alice"].root_access is True
    assert s.notebooks["bob"].root_access is False
    [problem] = _problems("dev", lambda s: s["notebooks"]["bob"].update(root_access="sudo"))
    assert problem.startswith(f"{P}.notebooks.bob.root_access: 'sudo' is not a boolean")


def test_scheduled_ingress_takes_the_two_api_values() -> None:
    s = _settings("prod", lambda s: s["automation"].update(scheduled_ingress="ALLOW_INTERNAL_ONLY"))
    assert s.automation.scheduled_ingress == "ALLOW_INTERNAL_ONLY"
    [problem] = _problems("prod", lambda s: s["automation"].update(scheduled_ingress="internal"))
    assert problem == (
        f"{P}.automation.scheduled_ingress: Input should be 'ALLOW_ALL' or 'ALLOW_INTERNAL_ONLY'"
    )


def test_at_most_fifty_authorized_networks() -> None:
    networks = [{"cidr_block": f"10.0.{i}.0/24"} for i in range(51)]
    [problem] = _problems("dev", _plane(authorized_networks=networks))
    assert problem.startswith(
        f"{P}.gke.control_plane.authorized_networks: Tuple should have at most 50 items"
    )
