"""Typed journal entries, as GET /_a2amock/journal returns them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

TERMINAL_STATES = frozenset({"completed", "failed", "canceled", "rejected"})
INTERRUPTED_STATES = frozenset({"input-required", "auth-required"})

_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$")


def parse_time(text: str) -> datetime:
    """Parses a Go RFC 3339 time with up to nanoseconds (kept to microseconds)."""
    m = _TIME.match(text)
    if not m:
        raise ValueError(f"not an RFC 3339 time: {text!r}")
    frac = (m.group(2) or "").ljust(6, "0")[:6]
    zone = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.fromisoformat(f"{m.group(1)}.{frac}{zone}").astimezone(timezone.utc)


def time_ns(text: str) -> int:
    """Nanoseconds since the epoch of a Go RFC 3339 time, exactly (a
    datetime keeps microseconds only)."""
    m = _TIME.match(text)
    if not m:
        raise ValueError(f"not an RFC 3339 time: {text!r}")
    zone = "+00:00" if m.group(3) == "Z" else m.group(3)
    whole = datetime.fromisoformat(m.group(1) + zone)
    frac = (m.group(2) or "").ljust(9, "0")[:9]
    return int(whole.timestamp()) * 1_000_000_000 + int(frac)


@dataclass(frozen=True)
class SkippedBehavior:
    """A behavior configured on the agent that did not act on a request:
    ``key`` is the scope key that excluded it, ``detail`` what the request had."""

    behavior: str
    key: str
    detail: str


@dataclass(frozen=True)
class ActedBehavior:
    """A behavior that changed what a request got, and the hook it acted
    through (``decide``, ``plan``, ``result``, ``stream-event``, ``delay``, ...)."""

    behavior: str
    hook: str


@dataclass(frozen=True)
class NotActedBehavior:
    """A behavior in scope of a request that left its decision as it was,
    and why (``reason``: a continuation naming a task the agent does not
    hold, say)."""

    behavior: str
    reason: str


@dataclass(frozen=True)
class Entry:
    """One line of the journal. Fields that do not apply are empty."""

    seq: int
    time: str
    agent: str
    kind: str
    op: str = ""
    method: str = ""
    dialect: str = ""
    binding: str = ""
    request: int = 0
    task_id: str = ""
    context_id: str = ""
    message_id: str = ""
    state: str = ""
    ref_task_id: str = ""
    error_code: int = 0
    http: int = 0
    detail: str = ""
    path: str = ""
    metadata_keys: tuple[str, ...] = ()
    behaviors: tuple[str, ...] = ()
    skipped: tuple[SkippedBehavior, ...] = field(default_factory=tuple)
    acted: tuple[ActedBehavior, ...] = field(default_factory=tuple)
    #: On a decision: the behaviors in scope that left it as it was, with why.
    not_acted: tuple[NotActedBehavior, ...] = field(default_factory=tuple)
    #: On a request: the fields its dialect does not define, by path
    #: ("configuration.blocking", "page_size"), which the agent skipped unread.
    ignored: tuple[str, ...] = ()
    #: On a request: the A2A-Version it carried (header or query), "" for none.
    version: str = ""
    #: On a ListTasks or ListTaskPushNotificationConfigs request, the
    #: pageToken sent; on its response, the nextPageToken answered.
    page_token: str = ""
    #: On a send: a digest of the message's text, so a resent message can
    #: be told without the journal keeping what it said.
    message_digest: str = ""

    @property
    def timestamp(self) -> datetime:
        """The entry's time as an aware datetime (UTC)."""
        return parse_time(self.time)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entry:
        """Builds an entry from its JSON object."""
        return cls(
            seq=int(d["seq"]), time=str(d["time"]), agent=str(d.get("agent", "")), kind=str(d["kind"]),
            op=d.get("op", ""), method=d.get("method", ""), dialect=d.get("dialect", ""),
            binding=d.get("binding", ""), request=int(d.get("request", 0)), task_id=d.get("taskId", ""),
            context_id=d.get("contextId", ""), message_id=d.get("messageId", ""), state=d.get("state", ""),
            ref_task_id=d.get("refTaskId", ""), error_code=int(d.get("errorCode", 0)), http=int(d.get("http", 0)),
            detail=d.get("detail", ""), path=d.get("path", ""),
            metadata_keys=tuple(d.get("metadataKeys") or ()), behaviors=tuple(d.get("behaviors") or ()),
            skipped=tuple(SkippedBehavior(s["behavior"], s["key"], s["detail"]) for s in d.get("skipped") or ()),
            acted=tuple(ActedBehavior(a["behavior"], a["hook"]) for a in d.get("acted") or ()),
            not_acted=tuple(NotActedBehavior(n["behavior"], n["reason"]) for n in d.get("notActed") or ()),
            ignored=tuple(d.get("ignored") or ()),
            version=d.get("version", ""), page_token=d.get("pageToken", ""), message_digest=d.get("messageDigest", ""),
        )
