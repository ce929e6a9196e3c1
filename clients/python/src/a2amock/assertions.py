"""Assertions over the journal, mirroring the Go testkit's (package testkit,
assert.go): same names in snake case, same checks, same message shape — the
task, what the client did, what was declared, what was observed.

Each raises AssertionError with the message and returns None when it passes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import urlparse

from .journal import TERMINAL_STATES, Entry, time_ns

TASK_NOT_FOUND = -32001


def _q(s: str) -> str:
    """Quotes like Go's %q for ordinary strings."""
    return json.dumps(s, ensure_ascii=False)


def _failure(subject: str, did: str, declared: str, observed: str, diff: str = "") -> str:
    out = f"{subject}\n\tclient did: {did}\n\tdeclared:   {declared}\n\tobserved:   {observed}"
    if diff:
        out += "\n\tdiff (-declared +observed):\n" + diff
    return out


def _state_list(states: Sequence[str]) -> str:
    return " → ".join(states) if states else "no state"


def go_duration(d: timedelta | int) -> str:
    """Formats a duration (a timedelta, or nanoseconds) as Go's
    time.Duration.String does."""
    ns = d if isinstance(d, int) else round(d.total_seconds() * 1e9)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)

    def frac(v: int, unit: int) -> str:
        whole, rest = divmod(v, unit)
        if rest == 0:
            return str(whole)
        digits = str(rest).rjust(len(str(unit)) - 1, "0").rstrip("0")
        return f"{whole}.{digits}"

    if ns < 1_000:
        return f"{sign}{ns}ns"
    if ns < 1_000_000:
        return f"{sign}{frac(ns, 1_000)}µs"
    if ns < 1_000_000_000:
        return f"{sign}{frac(ns, 1_000_000)}ms"
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    out = sign
    if h:
        out += f"{h}h"
    if h or m:
        out += f"{m}m"
    return out + frac(rem, 1_000_000_000) + "s"


@dataclass
class _Story:
    agent: str
    id: str
    first: Entry
    created: str = ""
    states: list[str] = field(default_factory=list)
    requests: list[Entry] = field(default_factory=list)
    polls: list[Entry] = field(default_factory=list)
    cancels: list[Entry] = field(default_factory=list)
    cancel_acked: bool = False
    cancel_err: int = 0
    dead: Entry | None = None
    dead_reason: str = ""

    def last(self) -> str:
        return self.states[-1] if self.states else ""

    def mark_dead(self, e: Entry, why: str) -> None:
        if self.dead is None:
            self.dead, self.dead_reason = e, why

    def did(self) -> str:
        order: list[str] = []
        n: dict[str, int] = {}

        def add(k: str) -> None:
            if k not in n:
                order.append(k)
                n[k] = 0
            n[k] += 1

        if self.created:
            add("created it with " + self.created)
        for r in self.requests:
            m = r.method or r.op
            if r.ref_task_id == self.id and r.op in ("send", "stream"):
                m += " (continuation)"
            add(m)
        if not order:
            return "nothing about this task"
        return ", ".join(f"{k} ×{n[k]}" for k in order)

    def subject(self, what: str) -> str:
        return f"task {_q(self.id)} (agent {self.agent}): {what}"


def _stories(journal: Iterable[Entry]) -> tuple[dict[str, _Story], list[str]]:
    by_id: dict[str, _Story] = {}
    order: list[str] = []

    def get(e: Entry, task_id: str) -> _Story:
        s = by_id.get(task_id)
        if s is None:
            s = _Story(agent=e.agent, id=task_id, first=e)
            by_id[task_id] = s
            order.append(task_id)
        return s

    requests: dict[int, Entry] = {}
    for e in journal:
        if e.kind == "request":
            requests[e.request] = e
            if e.task_id:
                s = get(e, e.task_id)
                s.requests.append(e)
                if e.op == "get-task":
                    s.polls.append(e)
                elif e.op == "cancel-task":
                    s.cancels.append(e)
                    s.mark_dead(e, f"the client canceled it (entry {e.seq})")
            if e.ref_task_id and e.ref_task_id != e.task_id:
                get(e, e.ref_task_id).requests.append(e)
        elif e.kind == "response":
            if e.task_id and e.op in ("send", "stream") and e.ref_task_id != e.task_id:
                s = get(e, e.task_id)
                if not s.created:
                    req = requests.get(e.request)
                    s.created = (req.method if req else "") or e.op
            if e.ref_task_id and e.task_id and e.task_id != e.ref_task_id and e.error_code == 0:
                get(e, e.ref_task_id).mark_dead(
                    e, f"a message to it was answered with another task, {_q(e.task_id)} (entry {e.seq})")
            if e.op == "cancel-task" and e.task_id:
                s = get(e, e.task_id)
                if e.error_code == 0:
                    s.cancel_acked = True
                else:
                    s.cancel_err = e.error_code
            if e.error_code == TASK_NOT_FOUND:
                tid = e.task_id or e.ref_task_id
                if tid:
                    get(e, tid).mark_dead(e, f"the agent no longer knew it (TaskNotFound, entry {e.seq})")
        elif e.kind == "event":
            if not e.task_id or not e.state:
                continue
            s = get(e, e.task_id)
            if s.last() != e.state:
                s.states.append(e.state)
            if e.state in TERMINAL_STATES:
                s.mark_dead(e, f"it reached {e.state} (entry {e.seq})")
    return by_id, order


def assert_no_orphans(journal: Iterable[Entry]) -> None:
    """Every task the client created ended terminal, or was canceled by the
    client (a CancelTask the agent acknowledged). A task left working,
    submitted or waiting for input is an orphan."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    by_id, order = _stories(journal)
    msgs: list[str] = []
    for tid in order:
        s = by_id[tid]
        if not s.states and not s.created:
            continue
        if s.last() in TERMINAL_STATES or s.cancel_acked:
            continue
        obs = f"last state {s.last()} ({_state_list(s.states)}), "
        obs += "never canceled" if not s.cancels else f"cancel refused with error {s.cancel_err}"
        msgs.append(_failure(s.subject("orphaned"), s.did(),
                             "every task the client creates ends terminal or is canceled by the client", obs))
    if msgs:
        raise AssertionError(f"{len(msgs)} orphaned task(s):\n" + "\n".join(msgs))


def assert_polled_at_most(journal: Iterable[Entry], task_id: str, n: int) -> None:
    """The client sent at most n GetTask requests for the task."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    by_id, _ = _stories(journal)
    s = by_id.get(task_id)
    if s is None or len(s.polls) <= n:
        return
    raise AssertionError(_failure(
        s.subject(f"polled {len(s.polls)} times, more than {n}"), s.did(),
        f"at most {n} GetTask polls",
        f"{len(s.polls)} GetTask polls from {s.polls[0].time} to {s.polls[-1].time}; task states {_state_list(s.states)}"))


def assert_stopped_polling_within(journal: Iterable[Entry], task_id: str, within: timedelta | float) -> None:
    """The client's last GetTask for the task came at most ``within`` (a
    timedelta, or seconds) after the task's first journal entry."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    d = within if isinstance(within, timedelta) else timedelta(seconds=within)
    d_ns = (d.days * 86_400 + d.seconds) * 1_000_000_000 + d.microseconds * 1_000
    by_id, _ = _stories(journal)
    s = by_id.get(task_id)
    if s is None or not s.polls:
        return
    last = s.polls[-1]
    span = time_ns(last.time) - time_ns(s.first.time)
    if span <= d_ns:
        return
    raise AssertionError(_failure(
        s.subject(f"still polled {go_duration(span)} after creation, beyond {go_duration(d_ns)}"), s.did(),
        f"no GetTask later than {go_duration(d_ns)} after the task was created",
        f"last GetTask (entry {last.seq}) {go_duration(span)} after creation; task states {_state_list(s.states)}"))


def assert_canceled(journal: Iterable[Entry], task_id: str) -> None:
    """The client canceled the task: a CancelTask the agent acknowledged."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    by_id, _ = _stories(journal)
    s = by_id.get(task_id)
    if s is None:
        raise AssertionError(_failure(f"task {_q(task_id)}: not in the journal", "nothing about this task",
                                      "the client cancels the task", "no entry names the task"))
    if s.cancel_acked:
        return
    obs = "no CancelTask for it"
    if s.cancels:
        obs = f"{len(s.cancels)} CancelTask, refused with error {s.cancel_err}"
    raise AssertionError(_failure(s.subject("not canceled by the client"), s.did(),
                                  "the client cancels the task (CancelTask acknowledged)",
                                  obs + "; task states " + _state_list(s.states)))


# For a field an agent of a dialect ignores that another dialect defines,
# what the agent's dialect calls it (paths with list indexes as []), as the
# Go testkit says it.
_V10_HABITS = {
    "configuration.returnImmediately": "v1.0's; v0.3 reads blocking: false instead, and without it a send blocks",
    "configuration.taskPushNotificationConfig": "v1.0's; v0.3 reads pushNotificationConfig, so no push was registered",
    "message.parts[].url": "v1.0's; v0.3 reads a file part's file.uri",
    "message.parts[].raw": "v1.0's; v0.3 reads a file part's file.bytes",
    "message.parts[].mediaType": "v1.0's; v0.3 reads a file part's file.mimeType",
    "message.parts[].filename": "v1.0's; v0.3 reads a file part's file.name",
}
_RENAMED: dict[str, dict[str, str]] = {
    "1.0": {
        "configuration.blocking": "v0.3's; v1.0 reads returnImmediately, its inverse: without it a send blocks",
        "configuration.pushNotificationConfig": "v0.3's; v1.0 reads taskPushNotificationConfig, so no push was registered",
        "message.kind": "v0.3's discriminator; a v1.0 message has none",
        "message.parts[].kind": "v0.3's part discriminator; a v1.0 part is told by its member: text, raw, url or data",
        "message.parts[].file": "v0.3's file part; v1.0 reads raw or url, with filename and mediaType",
    },
    "0.3": _V10_HABITS,
    "0.2": _V10_HABITS,
}


def assert_no_ignored_fields(journal: Iterable[Entry]) -> None:
    """No request carried a field its dialect does not define (the entry's
    ``ignored``): the agent skipped it unread, as servers do, so a setting
    the client believes it sent (v0.3's ``configuration.blocking`` sent to a
    v1.0 agent, a ListTasks ``page_size`` where v1.0's JSON reads
    ``pageSize``, v1.0's ``returnImmediately`` sent to a v0.3 one) never
    took effect."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    lines: list[str] = []
    requests = carrying = 0
    for e in journal:
        if e.kind != "request":
            continue
        requests += 1
        if not e.ignored:
            continue
        carrying += 1
        for path in e.ignored:
            msg = f", message {_q(e.message_id)}" if e.message_id else ""
            line = f"\n\t\t{e.method} over {e.binding} (entry {e.seq}{msg}): {path}"
            hint = _RENAMED.get(e.dialect, {}).get(re.sub(r"\[\d+\]", "[]", path))
            if hint:
                line += f" ({hint})"
            lines.append(line)
    if not carrying:
        return
    raise AssertionError(_failure(
        f"{carrying} of {requests} request(s) carried fields the agent ignored",
        f"sent {requests} request(s)",
        "every field a request carries is one its dialect defines, so the agent reads what the client meant",
        "ignored:" + "".join(lines)))


def assert_no_continuation_to(journal: Iterable[Entry], task_id: str) -> None:
    """The client sent no message naming the task after the task was dead
    (terminal, canceled by the client, answered with another task id, or
    unknown to the agent)."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    by_id, _ = _stories(journal)
    s = by_id.get(task_id)
    if s is None or s.dead is None:
        return
    late = [f"{r.method} (entry {r.seq}, message {r.message_id})" for r in s.requests
            if r.seq > s.dead.seq and r.ref_task_id == task_id and r.op in ("send", "stream")]
    if not late:
        return
    raise AssertionError(_failure(s.subject(f"{len(late)} continuation(s) sent to a dead task"), s.did(),
                                  "no message to a task after it is dead; it died when " + s.dead_reason,
                                  "continuations " + ", ".join(late)))


@dataclass(frozen=True)
class _Iface:
    binding: str
    version: str
    url: str


def card_interfaces(card: Mapping[str, Any]) -> list[_Iface]:
    """The interfaces a card declares: v1.0 supportedInterfaces, or a v0.x
    url + preferredTransport + additionalInterfaces."""
    out: list[_Iface] = []
    if "supportedInterfaces" in card:
        for i in card.get("supportedInterfaces") or []:
            out.append(_Iface(i.get("protocolBinding", ""), i.get("protocolVersion", ""), i.get("url", "")))
        return out
    version = str(card.get("protocolVersion", "") or "")
    version = ".".join(version.split(".")[:2])
    if card.get("url"):
        out.append(_Iface(card.get("preferredTransport") or "JSONRPC", version, card["url"]))
    for i in card.get("additionalInterfaces") or []:
        iface = _Iface(i.get("transport", ""), version, i.get("url", ""))
        if iface not in out:
            out.append(iface)
    return out


def _iface_path(raw: str) -> str:
    if not raw:
        return ""
    try:
        p = urlparse(raw).path
    except ValueError:
        return ""
    return p or "/"


def _matches(i: _Iface, e: Entry) -> bool:
    # A request refused before its method was understood (a body that is
    # not JSON, an unknown method) has no dialect: its binding and path say
    # which interface it was sent to.
    if i.binding != e.binding or (e.dialect and i.version != e.dialect):
        return False
    if i.binding == "GRPC":
        # A gRPC interface is host:port, with no path to compare.
        return True
    p = _iface_path(i.url)
    if not p or not e.path:
        return True
    trim = p.rstrip("/")
    return e.path in (p, trim) or e.path.startswith(trim + "/")


def assert_used_declared_interface(journal: Iterable[Entry], card: Mapping[str, Any]) -> None:
    """Every A2A request used a binding and protocol version the card
    declares and, when the card gives interface URLs, a path under one of
    them. Pass the card as the client read it (JSON). A journal without
    requests fails: there is nothing to confirm."""
    __tracebackhide__ = True  # pytest: the failure points at the test's line
    ifaces = card_interfaces(card)
    if not ifaces:
        d = ".".join(str(card.get("protocolVersion") or "1.0").split(".")[:2])
        ifaces = [_Iface("JSONRPC", d, "")]
        if d == "1.0":
            # A mock that serves gRPC declares it in every v1.0 card; one
            # that does not journals no gRPC call.
            ifaces += [_Iface("HTTP+JSON", d, ""), _Iface("GRPC", d, "")]
    declared = []
    for i in ifaces:
        s = f"{i.binding} {i.version}"
        if _iface_path(i.url):
            s += " at " + _iface_path(i.url)
        if i.binding == "GRPC" and not i.url:
            s += " (when the mock serves gRPC)"
        declared.append(s)
    bad: list[str] = []
    n = 0
    for e in journal:
        if e.kind != "request":
            continue
        n += 1
        if not any(_matches(i, e) for i in ifaces):
            tid = e.task_id or e.ref_task_id
            method = e.method or "a request"  # refused before its method was understood
            iface = f"{e.binding} {e.dialect}".strip() or "no interface"  # a path no route serves
            bad.append(f"\n\t\t{method} over {iface} at {e.path} (entry {e.seq}, task {_q(tid)})")
    name = card.get("name", "")
    if n == 0:
        raise AssertionError(_failure(f"agent {name}: no task, no request in the journal", "sent no A2A request",
                                      "; ".join(declared), "nothing to compare"))
    if bad:
        raise AssertionError(_failure(f"agent {name}: {len(bad)} of {n} request(s) used an interface the card does not declare",
                                      f"sent {n} A2A requests", "; ".join(declared), "".join(bad)))
