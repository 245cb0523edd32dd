"""How long the operator tools wait for a Google API, and what they say while they wait.

`spend`, `jobs`, `cap` and `prices refresh` each start with a call that finds out whether the
endpoint answers at all. A wrong `MLGOV_API_ENDPOINTS` URL, a closed port, a proxy that accepts
and never answers, or no network must fail that call in seconds, naming the endpoint, not after
the client libraries' default (BigQuery: ten minutes of retries). So the first call gets
`attempt_s` per attempt and retries only while less than `reach_s` has passed (at most about
reach_s + attempt_s in all); later calls keep each command's own, longer, timeouts. Retries are
google.api_core's `Retry` over its own transient-error predicate; `cap`'s plain HTTP calls get
requests' (connect, read) timeouts and urllib3's retry, mounted on the session.

A wait longer than `quiet_s` prints a line on stderr (`waiting`), then one every `every_s`:
quick answers stay quiet, slow ones are never silent. Nothing here decides what a command does
with an answer; google.api_core, requests and urllib3 are imported only when used.

Every number lives in one `Budget`, and every command reads it through `budget()` when its wait
starts, never copies it at import: so all commands wait alike, and the fail-fast tests
(tests/test_deadlines.py) can give every command a shorter budget through the same path a
command takes, instead of waiting out the real one per command.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from governance.endpoints import ENDPOINTS_ENV


@dataclass(frozen=True)
class Budget:
    """How long the operator tools wait, in seconds."""

    reach_s: float = 4.0
    """The first call retries transient failures while less than this has passed..."""
    attempt_s: float = 4.0
    """... and each of its attempts waits at most this long for an answer."""
    read_s: float = 30.0
    """requests' read timeout for `cap`'s calls after the first."""
    quiet_s: float = 2.0
    """A wait shorter than this prints nothing..."""
    every_s: float = 10.0
    """... a longer one a line at first, then one per this many seconds."""
    refused_backoff_s: float = 0.5
    """urllib3's backoff factor between tries of a refused or reset connection (`cap`)."""

    @property
    def first_call_s(self) -> float:
        """The most a first call takes: a last attempt may start just before `reach_s`."""
        return self.reach_s + self.attempt_s

    @property
    def http_timeout(self) -> tuple[float, float]:
        """The (connect, read) timeouts for `http_session` calls after the first (requests')."""
        return (self.attempt_s, self.read_s)


BUDGET = Budget()
"""The budget in force: the defaults above. Read through `budget()`, never copied at import."""


def budget() -> Budget:
    """The budget in force, `BUDGET` (read it when a wait starts: see the module's docstring)."""
    return BUDGET


# Google's endpoints and the names people know the services by, per MLGOV_API_ENDPOINTS key.
GOOGLE = {
    "bigquery": ("BigQuery", "https://bigquery.googleapis.com"),
    "cloudscheduler": ("Cloud Scheduler", "https://cloudscheduler.googleapis.com"),
    "container": ("the GKE API", "https://container.googleapis.com"),
    # Vertex AI's hosts are regional (<region>-aiplatform.googleapis.com): named generically.
    "aiplatform": ("the Vertex AI API", "https://<region>-aiplatform.googleapis.com"),
    "cloudbilling": ("the Cloud Billing Catalog API", "https://cloudbilling.googleapis.com"),
    "billingbudgets": ("the Budget API", "https://billingbudgets.googleapis.com"),
    "logging": ("the Cloud Logging API", "https://logging.googleapis.com"),
}


@dataclass(frozen=True)
class Endpoint:
    """Which API a command talks to: its MLGOV_API_ENDPOINTS key and base URL (None: Google's)."""

    service: str
    url: str | None = None
    flag: str | None = None
    """The command's flag that sets the URL too (`--endpoint`), if it has one."""
    from_env: bool = True
    """Whether the command reads the URL from MLGOV_API_ENDPOINTS (`prices refresh` does not)."""

    @property
    def where(self) -> str:
        """`BigQuery at http://127.0.0.1:9050`: the endpoint, named for people."""
        name, google = GOOGLE.get(self.service, (self.service, f"{self.service} API"))
        return f"{name} at {self.url or google}"

    @property
    def hint(self) -> str:
        """What to check when it does not answer."""
        if self.url is not None:
            places = [self.flag] if self.flag else []
            places += [f"{ENDPOINTS_ENV}.{self.service}"] if self.from_env else []
            return f"check the URL ({' or '.join(places)})" if places else "check the URL"
        return "check the network (and any proxy settings)"


def reason(err: BaseException) -> str:
    """Why a call got no answer, in words: `connection refused`, `no answer in 4 s`, ..."""
    import requests
    from google.api_core import exceptions

    if isinstance(err, exceptions.RetryError):
        cause: object = err.cause  # pyright: ignore[reportUnknownMemberType]  # untyped upstream
        if isinstance(cause, BaseException):
            err = cause
    text = str(err)
    if isinstance(err, requests.exceptions.ConnectTimeout):
        return "could not connect: timed out"
    if isinstance(err, requests.exceptions.Timeout):
        return "connected, but no answer came (read timed out)"
    for clue, words in (  # urllib3's retry wraps the error it gave up on: read its text
        ("Connection refused", "connection refused"),
        ("Read timed out", "connected, but no answer came (read timed out)"),
        ("ConnectTimeoutError", "could not connect: timed out"),
        ("Name or service not known", "host name not found"),
        ("Temporary failure in name resolution", "host name not found"),
        ("nodename nor servname", "host name not found"),
        ("Connection reset", "connection reset"),
        ("RemoteDisconnected", "the server closed the connection without answering"),
    ):
        if clue in text:
            return words
    first = text.splitlines()[0] if text else ""
    return f"{type(err).__name__}: {first}"[:200]


def credentials_refused(err: BaseException) -> str:
    """The one sentence for credentials Google's token endpoint refused (google-auth RefreshError).

    An expired or revoked `gcloud auth application-default login` ends here, before any API
    call; its first argument is the endpoint's error and description (`invalid_grant: ...`).
    """
    detail = err.args[0] if err.args and isinstance(err.args[0], str) else str(err)
    return (
        f"Google refused the credentials ({detail[:200]}): run `gcloud auth "
        "application-default login` again (or set GOOGLE_APPLICATION_CREDENTIALS)"
    )


def unreachable(endpoint: Endpoint, err: BaseException, waited_s: float) -> str:
    """The one sentence for an endpoint that did not answer, naming it and what to check."""
    return (
        f"{endpoint.where} did not answer ({reason(err)}; gave up after {waited_s:.1f} s); "
        f"{endpoint.hint}"
    )


def no_answer() -> tuple[type[Exception], ...]:
    """What a call raises when the endpoint did not answer (not an API error answer)."""
    import google.auth.exceptions
    import requests
    from google.api_core import exceptions

    return (
        exceptions.RetryError,
        requests.exceptions.ConnectionError,
        requests.exceptions.Timeout,
        google.auth.exceptions.TransportError,
    )


def _transient(err: Exception) -> bool:
    from google.api_core import retry
    from requests.exceptions import Timeout

    # if_transient_error: 500, 503, 429 and connection errors; a read timeout too, here, because
    # a first call is always an idempotent read.
    return bool(retry.if_transient_error(err)) or isinstance(err, Timeout)


def first_call_retry(
    on_error: Callable[[Exception], None] | None = None, budget_s: float | None = None
) -> Any:
    """google.api_core Retry for a command's first call: transient errors, for `reach_s`.

    `budget_s` lowers it (a command's own --timeout when that is shorter).
    """
    from google.api_core import retry

    reach_s = budget().reach_s

    return retry.Retry(
        predicate=_transient,
        initial=0.5,
        maximum=2.0,
        multiplier=2.0,
        timeout=reach_s if budget_s is None else min(budget_s, reach_s),
        on_error=on_error,
    )


@dataclass
class Waiting:
    """What a wait in progress knows: when it started and the last error a retry saw."""

    what: str
    limit_s: float | None
    started: float = field(default_factory=time.monotonic)
    last_error: str = ""

    def saw(self, err: Exception) -> None:
        """A retry's `on_error`: remember why it retries, for the next progress line."""
        self.last_error = reason(err)

    @property
    def elapsed(self) -> float:
        """Seconds since the wait started."""
        return time.monotonic() - self.started

    def line(self) -> str:
        """The progress line: what, how long so far, the last error, when it gives up."""
        parts = [f"{self.elapsed:.0f} s"]
        if self.last_error:
            parts.append(f"{self.last_error}, retrying")
        if self.limit_s is not None:
            parts.append(f"gives up within {self.limit_s:g} s")
        return f"mlgov: waiting for {self.what} ({'; '.join(parts)})"


@contextmanager
def waiting(
    what: str,
    limit_s: float | None = None,
    stream: TextIO | None = None,
    quiet_s: float | None = None,
    every_s: float | None = None,
) -> Generator[Waiting]:
    """Print a progress line on stderr when the block takes longer than `quiet_s`, and repeat.

    `quiet_s` and `every_s` default to the budget's.
    """
    state = Waiting(what, limit_s)
    done = threading.Event()
    first = budget().quiet_s if quiet_s is None else quiet_s
    then = budget().every_s if every_s is None else every_s

    def tick() -> None:
        pause = first
        while not done.wait(pause):
            print(state.line(), file=stream or sys.stderr, flush=True)
            pause = then

    thread = threading.Thread(target=tick, name="mlgov-waiting", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        done.set()
        thread.join()


def http_session(endpoint: Endpoint, session: Any | None = None) -> Any:
    """A requests session (or `session`, e.g. google.auth's AuthorizedSession) that fails fast.

    Its first request waits at most `attempt_s` to connect and `attempt_s` for the answer; later
    ones get the caller's timeout (`Budget.http_timeout`). urllib3 retries a refused or reset
    connection for about a second. A call that gets no answer ends as a requests ConnectionError
    naming the endpoint.
    """
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    class _FirstCallAdapter(HTTPAdapter):
        answered = False

        def send(self, request: Any, *args: Any, **kwargs: Any) -> Any:
            if not self.answered:
                kwargs["timeout"] = (budget().attempt_s, budget().attempt_s)
            started = time.monotonic()
            try:
                response = super().send(request, *args, **kwargs)
            except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as err:
                message = unreachable(endpoint, err, time.monotonic() - started)
                raise requests.exceptions.ConnectionError(message) from None
            self.answered = True
            return response

    # connect=2: a refused or reset connection is tried three times (0 s, then 1 s apart with the
    # default backoff); reads are not retried here (a write might have landed).
    backoff = budget().refused_backoff_s
    adapter = _FirstCallAdapter(
        max_retries=Retry(total=2, connect=2, read=0, backoff_factor=backoff)
    )
    chosen = session if session is not None else requests.Session()
    chosen.mount("http://", adapter)
    chosen.mount("https://", adapter)
    return chosen
