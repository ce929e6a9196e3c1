"""The pytest plugin: fixtures ``a2amock_server`` (one server for the
session: the binary started once, or the server at a URL), ``a2amock``
(a fresh set of agents on it for each test, removed after) and
``a2amock_replay`` (replays of recordings, each in its own process, ended
with the test).

Where the server comes from, each setting from the command line, else the
environment, else the ini file (``pytest.ini``, ``[tool.pytest.ini_options]``):

- ``--a2amock-url`` / ``A2AMOCK_URL`` / ``a2amock_url``: a running server
  or container to use instead of starting one;
- ``--a2amock-bin`` / ``A2AMOCK_BIN`` / ``a2amock_bin``: the binary to
  start (else ``a2amock`` on PATH), for the session's server and for every
  replay (a replay always runs its own process, A2AMOCK_URL or not);
- ``--a2amock-args`` / ``a2amock_args``: more ``a2amock serve`` arguments
  for a server the plugin starts, split like a shell (``--grpc --seed 7``).

The environment wins over the ini file because CI sets it per job (a
service container's URL), while the ini file is checked in for everyone.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator, Sequence
from typing import Protocol

import pytest

from .errors import BinaryNotFoundError, ServerStartError
from .mock import Mock
from .replay import Replay, start_replay
from .server import Server, require_executable


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line options and their ini twins."""
    group = parser.getgroup("a2amock", "a2amock: the fake A2A agent server")
    group.addoption("--a2amock-url", dest="a2amock_url", metavar="URL", default=None,
                    help="use the a2amock server at URL instead of starting one (else A2AMOCK_URL, else the a2amock_url ini)")
    group.addoption("--a2amock-bin", dest="a2amock_bin", metavar="PATH", default=None,
                    help="the a2amock binary to start (else A2AMOCK_BIN, else the a2amock_bin ini, else a2amock on PATH)")
    group.addoption("--a2amock-args", dest="a2amock_args", metavar="ARGS", default=None,
                    help="more 'a2amock serve' arguments for the server the plugin starts, e.g. '--grpc --seed 7' (else the a2amock_args ini)")
    parser.addini("a2amock_url", "the a2amock server to use instead of starting one", default="")
    parser.addini("a2amock_bin", "the a2amock binary to start", default="")
    parser.addini("a2amock_args", "more 'a2amock serve' arguments for the server the plugin starts", default="")


def _setting(config: pytest.Config, name: str, env: str | None) -> tuple[str, str]:
    """A setting from the command line, else the environment, else the ini
    file, and where it came from (for messages)."""
    value = config.getoption(name)
    if value:
        return str(value), "--" + name.replace("_", "-")
    if env is not None and os.environ.get(env):
        return os.environ[env], env
    return str(config.getini(name) or ""), f"the {name} ini setting"


def server_from_config(config: pytest.Config) -> Server:
    """The session's server as the settings say: connects to the URL when one
    is set, else starts the binary with the extra arguments."""
    token = os.environ.get("A2AMOCK_CONTROL_TOKEN")
    url, _ = _setting(config, "a2amock_url", "A2AMOCK_URL")
    if url:
        return Server.connect(url, token=token)
    raw_args, args_from = _setting(config, "a2amock_args", None)
    try:
        args = shlex.split(raw_args)
    except ValueError as e:
        raise ServerStartError(f"{args_from} {raw_args!r}: {e}") from e
    # Without a binary named, start looks for a2amock on PATH.
    return Server.start(binary_from_config(config), args=args, token=token)


def binary_from_config(config: pytest.Config) -> str | None:
    """The binary the settings name (checked to be executable), or None to
    look for a2amock on PATH."""
    binary, bin_from = _setting(config, "a2amock_bin", "A2AMOCK_BIN")
    if binary:
        require_executable(binary, f"{bin_from} {binary!r}")
    return binary or None


@pytest.fixture(scope="session")
def a2amock_server(pytestconfig: pytest.Config) -> Iterator[Server]:
    """The session's a2amock server: the one at --a2amock-url (A2AMOCK_URL,
    a2amock_url) when set, else the binary (--a2amock-bin, A2AMOCK_BIN,
    a2amock_bin, PATH) started on a free loopback port with --a2amock-args
    and stopped at the end of the session."""
    try:
        server = server_from_config(pytestconfig)
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


class ReplayFactory(Protocol):
    """What the ``a2amock_replay`` fixture is: start_replay, with the
    plugin's binary, whose replays end with the test."""

    def __call__(self, recording: str | os.PathLike[str], *, speed: float = 0, splice: str | None = None,
                 behaviors: Sequence[str] = ()) -> Replay: ...


@pytest.fixture
def a2amock_replay(pytestconfig: pytest.Config) -> Iterator[ReplayFactory]:
    """Starts replays of recordings for the test, each in an ``a2amock
    replay`` process of its own (the binary of --a2amock-bin, A2AMOCK_BIN,
    a2amock_bin, else PATH), all ended when the test ends:

        def test_incident(a2amock_replay):
            replay = a2amock_replay(Path(__file__).parent / "incident.json", splice="2:drop")
            run_my_client(replay.card_url)
            replay.assert_no_orphans()

    Arguments as start_replay's: ``speed`` (0, the default, waits for no
    recorded delay), ``splice``, ``behaviors``."""
    started: list[Replay] = []

    def start(recording: str | os.PathLike[str], *, speed: float = 0, splice: str | None = None,
              behaviors: Sequence[str] = ()) -> Replay:
        replay = start_replay(recording, speed=speed, splice=splice, behaviors=behaviors,
                              binary=binary_from_config(pytestconfig))
        started.append(replay)
        return replay

    try:
        yield start
    finally:
        for replay in started:
            replay.close()
