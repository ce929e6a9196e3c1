"""The pytest plugin: fixtures ``a2amock_server`` (one server for the
session: the binary started once, or the server at A2AMOCK_URL) and
``a2amock`` (a fresh set of agents on it for each test, removed after)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .errors import BinaryNotFoundError, ServerStartError
from .mock import Mock
from .server import Server


@pytest.fixture(scope="session")
def a2amock_server() -> Iterator[Server]:
    """The session's a2amock server: A2AMOCK_URL when set, else the binary
    from A2AMOCK_BIN or PATH, started on a free loopback port and stopped at
    the end of the session."""
    try:
        server = Server.from_env()
    except (BinaryNotFoundError, ServerStartError) as e:
        pytest.fail(str(e), pytrace=False)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def a2amock(a2amock_server: Server) -> Iterator[Mock]:
    """A fresh set of agents for the test (a default one named ``agent``),
    isolated from every other test's, removed when the test ends."""
    mock = Mock(a2amock_server)
    try:
        yield mock
    finally:
        mock.close()
