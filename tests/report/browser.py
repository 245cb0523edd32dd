"""Headless Chromium over the DevTools protocol: open a page with the network closed, look at it.

Chromium is Debian's package (`chromium`; .ci/run installs it), or any Chrome named by
MLGOV_CHROMIUM or found on PATH (GitHub's runners have google-chrome). One `Browser` starts on a
fresh profile with no background networking and opens each page in a browser context of its own
(as fresh as a new profile); the protocol runs over the WebSockets Chromium opens on a port of
its choosing on 127.0.0.1 (DevToolsActivePort). `Page` records every network request
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
        # PNG, lossless: the same pixels at zlib's fast setting (larger data, less time to encode).
        params: dict[str, Any] = {
            "format": "png",
            "captureBeyondViewport": True,
            "optimizeForSpeed": True,
        }
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        data = self.call("Page.captureScreenshot", **params)["data"]
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")


def _connect(url: str, timeout: float) -> Any:
    """A WebSocket to Chromium's DevTools.

    Without websocket-client's own UTF-8 check of each text frame: it is a Python loop over every
    byte (seconds for a test's screenshots, which arrive as base64 text of hundreds of KB), and
    every message is decoded as UTF-8 and parsed as JSON all the same, which a bad byte fails.
    """
    return websocket.create_connection(
        url, timeout=timeout, suppress_origin=True, skip_utf8_validation=True
    )


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


class Browser:
    """One headless Chromium; each page opens in a browser context of its own.

    A browser context is Chromium's isolated profile (what an incognito window uses): cookies,
    cache, storage and service workers are its own and are thrown away with it, so every page
    starts as fresh as in a new profile, without the seconds a new browser process costs.
    """

    def __init__(self, binary: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        # Chromium's helper processes (crashpad, zygote) can still write to the profile for a
        # moment after the browser exits: the whole process group is stopped, and a file that
        # appears during the clean-up does not fail the test (a CI run hit "Directory not empty").
        self._profile = tempfile.TemporaryDirectory(
            prefix="mlgov-chromium-", ignore_cleanup_errors=True
        )
        self._process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            self.port = _devtools_port(Path(self._profile.name), self._process, timeout)
            version = f"http://127.0.0.1:{self.port}/json/version"
            with urllib.request.urlopen(version, timeout=10) as r:
                url = json.load(r)["webSocketDebuggerUrl"]
            self._browser = Page(_connect(url, timeout))
        except BaseException:
            self.close()
            raise

    @contextmanager
    def page(self, url: str) -> Iterator[Page]:
        """Open `url` in a new context and tab; yield the page once it has loaded."""
        context = self._browser.call("Target.createBrowserContext")["browserContextId"]
        try:
            target = self._browser.call(
                "Target.createTarget", url="about:blank", browserContextId=context
            )["targetId"]
            ws = _connect(f"ws://127.0.0.1:{self.port}/devtools/page/{target}", self.timeout)
            try:
                page = Page(ws)
                for domain in ("Page", "Runtime", "Network", "Log"):
                    page.call(f"{domain}.enable")
                page.call("Page.navigate", url=url)
                page.wait_for("Page.loadEventFired", self.timeout)
                yield page
            finally:
                ws.close()
        finally:
            # Closes the context's tabs with it.
            self._browser.call("Target.disposeBrowserContext", browserContextId=context)

    def close(self) -> None:
        with suppress(AttributeError):
            self._browser.ws.close()
        _stop_group(self._process)
        self._profile.cleanup()


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
    # Pillow counts the colours (a full page has about a million pixels: counted in Python, they
    # took seconds per screenshot); the rest looks at each distinct colour once.
    colours = cast(
        list[tuple[int, tuple[int, int, int]]], small.getcolors(small.width * small.height)
    )
    background = max(colours, key=lambda counted: counted[0])[1]
    inked = sum(
        count
        for count, colour in colours
        if sum(abs(a - b) for a, b in zip(colour, background, strict=True)) > 60
    )
    return len(colours) < 8 or inked < 0.01 * small.width * small.height
