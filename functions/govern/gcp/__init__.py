"""Adapters from the ports to the real google-cloud-* clients (REST), one module per service.

`ADAPTERS` is the literal table main.py builds ports from, keyed by the `MLGOV_API_ENDPOINTS`
service name (docs/architecture.md#function-environment); each factory takes that service's endpoint
override or None for Google's. Importing this package imports no google.* module: each adapter
imports its client on first use. Adding a service: an adapter module with `create(endpoint)`, a line
here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from govern.gcp import (
    billing,
    billingbudgets,
    cloudasset,
    compute,
    container,
    monitoring,
    notebooks,
    pubsub,
    recommender,
    tpu,
    vertex,
)
from govern.gcp.clients import load_service

ADAPTERS: Final[dict[str, Callable[[str | None], Any]]] = {
    "compute": compute.create,
    "recommender": recommender.create,
    "cloudbilling": billing.create,
    "notebooks": notebooks.create,
    "tpu": tpu.create,
    "monitoring": monitoring.create,
    "container": container.create,
    "aiplatform": vertex.create,
    "billingbudgets": billingbudgets.create,
    "cloudasset": cloudasset.create,
    "pubsub": pubsub.create,
}

__all__ = ["ADAPTERS", "load_service"]
