"""The fake server tells which replies a client gave up on (FakeGcp.abandoned), without timing.

tests/functions/test_faults.py relies on it to tell a client that timed out on the reply a SLOW
fault held from one that timed out on another, merely late, reply of a loaded machine.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator

import pytest
import requests

from governance.fakecloud.server import SLOW, FakeGcp, Reply, Request


@pytest.fixture
def fake() -> Iterator[FakeGcp]:
    with FakeGcp() as server:
        server.route("GET", r"/ok", lambda request, match: Reply(200, {"ok": True}))
        yield server


def test_replies_the_client_read_are_not_abandoned(fake: FakeGcp) -> None:
    with requests.Session() as session:
        for _ in range(3):  # one kept-alive connection
            assert session.get(f"{fake.url}/ok", timeout=5).json() == {"ok": True}
    fake.settle()  # the session closed its connection: an end of file, nothing unread
    assert len(fake.requests) == 3
    assert fake.abandoned == []


def test_a_slow_reply_is_held_until_the_client_gives_up(fake: FakeGcp) -> None:
    fake.inject(r"/ok", SLOW, seconds=10)
    with requests.Session() as session, pytest.raises(requests.exceptions.ReadTimeout):
        session.get(f"{fake.url}/ok", timeout=0.05)
    fake.settle()
    [held] = fake.held
    assert fake.abandoned == [held]


def test_a_slow_reply_reaches_a_client_that_set_no_timeout(fake: FakeGcp) -> None:
    fake.slow_hold_s = 0.05
    fake.inject(r"/ok", SLOW, seconds=10)
    with requests.Session() as session:
        assert session.get(f"{fake.url}/ok").json() == {"ok": True}
    fake.settle()
    assert len(fake.held) == 1
    assert fake.abandoned == []


def test_a_late_reply_the_client_timed_out_on_is_abandoned(fake: FakeGcp) -> None:
    # Not a fault: the handler is merely late (held here until the client has given up).
    gave_up = threading.Event()

    def late(request: Request, match: object) -> Reply:
        gave_up.wait(10)
        return Reply(200, {"late": True})

    fake.route("GET", r"/late", late)
    with requests.Session() as session:
        with pytest.raises(requests.exceptions.ReadTimeout):
            session.get(f"{fake.url}/late", timeout=0.05)
        gave_up.set()
        assert session.get(f"{fake.url}/ok", timeout=5).json() == {"ok": True}
    fake.settle()
    assert [r.path for r in fake.abandoned] == ["/late"]
    assert fake.held == []


def test_a_connection_reset_with_the_reply_unread_is_abandoned(fake: FakeGcp) -> None:
    host, port = fake.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as client:
        client.sendall(b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        assert select.select([client], [], [], 10)[0]  # the reply arrived, and stays unread
        fake.settle()
        assert fake.abandoned == []  # still open: the client may yet read it
    fake.settle()  # closed with unread data: the kernel resets the connection
    assert [r.path for r in fake.abandoned] == ["/ok"]
