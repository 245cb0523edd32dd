"""gcp/clients.py: which errors are transient, what a server asked for, how errors translate.

The exceptions are the real ones the client libraries raise (api_core from an HTTP response,
requests/urllib3/google-auth for transport failures).
"""

from __future__ import annotations

import google.auth.exceptions
import pytest
import requests
import urllib3
from google.api_core import exceptions as ex

from govern import ports
from govern.gcp.clients import is_transient, retry_after, translated
from govern.retry import GaveUp


def _api_error(status: int, body: dict | None = None, headers: dict | None = None):
    response = requests.Response()
    response.status_code = status
    response.headers.update(headers or {})
    response._content = requests.compat.json.dumps(  # type: ignore[attr-defined]
        body or {"error": {"code": status, "message": "boom"}}
    ).encode()
    response.request = requests.Request("POST", "http://x/y").prepare()
    return ex.from_http_response(response)


RATE_LIMITED = {
    "error": {
        "code": 403,
        "message": "Rate Limit Exceeded",
        "errors": [{"domain": "usageLimits", "reason": "rateLimitExceeded"}],
    }
}


@pytest.mark.parametrize(
    ("err", "transient"),
    [
        (_api_error(429), True),
        (_api_error(500), True),
        (_api_error(502), True),
        (_api_error(503), True),
        (_api_error(504), True),
        (_api_error(403, RATE_LIMITED), True),
        (ex.RetryError("library retry gave up", cause=None), True),
        (requests.exceptions.ConnectionError("reset"), True),
        (requests.exceptions.ConnectTimeout("connect"), True),
        (requests.exceptions.ReadTimeout("slow"), True),
        (requests.exceptions.ChunkedEncodingError("cut"), True),
        (urllib3.exceptions.ProtocolError("aborted"), True),
        (google.auth.exceptions.TransportError("token"), True),
        (ConnectionResetError(), True),
        (_api_error(400), False),
        (_api_error(403), False),
        (_api_error(404), False),
        (_api_error(412), False),
        (ValueError("bug"), False),
    ],
)
def test_what_is_transient(err, transient):
    assert is_transient(err) is transient


def test_retry_after_reads_the_response_header():
    assert retry_after(_api_error(429, headers={"Retry-After": "7"})) == 7.0
    assert retry_after(_api_error(503)) is None
    assert retry_after(requests.exceptions.ConnectionError()) is None
    # Compute's rate limit has no header: wait for the next quota minute.
    wait = retry_after(_api_error(403, RATE_LIMITED))
    assert wait is not None
    assert 0 < wait <= 60


@pytest.mark.parametrize(
    ("err", "kind", "text"),
    [
        (_api_error(404), ports.Gone, "x: not found"),
        (_api_error(412), ports.Conflict, "x: "),
        (_api_error(403), ports.PortError, "x: HTTP 403"),
        (_api_error(503), ports.Unavailable, "x: HTTP 503"),
        (GaveUp(_api_error(503)), ports.Unavailable, "x: HTTP 503: gave up retrying"),
        (
            GaveUp(requests.exceptions.ReadTimeout("slow")),
            ports.Unavailable,
            "x: ReadTimeout (no reply): gave up",
        ),
        (requests.exceptions.ConnectionError("reset"), ports.Unavailable, "x: ConnectionError"),
    ],
)
def test_errors_translate_to_port_errors(err, kind, text):
    with pytest.raises(ports.PortError) as caught, translated("x"):
        raise err
    assert type(caught.value) is kind
    assert str(caught.value).startswith(text)


def test_other_errors_are_not_translated():
    with pytest.raises(KeyError), translated("x"):
        raise KeyError("a bug stays a bug")
