"""a2amock for Python: start or reach an a2amock server, create agents per
test, read the journal and assert over it with the Go testkit's assertions.

    def test_client(a2amock):
        a2amock.add_agent("worker", behaviors=["never-terminal"])
        run_my_client(a2amock.card_url("worker"))
        a2amock.assert_no_orphans()

The pytest plugin (entry point ``a2amock``) provides the fixtures
``a2amock_server`` (session) and ``a2amock`` (per test).
"""

from .assertions import (
    assert_canceled,
    assert_no_continuation_to,
    assert_no_ignored_fields,
    assert_no_orphans,
    assert_polled_at_most,
    assert_stopped_polling_within,
    assert_used_declared_interface,
)
from .errors import (
    A2amockError,
    BinaryNotFoundError,
    ConflictError,
    ControlAPIError,
    InvalidRequestError,
    NotFoundError,
    ServerStartError,
)
from .journal import ActedBehavior, Entry, SkippedBehavior
from .mock import Agent, Mock
from .server import Server, find_binary

__all__ = [
    "A2amockError", "ActedBehavior", "Agent", "BinaryNotFoundError", "ConflictError", "ControlAPIError", "Entry",
    "InvalidRequestError", "Mock", "NotFoundError", "Server", "ServerStartError", "SkippedBehavior",
    "assert_canceled", "assert_no_continuation_to", "assert_no_ignored_fields", "assert_no_orphans", "assert_polled_at_most",
    "assert_stopped_polling_within", "assert_used_declared_interface", "find_binary",
]
