"""The Go testkit's assertions as methods of what serves a test's agents
(a Mock, a Replay), over the journal it reads."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from . import assertions, assertions_client
from .journal import Entry


class JournalAssertions:
    """The assertions of the assertions and assertions_client modules as
    methods: each reads the journal of one agent (``agent``; None: the
    default, or every agent of a Mock) through the subclass's
    ``_journal_for`` and raises AssertionError with the testkit's message
    when it fails."""

    def _journal_for(self, agent: str | None) -> list[Entry]:
        """The journal the assertions read for ``agent``."""
        raise NotImplementedError

    def _card_for(self, agent: str | None) -> dict[str, Any]:
        """The agent's card as a client reads it."""
        raise NotImplementedError

    def _server_name(self, agent: str | None) -> str:
        """The agent's name on the server (its journal entries' ``agent``)."""
        raise NotImplementedError

    def assert_no_orphans(self, agent: str | None = None) -> None:
        """Every task the client created ended terminal or was canceled by it."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_no_orphans(self._journal_for(agent))

    def assert_polled_at_most(self, task_id: str, n: int, agent: str | None = None) -> None:
        """The client sent at most n GetTask requests for the task."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_polled_at_most(self._journal_for(agent), task_id, n)

    def assert_stopped_polling_within(self, task_id: str, within: timedelta | float, agent: str | None = None) -> None:
        """The client's last GetTask came at most ``within`` after the task was created."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_stopped_polling_within(self._journal_for(agent), task_id, within)

    def assert_canceled(self, task_id: str, agent: str | None = None) -> None:
        """The client canceled the task (a CancelTask the agent acknowledged)."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_canceled(self._journal_for(agent), task_id)

    def assert_no_continuation_to(self, task_id: str, agent: str | None = None) -> None:
        """The client sent no message to the task after it was dead."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_no_continuation_to(self._journal_for(agent), task_id)

    def assert_no_ignored_fields(self, agent: str | None = None) -> None:
        """No send carried a field its dialect does not define, which the agent skipped unread."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_no_ignored_fields(self._journal_for(agent))

    def assert_used_declared_interface(self, agent: str | None = None, card: Mapping[str, Any] | None = None) -> None:
        """Every request to the agent used an interface its card declares
        (the card as served, unless given)."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions.assert_used_declared_interface(self._journal_for(agent), card if card is not None else self._card_for(agent))

    def assert_continuation_carries_task_id(self, agent: str | None = None) -> None:
        """Every answer to a task waiting for input named the task by its taskId, with its contextId (or none)."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions_client.assert_continuation_carries_task_id(self._journal_for(agent))

    def assert_sent_version_header(self, agent: str | None = None) -> None:
        """Every v1.0 request carried A2A-Version: 1.0."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions_client.assert_sent_version_header(self._journal_for(agent))

    def assert_no_page_token_loop(self, agent: str | None = None) -> None:
        """The client did not follow a ListTasks (or ListTaskPushNotificationConfigs) nextPageToken that repeated the token it sent."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions_client.assert_no_page_token_loop(self._journal_for(agent))

    def assert_retry_reused_message_id(self, agent: str | None = None) -> None:
        """A message resent after its sending failed reused its messageId."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions_client.assert_retry_reused_message_id(self._journal_for(agent))

    def assert_fell_back_to_polling(self, task_id: str, agent: str | None = None) -> None:
        """The client polled GetTask to the task's terminal state when its terminal push did not come."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        assertions_client.assert_fell_back_to_polling(self._journal_for(agent), task_id)

    def pushed_states(self, task_id: str, agent: str | None = None) -> list[str]:
        """The states the agent pushed for the task that the webhook accepted (2xx), in delivery order."""
        return assertions_client.pushed_states(self._journal_for(agent), task_id)

    def assert_card_refetched_on_change(self, changed_at: int, agent: str | None = None) -> None:
        """After the agent's card changed at journal seq ``changed_at`` (take
        ``mock.journal()[-1].seq`` when the test changes it), the client
        fetched the card again before its next request to the agent."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        name = self._server_name(agent)
        assertions_client.assert_card_refetched_on_change(self._journal_for(agent), name, changed_at)

    def assert_card_signature_checked(self, agent: str | None = None) -> None:
        """The client fetched the card's signing keys (JWKS) after the card and before its first request."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        name = self._server_name(agent)
        assertions_client.assert_card_signature_checked(self._journal_for(agent), name)

    def assert_no_request_after_bad_card_signature(self, agent: str | None = None) -> None:
        """The client sent the agent no request after its card failed signature verification."""
        __tracebackhide__ = True  # pytest: the failure points at the test's line
        name = self._server_name(agent)
        assertions_client.assert_no_request_after_bad_card_signature(self._journal_for(agent), name)
