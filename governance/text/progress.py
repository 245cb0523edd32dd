"""Progress on long work: a spinner on stderr naming the current stack or step, on a terminal.

`plan`, `check`, `spend`, `report` and `cap status` can take 5-30 s with nothing to show until
the end. Inside `shown(...)`, a spinner with the current step (`step("planning dev (1/3)")`)
appears on stderr once the work has taken `DELAY_S`, and disappears when it ends, leaving
nothing behind. Never in a pipe or a file, never in CI (the `CI` variable every CI service
sets), never with `--quiet` or `TERM=dumb`: there the output is exactly what it was.

The spinner is Rich's (`rich.live.Live`), imported only when it is about to show: a command
that ends within the delay never pays for the import. Lines the command writes on stderr while
it spins (warnings, `waiting for BigQuery`) are printed above it through Rich's console, so the
spinner never overwrites them; stdout is left alone (commands print their results after the
work, when the spinner is gone).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO, cast

from governance.text.terminal import SafeStream, visible

DELAY_S = 1.0
"""Work that ends sooner shows nothing. Read when a spinner starts (tests shorten it)."""
REFRESH_PER_SECOND = 8

_active: _Spinner | None = None


def step(text: str) -> None:
    """Name the step now running (shown if a spinner is on; otherwise nothing happens)."""
    if _active is not None:
        _active.update(text, "")


def detail(text: str) -> None:
    """Say what the current step is doing: `planning dev (1/3): running the Pulumi program`."""
    if _active is not None:
        _active.update(None, text)


def wanted(quiet: bool, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to show progress on `stream`: a terminal, not CI, not `--quiet`, not TERM=dumb."""
    env = os.environ if environ is None else environ
    if quiet or env.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    if env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # a closed or file-like stream
        return False


@contextmanager
def shown(text: str, *, quiet: bool = False, delay_s: float | None = None) -> Generator[None]:
    """Show a spinner naming `text` (then each `step`) while the block runs, where `wanted`.

    It appears after `delay_s`, by default `DELAY_S`.
    """
    global _active
    stream = sys.stderr
    if _active is not None or not wanted(quiet, stream):
        yield  # not on a terminal, or already spinning (a command inside another's work)
        return
    spinner = _Spinner(text, _terminal(stream), DELAY_S if delay_s is None else delay_s)
    above = _AboveSpinner(stream, spinner)
    _active = spinner
    sys.stderr = cast(TextIO, above)
    spinner.start()
    try:
        yield
    finally:
        spinner.stop()
        sys.stderr = stream
        _active = None
        above.flush()  # a last line without its newline


def _terminal(stream: TextIO) -> TextIO:
    """The terminal itself under the CLI's SafeStream: Rich writes control sequences."""
    while isinstance(stream, SafeStream):
        stream = stream.inner
    return stream


class _Spinner:
    """Rich's live spinner, started by a timer after the delay, stopped (and erased) at the end."""

    def __init__(self, text: str, terminal: TextIO, delay_s: float) -> None:
        self._text = text
        self._detail = ""
        self._terminal = terminal
        self._lock = threading.Lock()
        self._stopped = False
        self.live: Any = None
        self._spinner: Any = None
        self._timer = threading.Timer(delay_s, self._show)
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def update(self, text: str | None, detail: str) -> None:
        with self._lock:
            self._text = text if text is not None else self._text
            self._detail = detail
            if self._spinner is not None:
                self._spinner.update(text=self._renderable(self._shown))

    @property
    def _shown(self) -> str:
        return f"{self._text}: {self._detail}" if self._detail else self._text

    @staticmethod
    def _renderable(text: str) -> Any:
        from rich.text import Text

        # Text, not markup: a stack name with [brackets] is shown as it is.
        return Text(visible(text), no_wrap=True, overflow="ellipsis")

    def _show(self) -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        with self._lock:
            if self._stopped:
                return
            console = Console(file=self._terminal, stderr=True, highlight=False)
            self._spinner = Spinner("dots", text=self._renderable(self._shown), style="cyan")
            # Neither stream is redirected: stdout may be a file the command writes its result
            # to, and stderr lines come through _AboveSpinner.
            self.live = Live(
                self._spinner,
                console=console,
                transient=True,
                refresh_per_second=REFRESH_PER_SECOND,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self.live.start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._timer.cancel()
            live, self.live = self.live, None
            if live is not None:
                live.stop()

    def print_above(self, line: str) -> bool:
        """Print a stderr line above the spinner; False when it is not showing."""
        with self._lock:
            if self.live is None:
                return False
            from rich.text import Text

            self.live.console.print(
                Text(visible(line)), markup=False, highlight=False, soft_wrap=True
            )
            return True


class _AboveSpinner:
    """stderr while a spinner may show: whole lines go above it, so it never overwrites them."""

    def __init__(self, inner: TextIO, spinner: _Spinner) -> None:
        self._inner = inner
        self._spinner = spinner
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if not self._spinner.print_above(line):
                self._inner.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending and self._spinner.live is None:
            self._inner.write(self._pending)
            self._pending = ""
        self._inner.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)
