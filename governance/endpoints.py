"""`MLGOV_API_ENDPOINTS`: which base URL to use for a Google API instead of Google's own.

docs/architecture.md#function-environment fixes the variable and its service keys (`compute`,
`cloudscheduler`, `bigquery`, `container`, ...). The deployed functions parse it on their side
(functions/ imports nothing from here); this module is the one parser for the operator tools
(`jobs`, `spend`, `cap`). Pure: stdlib only, no clients.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import cast

ENDPOINTS_ENV = "MLGOV_API_ENDPOINTS"
KNOWN_SERVICES = (
    "compute",
    "recommender",
    "cloudbilling",
    "notebooks",
    "tpu",
    "monitoring",
    "cloudscheduler",
    "bigquery",
    "container",
    "aiplatform",
    "billingbudgets",
    # Organization scale (docs/architecture.md#fan-out): the functions' Asset Inventory and
    # Pub/Sub, and Cloud Logging, which `mlgov cap status` reads the fan-out runs from.
    "cloudasset",
    "pubsub",
    "logging",
)
"""The service keys docs/architecture.md fixes (the functions refuse any other key too)."""


def needs_google(local: str) -> str:
    """The sentence a command's --help ends with when it talks to Google Cloud.

    `local`: how to point it at a local server instead (its flag, or MLGOV_API_ENDPOINTS).
    Every other command runs offline, so a newcomer learns which ones need an account before
    running them.
    """
    return (
        "Talks to Google Cloud: needs Application Default Credentials (`gcloud auth "
        f"application-default login`) and the network, or a local server ({local})."
    )


class EndpointError(ValueError):
    """`MLGOV_API_ENDPOINTS` (or an endpoint flag) is malformed; the message names the key."""


def check_url(url: str, where: str) -> str:
    """`url` without a trailing slash, if it is an http(s) URL; EndpointError naming `where`."""
    if not url.startswith(("http://", "https://")):
        raise EndpointError(f"{where}: {url!r} must be a URL starting with http:// or https://")
    return url.rstrip("/")


def api_endpoint(service: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The base URL `MLGOV_API_ENDPOINTS` gives `service`, or None for Google's endpoint."""
    raw = (os.environ if environ is None else environ).get(ENDPOINTS_ENV, "").strip()
    if not raw:
        return None
    try:
        endpoints: object = json.loads(raw)
    except ValueError:
        raise EndpointError(f"{ENDPOINTS_ENV}: not valid JSON") from None
    if not isinstance(endpoints, dict):
        raise EndpointError(f'{ENDPOINTS_ENV}: must be an object like {{"{service}": URL}}')
    given = cast(dict[str, object], endpoints)
    # A misspelt key would send the call to Google's real endpoint with real credentials.
    unknown = sorted(set(given) - set(KNOWN_SERVICES))
    if unknown:
        raise EndpointError(
            f"{ENDPOINTS_ENV}: unknown service(s) {', '.join(unknown)}; "
            f"known: {', '.join(KNOWN_SERVICES)}"
        )
    url = given.get(service)
    if url is None:
        return None
    if not isinstance(url, str):
        raise EndpointError(f"{ENDPOINTS_ENV}.{service}: must be a URL string")
    return check_url(url, f"{ENDPOINTS_ENV}.{service}")
