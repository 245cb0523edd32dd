# pyright: basic
"""Start and stop the BigQuery emulator (bqemulator, DuckDB-backed) on 127.0.0.1, and load it.

The emulator lives in its own venv, `.bqemu-venv` (`make bqemulator` builds it from
governance/fakecloud/bqemulator.txt): it needs protobuf 6, and the project pins protobuf 5 for
pulumi-policy. At start it runs DuckDB's `INSTALL spatial`, which would download the extension;
the venv's `duckdb-extension-spatial` package ships the file, so it is copied into
`$HOME/.duckdb/extensions/v1.5.5/linux_amd64/` of a temporary HOME given to the emulator only
(the emulator runs `INSTALL spatial`, which would download it otherwise).

Tables are loaded with a real load job from a local newline-delimited JSON file (the client's
`load_table_from_file`), as one would load a BigQuery table from a file, not by streaming.
The emulator puts every row in today's ingestion-time partition, whatever its export_time.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".bqemu-venv"
BINARY = VENV / "bin" / "bqemulator"
DUCKDB_VERSION = "v1.5.5"
START_TIMEOUT_S = 90.0


class EmulatorMissing(RuntimeError):
    """The emulator venv is not built."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spatial_extension() -> Path:
    found = sorted(
        VENV.glob(
            f"lib/python*/site-packages/duckdb_extension_spatial/extensions/{DUCKDB_VERSION}/spatial.duckdb_extension"
        )
    )
    if not found:
        raise EmulatorMissing(f"no spatial extension in {VENV}; run `make bqemulator`")
    return found[0]


class Emulator:
    """One bqemulator process; `url` is its REST endpoint."""

    def __init__(self, project: str) -> None:
        if not BINARY.exists():
            raise EmulatorMissing(f"{BINARY} is missing; run `make bqemulator` (make test does)")
        self.project = project
        self.home = Path(tempfile.mkdtemp(prefix="bqemu-home-"))
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.home / "bqemulator.log"

    def start(self) -> Emulator:
        ext_dir = self.home / ".duckdb" / "extensions" / DUCKDB_VERSION / "linux_amd64"
        ext_dir.mkdir(parents=True)
        shutil.copy(_spatial_extension(), ext_dir)
        # TMPDIR too: the emulator keeps uploads in $TMPDIR/bqemu_uploads and never removes it.
        env = {**os.environ, "HOME": str(self.home), "TMPDIR": str(self.home)}
        command = [
            str(BINARY),
            "start",
            "--rest-port",
            str(self.port),
            "--grpc-port",
            str(_free_port()),
            "--project",
            self.project,
            "--log-level",
            "warning",
        ]
        with self.log.open("wb") as log:
            # cwd: DuckDB spills to ./.tmp when memory runs short; keep that out of the repo.
            self.process = subprocess.Popen(
                command, cwd=self.home, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bqemulator exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                urllib.request.urlopen(
                    f"{self.url}/bigquery/v2/projects/{self.project}/datasets", timeout=2
                ).close()
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"bqemulator did not answer within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.home, ignore_errors=True)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def client(self, project: str | None = None) -> Any:
        """A real google-cloud-bigquery client on the emulator, anonymous."""
        from governance.spend.runner import make_client

        return make_client(project or self.project, self.url)


def schema_fields(raw: Sequence[Mapping[str, Any]]) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from google.cloud import bigquery
    return [bigquery.SchemaField.from_api_repr(dict(f)) for f in raw]


def write_ndjson(rows: Iterable[Mapping[str, Any]], path: Path) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for r in rows:
            out.write(json.dumps(r, separators=(",", ":")))
            out.write("\n")
            count += 1
    return count


def create_export_table(client: Any, table_id: str, schema: Sequence[Mapping[str, Any]]) -> Any:
    """A table partitioned by day on ingestion time, as the billing export's tables are."""
    from google.cloud import bigquery

    project, dataset, _ = table_id.split(".")
    client.create_dataset(f"{project}.{dataset}", exists_ok=True)
    table = bigquery.Table(table_id, schema=schema_fields(schema))
    table.time_partitioning = bigquery.TimePartitioning(type_=bigquery.TimePartitioningType.DAY)
    client.delete_table(table_id, not_found_ok=True)
    return client.create_table(table)


def load_file(client: Any, table_id: str, schema: Sequence[Mapping[str, Any]], path: Path) -> int:
    """Load newline-delimited JSON with a load job; returns the table's row count."""
    from google.cloud import bigquery

    config = bigquery.LoadJobConfig(
        source_format=bigquery.SourceFormat.NEWLINE_DELIMITED_JSON, schema=schema_fields(schema)
    )
    with path.open("rb") as data:
        client.load_table_from_file(data, table_id, job_config=config).result(timeout=3600)
    return int(client.get_table(table_id).num_rows)


def load_rows(
    client: Any,
    table_id: str,
    schema: Sequence[Mapping[str, Any]],
    rows: Iterable[Mapping[str, Any]],
) -> int:
    """Create the table and load `rows` into it from a temporary file."""
    create_export_table(client, table_id, schema)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.json"
        if write_ndjson(rows, path) == 0:
            return 0  # an empty upload is an error; the table just stays empty
        return load_file(client, table_id, schema, path)


@contextlib.contextmanager
def running(project: str) -> Iterator[Emulator]:
    emulator = Emulator(project).start()
    try:
        yield emulator
    finally:
        emulator.stop()
