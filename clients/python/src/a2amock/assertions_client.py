"""Assertions about client habits, from the journal alone, mirroring the Go
testkit's (testkit/internal/check: assert_client.go, assert_cards.go): same
names in snake case, same checks, same messages. They catch bugs reported
against real A2A clients, so they apply to a client in any language.

Each raises AssertionError with the message and returns None when it passes.
"""

from __future__ import annotations

from collections.abc import Iterable

from .assertions import _failure, _q, _state_list, _stories
from .journal import INTERRUPTED_STATES, TERMINAL_STATES, Entry

#: The dialects whose requests must carry A2A-Version (v1.0 §1.6); the
#: others may omit it.
_VERSION_REQUIRED = frozenset({"1.0"})
_KNOWN_DIALECTS = frozenset({"1.0", "0.3", "0.2", "0.1"})

#: The behaviors after which a client has no usable answer to its send, and
#: may retry.
_ANSWER_BREAKERS = frozenset({
    "http-error", "connection-reset", "empty-response", "malformed-json", "truncated-body",
    "stream-eof-mid-frame", "stream-error-as-json", "stream-hang", "send-result-envelope", "auth-flaky",
    "content-type", "sse-framing",
})

#: The card-signature modes whose card a verifying client must refuse.
_BAD_SIGNATURE_MODES = frozenset({
    "tampered", "wrong-canonical-form", "unknown-kid", "alg-none", "hs256", "expired-key", "jku-unreachable",
})


def _is_send(e: Entry) -> bool:
    return e.kind == "request" and e.op in ("send", "stream")


def _major_minor(v: str) -> str:
    i = v.find(".")
    if i >= 0:
        j = v.find(".", i + 1)
        if j >= 0:
            return v[:j]
    return v


def assert_continuation_carries_task_id(journal: Iterable[Entry]) -> None:
    """Every message the client sent in answer to a task waiting for it
    (input-required or auth-required) named the task by its taskId, with
    the task's contextId (or none). The message answering the task is the
    client's next send in the task's context after the task was
    interrupted, or a send naming the task."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    entries = list(journal)
    ctx_of: dict[str, str] = {}
    for e in entries:
        if e.task_id and e.context_id and e.kind != "request":
            ctx_of.setdefault(e.task_id, e.context_id)
    waiting: dict[str, tuple[str, str, int]] = {}  # context -> (task, state, seq)
    msgs: list[str] = []
    for e in entries:
        if e.kind in ("event", "response") and e.state in INTERRUPTED_STATES and e.task_id:
            c = ctx_of.get(e.task_id, "")
            if c:
                waiting[c] = (e.task_id, e.state, e.seq)
        elif _is_send(e):
            ctx = e.context_id
            c = ctx_of.get(e.ref_task_id, "") if e.ref_task_id else ""
            if c and (not ctx or waiting.get(c, ("", "", 0))[0] == e.ref_task_id):
                ctx = c
            w = waiting.pop(ctx, None)
            if w is None:
                continue
            task, state, seq = w
            if not e.ref_task_id:
                msgs.append(_failure(
                    f"task {_q(task)}: its {state} was answered without its taskId",
                    f"{e.method} (entry {e.seq}, message {e.message_id}) with contextId {e.context_id} only",
                    f"a continuation of a task in {state} (entry {seq}) carries taskId {task}",
                    "no taskId: the agent starts a new task in the same context"))
            elif e.ref_task_id != task:
                msgs.append(_failure(
                    f"task {_q(task)}: its {state} was answered to another task",
                    f"{e.method} (entry {e.seq}, message {e.message_id}) naming task {e.ref_task_id}",
                    f"a continuation carries taskId {task}", "taskId " + e.ref_task_id))
            elif e.context_id and e.context_id != ctx:
                msgs.append(_failure(
                    f"task {_q(task)}: continued with another contextId",
                    f"{e.method} (entry {e.seq}, message {e.message_id})",
                    f"a continuation carries the task's contextId {ctx} (or none)", "contextId " + e.context_id))
    if msgs:
        raise AssertionError(f"{len(msgs)} continuation(s) without the task's ids:\n" + "\n".join(msgs))


def assert_sent_version_header(journal: Iterable[Entry]) -> None:
    """Every v1.0 request carried an A2A-Version of 1.0 (header or query
    parameter). A v1.0 request without one is a v0.3 request by the spec's
    rule (§1.6), which a strict agent refuses."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    bad: list[str] = []
    n = 0
    for e in journal:
        if e.kind != "request" or e.dialect not in _VERSION_REQUIRED:
            continue
        n += 1
        v = _major_minor(e.version)
        if v in _KNOWN_DIALECTS and v == e.dialect:
            continue
        shown = _q(e.version) if e.version else "none"
        tid = e.task_id or e.ref_task_id
        bad.append(f"\n\t\t{e.method} over {e.binding} (entry {e.seq}, task {_q(tid)}): A2A-Version {shown}")
    if bad:
        raise AssertionError(_failure(
            f"{len(bad)} of {n} v1.0 request(s) without A2A-Version: 1.0", f"sent {n} v1.0 requests",
            "every v1.0 request carries A2A-Version: 1.0 (spec §1.6)", "".join(bad)))


# The paged operations whose tokens the journal keeps, as the messages
# call them.
_LISTINGS = {"list-tasks": "ListTasks", "list-push-configs": "ListTaskPushNotificationConfigs"}


def assert_no_page_token_loop(journal: Iterable[Entry]) -> None:
    """The client never sent a listing (ListTasks, or
    ListTaskPushNotificationConfigs) the same pageToken again after the
    agent had answered that very token with it as nextPageToken: a listing
    that does not advance (the behavior list-pagination-loop) must end, not
    be followed for ever."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    sent: dict[int, Entry] = {}
    # (agent, op, token) an answer repeated -> its seq
    looped: dict[tuple[str, str, str], int] = {}
    reported: set[tuple[str, str, str]] = set()
    msgs: list[str] = []
    for e in journal:
        listing = _LISTINGS.get(e.op)
        if listing is None:
            continue
        key = (e.agent, e.op, e.page_token)
        if e.kind == "request":
            sent[e.request] = e
            if key in looped and e.page_token and key not in reported:
                reported.add(key)
                msgs.append(_failure(
                    f"agent {e.agent}: {listing} followed a nextPageToken that repeated",
                    f"sent pageToken {_q(e.page_token)} again (entry {e.seq})",
                    "a client stops (or reports the agent) when nextPageToken repeats the pageToken it sent",
                    f"the answer at entry {looped[key]} gave back pageToken {_q(e.page_token)} as its nextPageToken"))
        elif e.kind == "response":
            req = sent.get(e.request)
            if req is not None and e.page_token and e.page_token == req.page_token:
                looped.setdefault(key, e.seq)
    if msgs:
        raise AssertionError("\n".join(msgs))


def _breaks_answer(behavior: str) -> bool:
    return behavior.split(":", 1)[0] in _ANSWER_BREAKERS


def assert_retry_reused_message_id(journal: Iterable[Entry]) -> None:
    """When the client resent a message after its first sending failed, it
    reused the messageId, so the agent can recognise the retry instead of
    acting twice (A2A#928, #1893, #1987). A sending failed when the agent
    answered it with an error, never answered it, or a behavior that breaks
    the answer acted on it. The resent message is the client's next send
    with the same text (the journal keeps a digest of it) to the same task
    or context."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    entries = list(journal)
    failed: dict[int, bool] = {}
    for e in entries:
        if _is_send(e):
            failed[e.request] = True  # until an answer says otherwise
        elif e.kind == "response" and e.error_code == 0 and e.request in failed:
            failed[e.request] = False
    for e in entries:
        if _is_send(e) and any(_breaks_answer(b) for b in e.behaviors):
            failed[e.request] = True
    last: dict[tuple[str, str, str, str], Entry] = {}
    msgs: list[str] = []
    for e in entries:
        if not _is_send(e) or not e.message_digest:
            continue
        key = (e.agent, e.ref_task_id, e.context_id, e.message_digest)
        prev = last.get(key)
        last[key] = e
        if prev is None or not failed.get(prev.request, False) or prev.message_id == e.message_id:
            continue
        subject = f"agent {e.agent}: a failed message was resent with a new messageId"
        if e.ref_task_id:
            subject = f"task {_q(e.ref_task_id)}: a failed message to it was resent with a new messageId"
        breakers = [b for b in prev.behaviors if _breaks_answer(b)]
        why = f"failed ({', '.join(breakers)})" if breakers else "failed"
        msgs.append(_failure(
            subject, f"{prev.method} (entry {prev.seq}) {why}, then {e.method} (entry {e.seq}) with the same text",
            "a retry reuses the messageId " + prev.message_id, "messageId " + e.message_id))
    if msgs:
        raise AssertionError("\n".join(msgs))


def assert_card_refetched_on_change(journal: Iterable[Entry], agent: str, changed_at: int) -> None:
    """After the agent's card changed (at journal seq ``changed_at``: take
    the last entry's seq when the test changes the card) the client fetched
    the card again before its next A2A request to that agent. The mock
    serves cards with an ETag and Cache-Control: no-cache, so a client that
    honours HTTP caching revalidates; one that caches the card for the
    process's lifetime keeps using what the card no longer says."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    for e in journal:
        if e.seq <= changed_at or e.agent != agent:
            continue
        if e.kind == "card":
            return
        if e.kind == "request":
            tid = e.task_id or e.ref_task_id
            raise AssertionError(_failure(
                f"agent {agent}: card changed but not fetched again",
                f"{e.method} over {e.binding} (entry {e.seq}, task {_q(tid)})",
                f"the card changed at entry {changed_at} (ETag changed, Cache-Control: no-cache): "
                "refetch it before using the agent",
                "no card fetch between the change and this request"))


def _bad_signature(e: Entry) -> str:
    """The card-signature mode of a card fetch that served a signature a
    verifier must refuse, or ""."""
    for b in e.behaviors:
        if not b.startswith("card-signature"):
            continue
        rest = b[len("card-signature"):]
        mode = "tampered"  # the behavior's default
        for kv in (rest[1:] if rest.startswith(":") else rest).split(","):
            if kv.startswith("mode="):
                mode = kv[len("mode="):]
        if mode in _BAD_SIGNATURE_MODES:
            return mode
    return ""


def assert_card_signature_checked(journal: Iterable[Entry], agent: str) -> None:
    """The client fetched the agent's signing keys (its JWKS, the jku of
    the card's signatures) after fetching the card and before its first A2A
    request: the visible part of verifying a signed card (a2a-js#605,
    a2a-go#368). For a mock that signs cards (``--sign-cards``, or the
    behavior card-signature); it judges the first contact."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    card_seen = keys_seen = False
    for e in journal:
        if e.agent != agent:
            continue
        if e.kind == "card":
            card_seen, keys_seen = True, False
        elif e.kind == "jwks":
            keys_seen = keys_seen or card_seen
        elif e.kind == "request":
            if card_seen and keys_seen:
                return
            obs = "the card was fetched, its signing keys (JWKS) never" if card_seen else "no card fetch before it"
            raise AssertionError(_failure(
                f"agent {agent}: card signature not checked before use", f"{e.method} over {e.binding} (entry {e.seq})",
                "a client verifying signed cards fetches the card, then the JWKS its signature names, "
                "before its first request", obs))
    raise AssertionError(_failure(f"agent {agent}: no A2A request in the journal", "sent no request",
                                  "a card fetch, a JWKS fetch, then requests", "nothing to check"))


def assert_no_request_after_bad_card_signature(journal: Iterable[Entry], agent: str) -> None:
    """After the agent served a card whose signature a verifier must refuse
    (the behavior card-signature in mode tampered, wrong-canonical-form,
    unknown-kid, alg-none, hs256, expired-key or jku-unreachable), the
    client sent that agent no A2A request, until it fetched a card again
    that was not bad."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    bad, at = "", 0
    msgs: list[str] = []
    for e in journal:
        if e.agent != agent:
            continue
        if e.kind == "card":
            bad, at = _bad_signature(e), e.seq
        elif e.kind == "request" and bad:
            msgs.append(_failure(
                f"agent {agent}: used after its card failed signature verification ({bad})",
                f"{e.method} over {e.binding} (entry {e.seq}, task {_q(e.task_id + e.ref_task_id)})",
                f"a card whose signature does not verify (card-signature:mode={bad}, entry {at}) is refused, "
                "and the agent not used",
                "the client went on to use the agent"))
            bad = ""  # one report per bad card
    if msgs:
        raise AssertionError("\n".join(msgs))


def pushed_states(journal: Iterable[Entry], task_id: str) -> list[str]:
    """The states the agent pushed for the task that a webhook accepted
    (answered 2xx), in the order the journal recorded the deliveries."""
    return [e.state for e in journal
            if e.kind == "push" and e.task_id == task_id and e.state and 200 <= e.http < 300]


def assert_fell_back_to_polling(journal: Iterable[Entry], task_id: str) -> None:
    """A client whose terminal push never came fell back to GetTask: the
    agent reached a terminal state for the task, no terminal state reached
    the webhook (the journal's push deliveries, ``pushed_states``), and the
    journal holds a GetTask for the task after that terminal state, answered
    with a terminal task. The Go testkit's AssertFellBackToPollingFromJournal."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    entries = list(journal)
    rule = ("the agent ends the task; a client whose terminal push does not come polls GetTask "
            "until it sees the terminal state")
    pushed = pushed_states(entries, task_id)
    by_id, _ = _stories(entries)
    s = by_id.get(task_id)
    if s is None:
        raise AssertionError(_failure(f"task {_q(task_id)}: not in the journal", "nothing about this task", rule,
                                      "no entry names the task"))
    terminal = next((e for e in entries if e.kind == "event" and e.task_id == task_id and e.state in TERMINAL_STATES),
                    None)
    if terminal is None:
        raise AssertionError(_failure(s.subject("never reached a terminal state, so nothing was left to poll for"),
                                      s.did(), rule, "task states " + _state_list(s.states)))
    for p in pushed:
        if p in TERMINAL_STATES:
            raise AssertionError(_failure(s.subject("its terminal push was delivered, so nothing forced a fallback"),
                                          s.did(), rule,
                                          f"the webhook received {p}; pushed states {_state_list(pushed)}"))
    polled = {e.request for e in entries
              if e.seq > terminal.seq and e.kind == "request" and e.op == "get-task" and e.task_id == task_id}
    if any(e.kind == "response" and e.request in polled and e.state in TERMINAL_STATES for e in entries):
        return
    observed = (f"no GetTask for the task after its terminal state {terminal.state} (journal #{terminal.seq}): "
                f"the client waited for a push that never came; pushed states {_state_list(pushed)}")
    if polled:
        observed = (f"{len(polled)} GetTask for the task after its terminal state {terminal.state} "
                    f"(journal #{terminal.seq}), none answered with a terminal task")
    raise AssertionError(_failure(s.subject("the client did not fall back to polling"), s.did(), rule, observed))
