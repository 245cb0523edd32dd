# pyright: basic
"""Google's OAuth token endpoint, refusing: what an expired or revoked login meets.

google-auth trades credentials for an access token before any API call. A service-account key
whose `token_uri` points here makes that exchange real (google-auth, requests) while the answer
is the one Google gives a refused grant (HTTP 400, `invalid_grant`). `service_account_key`
writes such a key (a fresh RSA key; nothing secret).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

REFUSAL = {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}


class _Refuses(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps(REFUSAL).encode()
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def refusing_token_endpoint() -> Iterator[str]:
    """The URL of a token endpoint on 127.0.0.1 that refuses every grant."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    # A short poll interval: shutdown() waits for the loop to notice, 0.5 s by default.
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/token"
    finally:
        server.shutdown()
        server.server_close()


def service_account_key(folder: Path, token_uri: str, project: str = "acme-ml-prod") -> Path:
    """A service-account key file whose token exchange goes to `token_uri`."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    path = folder / "key.json"
    path.write_text(json.dumps({
        "type": "service_account", "project_id": project, "private_key_id": "1",
        "private_key": pem, "client_email": f"ops@{project}.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": token_uri,
    }))  # fmt: skip
    return path
