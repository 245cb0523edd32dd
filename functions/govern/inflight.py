"""The work items this process is running now, by key: a duplicate never runs beside its twin.

Pub/Sub delivers at least once, and a message whose ack deadline passes is delivered again while
the first delivery may still run, possibly to the same instance (the worker serves several
requests at once). Two deliveries of one item running side by side would both see a VM running
and both stop it. So a delivery whose key is already running here is not run: it is answered
non-2xx, and Pub/Sub brings it back later, when live state decides (stopped by its twin: nothing
to do; its twin failed: it does the work). Across instances nothing is shared; there the actions
themselves are idempotent on live state. Standard library only.
"""

from __future__ import annotations

import threading


class InFlight:
    """A thread-safe set of the keys being worked on."""

    def __init__(self) -> None:
        self._keys: set[str] = set()
        self._lock = threading.Lock()

    def claim(self, key: str) -> bool:
        """Mark `key` running; False if it already was (a concurrent duplicate)."""
        with self._lock:
            if key in self._keys:
                return False
            self._keys.add(key)
            return True

    def release(self, key: str) -> None:
        """The delivery of `key` is over (whatever its outcome)."""
        with self._lock:
            self._keys.discard(key)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._keys
