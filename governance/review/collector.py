"""Fewer garbage collections while mlgov builds large, long-lived structures.

Running a Pulumi program under mocks imports pulumi_gcp's modules and registers every resource,
and a plan document or the price catalog adds more: hundreds of thousands of objects that live
to the end. Python's default young-generation threshold (700 allocations) then sets off
collections that find next to nothing, and full collections that walk everything: measured in
bench/RESULTS.md ("plan"), e.g. prod plan 4.25 s -> 3.56 s at the same peak RSS (217 MB), `check`
of 10,000 resources 1.44 s -> 1.34 s. (gc.freeze() helped as much, but moved the collection of
the garbage the program leaves, such as the event loops pulumi's mock threads never close, into
whatever ran next.)

At the end of a process the same objects cost once more: the interpreter's last collections walk
every object still alive, ~1.2 s after a plan (bench/RESULTS.md, "the PR check"), to free memory
the operating system reclaims anyway. `no_final_collections` moves them out of the collector's
reach just before exit.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from contextlib import contextmanager

LARGE_THRESHOLD = 100_000
"""Allocations between young-generation collections while the block runs (Python's: 700)."""


@contextmanager
def fewer_collections() -> Generator[None]:
    """Raise the young-generation threshold for the block; restore the caller's after."""
    thresholds = gc.get_threshold()
    gc.set_threshold(LARGE_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def no_final_collections() -> None:
    """Spare the interpreter's collections at exit the objects alive now (call just before exit).

    `gc.freeze()` moves every tracked object to the permanent generation, which no collection
    walks; exit still runs atexit handlers and clears modules (files close, buffers flush).
    Only cyclic garbage among those objects is left uncollected, for the OS to reclaim with the
    process. Not for code that goes on running: that is what the note above is about.
    """
    gc.freeze()
