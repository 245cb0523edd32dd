"""Headless Chromium over the DevTools protocol: open a page with the network closed, look at it.

Chromium is Debian's package (`chromium`; .ci/run installs it), or any Chrome named by
MLGOV_CHROMIUM or found on PATH (GitHub's runners have google-chrome). It starts with a fresh
profile and no background networking; the protocol runs over the WebSocket Chromium opens on a
port of its choosing on 127.0.0.1 (DevToolsActivePort). `Page` records every network request
the page makes, every script exception and console error, so a test can say "nothing was
fetched" and "nothing failed" as well as read the DOM and take screenshots of parts of it.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import websocket
from PIL import Image

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",  # root in CI containers
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-port=0",
    "--window-size=1280,1000",
)


def find_chromium() -> str | None:
    """The browser to use: $MLGOV_CHROMIUM, else the first candidate on PATH."""
    if configured := os.environ.get("MLGOV_CHROMIUM"):
        return configured
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


@dataclass
class Page:
    """One tab, driven over its DevTools WebSocket."""

    ws: Any
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _next: int = 0

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params") or {}
        if method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params["exceptionDetails"])[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(json.dumps(params.get("args"))[:500])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        self.ws.send(json.dumps({"id": self._next, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self._next:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result") or {}
            self._event(message)

    def wait_for(self, event: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            self._event(message)
            if message.get("method") == event:
                return
        raise TimeoutError(event)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def until(self, expression: str, timeout: float = 30.0) -> Any:
        """Evaluate until the value is truthy (plotly draws after the load event)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if value := self.evaluate(expression):
                return value
            time.sleep(0.2)
        raise TimeoutError(expression)

    def screenshot(self, clip: dict[str, float] | None = None) -> Image.Image:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        data = self.call("Page.captureScreenshot", **params)["data"]
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")


def _devtools_port(profile: Path, process: subprocess.Popen[bytes], timeout: float) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.is_file() and (lines := marker.read_text().splitlines()):
            return int(lines[0])
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode}")
        time.sleep(0.1)
    raise TimeoutError("chromium did not open its DevTools port")


@contextmanager
def open_page(url: str, binary: str, timeout: float = 60.0) -> Iterator[Page]:
    """Start Chromium on a fresh profile, open `url`, yield the page once it has loaded."""
    # Chromium's helper processes (crashpad, zygote) can still write to the profile for a moment
    # after the browser exits: the whole process group is stopped, and a file that appears during
    # the clean-up does not fail the test (found when a CI run hit "Directory not empty").
    with tempfile.TemporaryDirectory(
        prefix="mlgov-chromium-", ignore_cleanup_errors=True
    ) as profile:
        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            port = _devtools_port(Path(profile), process, timeout)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                targets = json.load(r)
            target = next(t for t in targets if t["type"] == "page")
            ws = websocket.create_connection(
                target["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True
            )
            try:
                page = Page(ws)
                for domain in ("Page", "Runtime", "Network", "Log"):
                    page.call(f"{domain}.enable")
                page.call("Page.navigate", url=url)
                page.wait_for("Page.loadEventFired", timeout)
                yield page
            finally:
                ws.close()
        finally:
            _stop_group(process)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop Chromium and every helper it started (its own session, so its own group)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, None)):
        with suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    # Helpers may outlive the browser by a moment; give them that moment, then end them.
    time.sleep(0.2)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def blank(image: Image.Image) -> bool:
    """Whether a screenshot shows (almost) nothing: one colour, or under 1% of pixels inked."""
    small = image.resize((max(1, image.width // 2), max(1, image.height // 2)))
    pixels = cast(list[tuple[int, int, int]], list(small.get_flattened_data()))
    counts = Counter(pixels)
    background = counts.most_common(1)[0][0]
    inked = sum(
        1 for p in pixels if sum(abs(a - b) for a, b in zip(p, background, strict=True)) > 60
    )
    return len(counts) < 8 or inked < 0.01 * len(pixels)
