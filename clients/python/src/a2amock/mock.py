"""A test's own agents on an a2amock server, and the assertions over their
journal."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .asserting import JournalAssertions
from .errors import NotFoundError
from .journal import Entry
from .server import Server

DEFAULT_AGENT = "agent"


@dataclass(frozen=True)
class Agent:
    """An agent created for the test. ``name`` is the name the test uses;
    ``server_name`` the unique name it has on the server (its path is
    /agents/{server_name}/)."""

    name: str
    server_name: str
    url: str
    card_url: str
    dialect: str
    skills: tuple[str, ...]
    behaviors: tuple[str, ...]


def scenario_text(scenario: str | os.PathLike[str]) -> str:
    """A scenario given as a path (a PathLike, or a string naming an
    existing file) or as YAML/JSON text."""
    if isinstance(scenario, os.PathLike):
        return Path(scenario).read_text(encoding="utf-8")
    if "\n" not in scenario and os.path.isfile(scenario):
        return Path(scenario).read_text(encoding="utf-8")
    return scenario


class Mock(JournalAssertions):
    """A fresh set of agents for one test on a (possibly shared) a2amock
    server. Each agent gets a unique name on the server, its own task store,
    behaviors and journal view; ``close`` removes them. A default agent,
    ``agent``, is created at once: ``url`` and ``card_url()`` point at it.
    The assertions (``assert_no_orphans``, ...) read the journal of one
    agent of the test (``agent``), or of all of them.
    """

    def __init__(self, server: Server, *, default_agent: bool = True) -> None:
        self.server = server
        self._suffix = secrets.token_hex(4)
        self._agents: dict[str, Agent] = {}
        if default_agent:
            self.add_agent(DEFAULT_AGENT)

    # -- agents ----------------------------------------------------------

    def add_agent(self, name: str = DEFAULT_AGENT, *, card: Mapping[str, Any] | None = None,
                  behaviors: Sequence[str | Mapping[str, Any]] | None = None,
                  timelines: Sequence[Mapping[str, Any]] | None = None,
                  scenario: str | os.PathLike[str] | None = None,
                  scenario_agent: str | None = None) -> Agent:
        """Creates an agent. ``card`` and ``timelines`` take the scenario
        file format (docs/scenario.schema.json); ``behaviors`` are specs
        ("name:key=value,...") or {name, params, scope} objects; ``scenario``
        (a path or YAML text) gives the agent of a scenario file (its first,
        or ``scenario_agent``), to which ``behaviors`` are added. Raises
        InvalidRequestError naming the field at fault; nothing is created
        then."""
        if name in self._agents:
            raise ValueError(f"this test already has an agent named {name!r}")
        server_name = f"{name[:55]}-{self._suffix}"
        body: dict[str, Any] = {"name": server_name}
        if card is not None:
            body["card"] = dict(card)
        if behaviors is not None:
            body["behaviors"] = list(behaviors)
        if timelines is not None:
            body["timelines"] = list(timelines)
        if scenario is not None:
            body["scenario"] = scenario_text(scenario)
        if scenario_agent is not None:
            body["scenarioAgent"] = scenario_agent
        d = self.server.control("POST", "/agents", json=body).json()
        agent = Agent(name=name, server_name=d["name"], url=d["url"], card_url=d["cardUrl"], dialect=d["dialect"],
                      skills=tuple(d["skills"]), behaviors=tuple(d["behaviors"]))
        self._agents[name] = agent
        return agent

    def agent(self, name: str | None = None) -> Agent:
        """The test's agent of that name (None: the default agent)."""
        key = name or DEFAULT_AGENT
        try:
            return self._agents[key]
        except KeyError:
            raise KeyError(f"no agent {key!r} in this test (agents: {', '.join(self._agents)})") from None

    @property
    def agents(self) -> list[Agent]:
        """The test's agents, in creation order."""
        return list(self._agents.values())

    @property
    def url(self) -> str:
        """The default agent's JSON-RPC URL (its card lists the others)."""
        return self.agent().url

    def agent_url(self, agent: str | None = None) -> str:
        """An agent's JSON-RPC URL."""
        return self.agent(agent).url

    def card_url(self, agent: str | None = None) -> str:
        """An agent's card URL (/.well-known/agent-card.json under its path)."""
        return self.agent(agent).card_url

    def card(self, agent: str | None = None) -> dict[str, Any]:
        """An agent's card as a client reads it."""
        r = self.server.http.get(self.card_url(agent))
        r.raise_for_status()
        out: dict[str, Any] = r.json()
        return out

    def remove_agent(self, agent: str) -> None:
        """Removes one of the test's agents: its streams end, its tasks go."""
        a = self.agent(agent)
        self.server.control("DELETE", f"/agents/{a.server_name}")
        del self._agents[a.name]

    def set_behaviors(self, agent: str | None, specs: Sequence[str]) -> list[str]:
        """Replaces an agent's behaviors; nothing changes when a spec does not
        parse (InvalidRequestError lists every bad one)."""
        r = self.server.control("PUT", "/behaviors", params={"agent": self.agent(agent).server_name},
                                json={"behaviors": list(specs)})
        out: list[str] = r.json()["behaviors"]
        return out

    def behavior_stats(self, agent: str | None = None) -> list[dict[str, Any]]:
        """Why didn't it fire: per behavior of the agent, how many requests it
        acted on and skipped, by scope key, and why the last skip happened."""
        r = self.server.control("GET", "/behaviors", params={"agent": self.agent(agent).server_name})
        out: list[dict[str, Any]] = r.json()["stats"]
        return out

    def reset(self) -> None:
        """Forgets the tasks of the test's agents and starts their journal
        views afresh (other tests' agents are left alone)."""
        for a in self._agents.values():
            self.server.control("POST", "/reset", params={"agent": a.server_name})

    def close(self) -> None:
        """Removes the test's agents from the server."""
        for a in list(self._agents.values()):
            try:
                self.server.control("DELETE", f"/agents/{a.server_name}")
            except NotFoundError:
                pass
        self._agents.clear()

    def __enter__(self) -> Mock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- journal -----------------------------------------------------------

    def journal(self, agent: str | None = None, task: str | None = None,
                kind: str | Iterable[str] | None = None) -> list[Entry]:
        """The journal of one agent of the test, or of all of them (agent
        None), oldest first; optionally only the entries naming a task, or of
        some kinds (request, response, decision, event, stream-close, card,
        jwks, push, dropped, stream-event, withheld)."""
        kinds = kind if kind is None or isinstance(kind, str) else ",".join(kind)
        names = [self.agent(agent).server_name] if agent else [a.server_name for a in self._agents.values()]
        entries: list[Entry] = []
        for n in names:
            r = self.server.control("GET", "/journal", params={"agent": n, "task": task, "kind": kinds})
            entries += [Entry.from_json(e) for e in r.json()["entries"]]
        entries.sort(key=lambda e: e.seq)
        return entries

    def metrics(self) -> str:
        """The server's metrics, in the Prometheus text format."""
        return self.server.control("GET", "/metrics").text

    # -- what the assertions (JournalAssertions) read ------------------------

    def _journal_for(self, agent: str | None) -> list[Entry]:
        return self.journal(agent)

    def _card_for(self, agent: str | None) -> dict[str, Any]:
        return self.card(agent)

    def _server_name(self, agent: str | None) -> str:
        return self.agent(agent).server_name
