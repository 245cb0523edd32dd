"""The BigQuery adapter: run `spend`'s queries with a byte cap, translate errors into sentences.

The only module that touches google-cloud-bigquery, imported lazily (it costs about a second),
so importing `governance.spend` stays cheap. Every query is dry-run first: the estimate is
compared with the cap before anything is billed, and the real run carries the same cap as
`maximum_bytes_billed`, so BigQuery itself refuses a query that would bill more. The runner
decides nothing about spend; it answers rows and records what each query cost (`stats`).

Errors name what to fix: a missing dataset or table, the permission that was refused
(`bigquery.tables.get`, `bigquery.tables.getData`, `bigquery.jobs.create`) and the role that
grants it, or the cap. With `MLGOV_API_ENDPOINTS={"bigquery": URL}` the client talks to that
endpoint (an emulator) with anonymous credentials (docs/architecture.md#function-environment).

The first call (`describe`, whose answers are kept) has governance/deadlines.py's short budget:
a wrong endpoint or no network fails in seconds with the endpoint named, not after --timeout;
the queries after it keep --timeout, and a query that takes a while says so on stderr.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from governance.deadlines import (
    Endpoint,
    budget,
    credentials_refused,
    first_call_retry,
    no_answer,
    unreachable,
    waiting,
)
from governance.endpoints import ENDPOINTS_ENV, EndpointError, api_endpoint
from governance.spend.errors import EXIT_BIGQUERY_FAILED, EXIT_UNANSWERED, SpendError
from governance.spend.queries import Param, Query
from governance.spend.tables import TableId

DEFAULT_MAX_BYTES = 100 * 10**9  # 100 GB: about $0.60 a query at on-demand prices
TIMEOUT_S = 300.0  # per call, retries of transient errors included (the client's default: 600)

# The client library is only partly typed; its objects are handled as Any here.
Client = Any


@dataclass(frozen=True)
class TableInfo:
    """What `tables.get` says about an export table (nothing is billed for it)."""

    table: TableId
    exists: bool
    dataset_exists: bool = True
    num_rows: int | None = None
    partitioned: bool = False


@dataclass(frozen=True)
class QueryStats:
    """What one query cost: the dry-run estimate, what BigQuery reported, the wall time."""

    name: str
    table: str
    estimated_bytes: int | None
    processed_bytes: int | None
    maximum_bytes_billed: int
    seconds: float
    rows: int
    job_id: str | None

    def as_dict(self) -> dict[str, Any]:
        """The `queries` entry of the `--json` report."""
        return {
            "name": self.name,
            "table": self.table,
            "estimated_bytes": self.estimated_bytes,
            "processed_bytes": self.processed_bytes,
            "maximum_bytes_billed": self.maximum_bytes_billed,
            "seconds": round(self.seconds, 3),
            "rows": self.rows,
            "job_id": self.job_id,
        }


class QueryRunner(Protocol):
    """What report.py needs from BigQuery (tests and notebooks may bring their own)."""

    stats: list[QueryStats]

    def describe(self, table: TableId) -> TableInfo:
        """Whether the table (and its dataset) exists, and its size."""
        ...

    def run(self, query: Query) -> list[dict[str, Any]]:
        """The rows of a query, each as a dict by column name."""
        ...


# --------------------------------------------------------------------------- endpoint & client
def endpoint_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The `bigquery` URL of `MLGOV_API_ENDPOINTS`, or None (the real Google endpoint)."""
    try:
        return api_endpoint("bigquery", environ)
    except EndpointError as err:
        raise SpendError(str(err)) from None


def make_client(project: str, endpoint: str | None = None) -> Client:
    """A BigQuery client that runs jobs in `project`; anonymous when `endpoint` is given."""
    with warnings.catch_warnings():
        # The Google libraries warn on every start about Python 3.11's end of life (2027).
        warnings.simplefilter("ignore", FutureWarning)
        from google.api_core.client_options import ClientOptions
        from google.auth.exceptions import DefaultCredentialsError
        from google.cloud import bigquery

    if endpoint is not None:
        from google.auth.credentials import AnonymousCredentials

        return bigquery.Client(
            project=project,
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            client_options=ClientOptions(api_endpoint=endpoint),
        )
    try:
        return bigquery.Client(project=project)
    except DefaultCredentialsError:
        raise SpendError(
            "no Google credentials: run `gcloud auth application-default login` "
            "(or set GOOGLE_APPLICATION_CREDENTIALS)"
        ) from None


# --------------------------------------------------------------------------- errors
def _reasons(err: Exception) -> set[str]:
    errors = cast(list[Any], getattr(err, "errors", None) or [])
    return {str(cast(dict[str, Any], e).get("reason", "")) for e in errors if isinstance(e, dict)}


def over_cap(name: str, estimated: int | None, cap: int) -> SpendError | None:
    """The error for a dry-run estimate above the cap, or None when it fits."""
    if estimated is None or estimated <= cap:
        return None
    return SpendError(
        f"{name} query would process {estimated / 1e9:.1f} GB, above the "
        f"{cap / 1e9:g} GB cap (--max-gb); shorten --days or raise --max-gb"
    )


def explain(err: Exception, query: Query | None, table: TableId, job_project: str) -> SpendError:
    """A one-line SpendError for a google.api_core exception, naming table and permission."""
    from google.api_core import exceptions as gexc

    what = f"{query.name} query" if query is not None else f"reading {table}"
    message = str(getattr(err, "message", "") or err)
    if isinstance(err, gexc.Forbidden):
        if "bigquery.jobs.create" in message:
            return SpendError(
                f"{what}: no permission to run queries in project {job_project}: needs "
                "bigquery.jobs.create (role BigQuery Job User); or run jobs elsewhere "
                "with --job-project"
            )
        permission = "bigquery.tables.getData" if query is not None else "bigquery.tables.get"
        return SpendError(
            f"{what}: access denied to {table}: needs {permission} on dataset "
            f"{table.dataset_id} (role BigQuery Data Viewer)"
        )
    if "bytesBilledLimitExceeded" in _reasons(err) or "bytes billed" in message:
        return SpendError(
            f"{what}: BigQuery refused to bill more than the --max-gb cap ({message}); "
            "shorten --days or raise --max-gb"
        )
    if isinstance(err, gexc.NotFound):
        return SpendError(f"{what}: not found: {message} (export table {table})")
    if isinstance(err, gexc.BadRequest):
        return SpendError(f"{what}: BigQuery answered: {message}", EXIT_UNANSWERED)
    return SpendError(
        f"{what}: BigQuery failed on its side: {message}; a retry may help", EXIT_BIGQUERY_FAILED
    )


# --------------------------------------------------------------------------- the runner
def _parameters(params: tuple[Param, ...]) -> list[Any]:
    from google.cloud import bigquery

    out: list[Any] = []
    for p in params:
        if isinstance(p.value, tuple):
            out.append(bigquery.ArrayQueryParameter(p.name, p.type, list(p.value)))
        else:
            out.append(bigquery.ScalarQueryParameter(p.name, p.type, p.value))
    return out


@dataclass
class BigQueryRunner:
    """Runs `Query`s on a google-cloud-bigquery client, each capped at `max_bytes`."""

    client: Client
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_s: float = TIMEOUT_S
    stats: list[QueryStats] = field(default_factory=list[QueryStats])
    endpoint: str | None = None
    """The MLGOV_API_ENDPOINTS URL the client uses (None: Google's), named when it is silent."""
    _described: dict[str, TableInfo] = field(default_factory=dict[str, TableInfo])

    @property
    def job_project(self) -> str:
        """The project query jobs run (and are billed) in."""
        return str(self.client.project)

    def describe(self, table: TableId) -> TableInfo:
        """`tables.get` (free): exists, row count, partitioning; SpendError on no access.

        Answers are kept: the CLI asks for the standard table first, to fail fast, and the
        report asks again. The first call of a runner has deadlines.py's short budget.
        """
        if (known := self._described.get(str(table))) is None:
            known = self._described[str(table)] = self._describe(table)
        return known

    def _describe(self, table: TableId) -> TableInfo:
        from google.api_core import exceptions as gexc

        first = not self._described
        where = Endpoint("bigquery", self.endpoint)
        # The first call: deadlines.py's budget, or --timeout where that is shorter.
        attempt = min(budget().attempt_s, self.timeout_s) if first else self.timeout_s
        what, limit = (
            (where.where, budget().first_call_s) if first else (f"table {table}", self.timeout_s)
        )
        with waiting(what, min(limit, self.timeout_s + attempt)) as wait:
            retry = first_call_retry(wait.saw, self.timeout_s) if first else self._retry()
            try:
                got = self.client.get_table(str(table), retry=retry, timeout=attempt)
            except gexc.NotFound:
                return TableInfo(table, exists=False, dataset_exists=self._dataset_exists(table))
            except _failures() as err:
                if first and isinstance(err, no_answer()):
                    raise SpendError(
                        unreachable(where, err, wait.elapsed), EXIT_BIGQUERY_FAILED
                    ) from None
                raise self._explain(err, None, table) from None
        rows = got.num_rows
        return TableInfo(
            table,
            exists=True,
            num_rows=int(rows) if rows is not None else None,
            partitioned=got.time_partitioning is not None,
        )

    def _dataset_exists(self, table: TableId) -> bool:
        from google.api_core import exceptions as gexc

        try:
            self.client.get_dataset(table.dataset_id, retry=self._retry(), timeout=self.timeout_s)
        except gexc.NotFound:
            return False
        except _failures() as err:
            raise self._explain(err, None, table) from None
        return True

    def run(self, query: Query) -> list[dict[str, Any]]:
        """Dry-run, check the cap, run with `maximum_bytes_billed`; rows as dicts."""
        with waiting(f"BigQuery: the {query.name} query", self.timeout_s):
            return self._run(query)

    def _run(self, query: Query) -> list[dict[str, Any]]:
        from google.cloud import bigquery

        started = time.perf_counter()
        labels = {"mlgov-query": query.name}  # findable in INFORMATION_SCHEMA.JOBS
        params = _parameters(query.params)
        calls: dict[str, Any] = {"retry": self._retry(), "timeout": self.timeout_s}
        try:
            dry = self.client.query(
                query.sql,
                job_config=bigquery.QueryJobConfig(
                    dry_run=True, use_query_cache=False, query_parameters=params, labels=labels
                ),
                **calls,
            )
            estimated = _int(dry.total_bytes_processed)
            if (too_much := over_cap(query.name, estimated, self.max_bytes)) is not None:
                raise too_much
            job = self.client.query(
                query.sql,
                job_config=bigquery.QueryJobConfig(
                    maximum_bytes_billed=self.max_bytes, query_parameters=params, labels=labels
                ),
                job_retry=self._job_retry(),
                **calls,
            )
            result = job.result(job_retry=self._job_retry(), **calls)
            rows = [dict(row.items()) for row in result]
        except _failures() as err:
            raise self._explain(err, query, query.table) from None
        self.stats.append(
            QueryStats(
                name=query.name,
                table=str(query.table),
                estimated_bytes=estimated,
                processed_bytes=_int(job.total_bytes_processed),
                maximum_bytes_billed=self.max_bytes,
                seconds=time.perf_counter() - started,
                rows=len(rows),
                job_id=cast(str | None, job.job_id),
            )
        )
        return rows

    def _retry(self) -> Any:
        from google.cloud.bigquery.retry import DEFAULT_RETRY

        return DEFAULT_RETRY.with_timeout(self.timeout_s)

    def _job_retry(self) -> Any:
        from google.cloud.bigquery.retry import DEFAULT_JOB_RETRY

        return DEFAULT_JOB_RETRY.with_timeout(self.timeout_s)

    def _explain(self, err: Exception, query: Query | None, table: TableId) -> SpendError:
        from google.api_core.exceptions import GoogleAPICallError
        from google.auth.exceptions import RefreshError

        if isinstance(err, GoogleAPICallError):
            return explain(err, query, table, self.job_project)
        if isinstance(err, RefreshError):  # an expired or revoked login: no call was made
            return SpendError(credentials_refused(err), EXIT_BIGQUERY_FAILED)
        cause = err.__cause__ or err  # RetryError wraps the last transport error
        return SpendError(
            f"cannot reach BigQuery within {self.timeout_s:g} s (--timeout): {cause}; check "
            f"the network, or {ENDPOINTS_ENV}.bigquery",
            EXIT_BIGQUERY_FAILED,
        )


def _failures() -> tuple[type[Exception], ...]:
    """What a BigQuery call raises when it fails: API errors, retries given up, transport."""
    import requests
    from google.api_core import exceptions as gexc
    from google.auth import exceptions as auth

    # google-auth's errors come from the access-token exchange before the call (no network,
    # a refused login); they are no BigQuery answer but must not end in a traceback either.
    return (
        gexc.GoogleAPICallError,
        gexc.RetryError,
        requests.exceptions.RequestException,
        auth.RefreshError,
        auth.TransportError,
    )


def _int(value: object) -> int | None:
    return int(cast(int, value)) if value is not None else None
