"""The fake cloud's HTTP server starts, stops and fails to start cleanly."""

from __future__ import annotations

import socket
from http.server import BaseHTTPRequestHandler
from unittest import mock

import pytest

from governance.fakecloud.server import FakeGcp, _Server


def test_a_port_in_use_surfaces_the_bind_error_not_an_attribute_error() -> None:
    # TCPServer.__init__ calls server_close() when binding fails; the wake pair must exist by
    # then, or an AttributeError hides the real cause (the demo's Ctrl-C was reported as one).
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError, match="in use"):
            _Server(taken.getsockname(), BaseHTTPRequestHandler)


def test_ctrl_c_while_binding_surfaces_as_keyboard_interrupt() -> None:
    with (
        mock.patch.object(_Server, "server_bind", side_effect=KeyboardInterrupt),
        pytest.raises(KeyboardInterrupt),
    ):
        _Server(("127.0.0.1", 0), BaseHTTPRequestHandler)


def test_stop_closes_the_listening_socket() -> None:
    fake = FakeGcp().start()
    port = fake.url.rsplit(":", 1)[1]
    fake.stop()
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", int(port)))
