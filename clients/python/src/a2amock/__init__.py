"""a2amock for Python: start or reach an a2amock server, create agents per
test, read the journal and assert over it with the Go testkit's assertions.

    def test_client(a2amock):
        a2amock.add_agent("worker", behaviors=["never-terminal"])
        run_my_client(a2amock.card_url("worker"))
        a2amock.assert_no_orphans()

A recording made with ``a2amock record`` is replayed by ``start_replay``
(its own ``a2amock replay`` process, with the same journal and assertions):

    with a2amock.start_replay("incident.json", splice="2:drop") as replay:
        run_my_client(replay.card_url)
        replay.assert_no_orphans()

The pytest plugin (entry point ``a2amock``) provides the fixtures
``a2amock_server`` (session), ``a2amock`` (per test) and ``a2amock_replay``
(a factory of replays ended with the test).
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
from .assertions_client import (
    assert_card_refetched_on_change,
    assert_card_signature_checked,
    assert_continuation_carries_task_id,
    assert_fell_back_to_polling,
    assert_no_page_token_loop,
    assert_no_request_after_bad_card_signature,
    assert_retry_reused_message_id,
    assert_sent_version_header,
    pushed_states,
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
from .journal import ActedBehavior, Entry, NotActedBehavior, SkippedBehavior
from .asserting import JournalAssertions
from .mock import Agent, Mock
from .replay import Replay, start_replay
from .server import Server, find_binary

__all__ = [
    "A2amockError", "ActedBehavior", "Agent", "BinaryNotFoundError", "ConflictError", "ControlAPIError", "Entry",
    "InvalidRequestError", "JournalAssertions", "Mock", "NotActedBehavior", "NotFoundError", "Replay", "Server",
    "ServerStartError", "SkippedBehavior",
    "assert_canceled", "assert_card_refetched_on_change", "assert_card_signature_checked",
    "assert_continuation_carries_task_id", "assert_fell_back_to_polling", "assert_no_continuation_to",
    "assert_no_ignored_fields", "assert_no_orphans", "assert_no_page_token_loop",
    "assert_no_request_after_bad_card_signature", "assert_polled_at_most", "assert_retry_reused_message_id",
    "assert_sent_version_header", "assert_stopped_polling_within", "assert_used_declared_interface", "find_binary",
    "pushed_states", "start_replay",
]
