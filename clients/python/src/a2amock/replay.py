"""A recording (``a2amock record``) replayed by its own ``a2amock replay``
process, with the journal, control calls and assertions of a Mock."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .asserting import JournalAssertions
from .journal import Entry
from .server import Server

#: The replayed agent's name on the server (record/replay's AgentName).
REPLAY_AGENT = "agent"


class Replay(JournalAssertions):
    """A recording served by an ``a2amock replay`` process of its own: the
    recorded agent at ``url`` (its card at ``card_url``), each recorded send
    played through the engine as a scripted timeline. The journal, the
    behaviors and the assertions are a Mock's (the agent is named
    ``agent``). ``close`` ends the process; so does the end of this
    interpreter, however it ends.

        with a2amock.start_replay("incident.json", splice="2:drop") as replay:
            run_my_client(replay.card_url)
            replay.assert_no_orphans()
    """

    def __init__(self, server: Server, recording: str | os.PathLike[str]) -> None:
        self.server = server
        self.recording = Path(recording)

    @property
    def url(self) -> str:
        """The replay's base URL: the recorded agent is served at its root."""
        return self.server.url + "/"

    @property
    def card_url(self) -> str:
        """The agent card's URL, as the agent served it (its interface URLs
        pointed at the replay)."""
        return self.server.url + "/.well-known/agent-card.json"

    @property
    def grpc_target(self) -> str:
        """The host:port a gRPC client dials: a replay serves recorded gRPC
        calls on its HTTP port."""
        return self.server.grpc_target

    def card(self) -> dict[str, Any]:
        """The agent card as a client reads it."""
        r = self.server.http.get(self.card_url)
        r.raise_for_status()
        out: dict[str, Any] = r.json()
        return out

    # -- journal and control -------------------------------------------------

    def journal(self, task: str | None = None, kind: str | Iterable[str] | None = None) -> list[Entry]:
        """What the replay answered since it started (or since ``reset``),
        oldest first; optionally only the entries naming a task, or of some
        kinds (request, response, decision, event, ...)."""
        kinds = kind if kind is None or isinstance(kind, str) else ",".join(kind)
        r = self.server.control("GET", "/journal", params={"agent": REPLAY_AGENT, "task": task, "kind": kinds})
        return [Entry.from_json(e) for e in r.json()["entries"]]

    def behaviors(self) -> list[str]:
        """The behaviors acting on replayed requests: ``replay`` (the replay
        itself, always first), then the splice and those given."""
        out: list[str] = self.server.control("GET", "/behaviors", params={"agent": REPLAY_AGENT}).json()["behaviors"]
        return out

    def set_behaviors(self, specs: Sequence[str]) -> list[str]:
        """Replaces the behaviors given at start (and the splice) with
        ``specs``; the replay stays first. Nothing changes when a spec does
        not parse (InvalidRequestError lists every bad one). Returns the
        behaviors now acting."""
        r = self.server.control("PUT", "/behaviors", params={"agent": REPLAY_AGENT}, json={"behaviors": list(specs)})
        out: list[str] = r.json()["behaviors"]
        return out

    def behavior_stats(self) -> list[dict[str, Any]]:
        """Per behavior, how many requests it acted on and skipped."""
        out: list[dict[str, Any]] = self.server.control("GET", "/behaviors",
                                                        params={"agent": REPLAY_AGENT}).json()["stats"]
        return out

    def reset(self) -> None:
        """Rewinds the recording to its first exchange, forgets the replayed
        tasks and clears the journal."""
        self.server.control("POST", "/reset")

    def close(self) -> None:
        """Ends the replay's process (SIGTERM, then SIGKILL after 5s)."""
        self.server.close()

    @property
    def closed(self) -> bool:
        """Whether the process has ended (after ``close``)."""
        return self.server.process is None

    def __enter__(self) -> Replay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what the assertions (JournalAssertions) read --------------------------

    def _journal_for(self, agent: str | None) -> list[Entry]:
        self._only_agent(agent)
        return self.journal()

    def _card_for(self, agent: str | None) -> dict[str, Any]:
        self._only_agent(agent)
        return self.card()

    def _server_name(self, agent: str | None) -> str:
        self._only_agent(agent)
        return REPLAY_AGENT

    @staticmethod
    def _only_agent(agent: str | None) -> None:
        if agent not in (None, REPLAY_AGENT):
            raise KeyError(f"a replay serves one agent, {REPLAY_AGENT!r}, not {agent!r}")


def start_replay(recording: str | os.PathLike[str], *, speed: float = 0, splice: str | None = None,
                 behaviors: Sequence[str] = (), binary: str | None = None, timeout: float = 15.0) -> Replay:
    """Replays a recording written by ``a2amock record`` (JSON or YAML) in
    an ``a2amock replay`` process of its own on a free loopback port, and
    returns it once it answers. ``speed`` divides the recorded delays: 0
    (the default) waits for none, 1 is recorded time. ``splice``
    ("N:end-stream", "N:drop", "N:hang") cuts a fault into event N (from 0)
    of every replayed stream; ``behaviors`` are catalogue specs
    ("stream-drop-events:rate=0.5") applied to every replayed request.

    The binary is ``binary``, else A2AMOCK_BIN, else a2amock on PATH. A
    recording it cannot load raises ServerStartError with its message
    (``file:line:col: exchanges[2]: ...``); a missing binary
    BinaryNotFoundError."""
    server = Server.start_replay(recording, binary, speed=speed, splice=splice, behaviors=behaviors,
                                 timeout=timeout)
    return Replay(server, recording)
