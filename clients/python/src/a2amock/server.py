"""Finding, starting and talking to an a2amock server."""

from __future__ import annotations

import atexit
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

import httpx

from .errors import (
    BinaryNotFoundError,
    ConflictError,
    ControlAPIError,
    InvalidRequestError,
    NotFoundError,
    ServerStartError,
)

INSTALL_HINT = (
    "a2amock needs its server: set A2AMOCK_URL to a running a2amock server or container "
    "(e.g. http://127.0.0.1:8080), or put the a2amock binary on PATH or in A2AMOCK_BIN. "
    "Install the binary with `go install github.com/a2amock/a2amock/cmd/a2amock@latest` "
    "(or `go build -o bin/a2amock ./cmd/a2amock` in a clone), or run the container image."
)

REPLAY_INSTALL_HINT = (
    "a replay runs its own a2amock process: put the a2amock binary on PATH or in A2AMOCK_BIN "
    "(a server at A2AMOCK_URL cannot replay a recording). "
    "Install it with `go install github.com/a2amock/a2amock/cmd/a2amock@latest` "
    "(or `go build -o bin/a2amock ./cmd/a2amock` in a clone)."
)

_SERVING = re.compile(r"serving \d+ agent\(s\) at (http://\S+)")
# "a2amock: replaying FILE (N exchange(s) recorded from UPSTREAM) at URL":
# the URL is the line's last word, whatever the file's name holds.
_REPLAYING = re.compile(r"^a2amock: replaying .* at (http://\S+)\s*$")


def find_binary() -> str | None:
    """The a2amock binary: A2AMOCK_BIN when set, else a2amock on PATH."""
    env = os.environ.get("A2AMOCK_BIN")
    if env:
        return require_executable(env, f"A2AMOCK_BIN={env!r}")
    return shutil.which("a2amock")


def require_executable(path: str, named: str) -> str:
    """path when it is an executable file; else BinaryNotFoundError saying
    that ``named`` (where the path came from, and the path) is not one."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise BinaryNotFoundError(f"{named} is not an executable file. {INSTALL_HINT}")
    return path


class Server:
    """An a2amock server: one this process started (``start``) or one
    already running (``connect``, e.g. a container given by A2AMOCK_URL).

    ``control`` calls its control API (/_a2amock/...), raising
    ControlAPIError with the server's message on a 4xx or 5xx.
    """

    def __init__(self, url: str, process: subprocess.Popen[bytes] | None = None,
                 token: str | None = None, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.process = process
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, trust_env=False)
        self._drains: list[threading.Thread] = []

    @property
    def grpc_target(self) -> str:
        """The host:port a gRPC client dials (a server started with
        ``--grpc``): every agent's card declares it, with the agent's name
        as tenant."""
        return self.url.split("://", 1)[-1]

    # -- construction -------------------------------------------------

    @classmethod
    def from_env(cls, args: Sequence[str] = ()) -> Server:
        """Connects to A2AMOCK_URL when set, else starts the binary
        (A2AMOCK_BIN or PATH); fails with how to install it otherwise."""
        url = os.environ.get("A2AMOCK_URL")
        token = os.environ.get("A2AMOCK_CONTROL_TOKEN")
        if url:
            return cls.connect(url, token=token)
        binary = find_binary()
        if binary is None:
            raise BinaryNotFoundError(INSTALL_HINT)
        return cls.start(binary, args=args, token=token)

    @classmethod
    def connect(cls, url: str, token: str | None = None, timeout: float = 10.0) -> Server:
        """Connects to a running server and waits until it answers
        /_a2amock/healthz."""
        srv = cls(url, token=token)
        try:
            srv.wait_healthy(timeout)
        except BaseException:
            srv.http.close()
            raise
        return srv

    @classmethod
    def start(cls, binary: str | None = None, args: Sequence[str] = (), token: str | None = None,
              timeout: float = 15.0) -> Server:
        """Starts ``a2amock serve`` on a free loopback port and waits until
        it answers /_a2amock/healthz. The server ends with this process,
        however it ends (``close``, interpreter exit, or a kill that runs
        no cleanup: it watches a pipe on its stdin)."""
        binary = binary or find_binary()
        if binary is None:
            raise BinaryNotFoundError(INSTALL_HINT)
        cmd = ["serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--exit-on-stdin-close", *args]
        return cls._launch(binary, cmd, _SERVING, token, timeout)

    @classmethod
    def start_replay(cls, recording: str | os.PathLike[str], binary: str | None = None, *, speed: float = 0,
                     splice: str | None = None, behaviors: Sequence[str] = (), token: str | None = None,
                     timeout: float = 15.0) -> Server:
        """Starts ``a2amock replay RECORDING`` on a free loopback port, as
        ``start`` starts ``a2amock serve`` (and ending as it does): the
        recording served as an a2amock server whose one agent, ``agent``,
        plays it at ``url``. ``speed`` divides the recorded delays (0: no
        waiting), ``splice`` ("N:end-stream", "N:drop", "N:hang") cuts a
        fault into event N of every replayed stream, ``behaviors`` are specs
        of the catalogue applied to every replayed request. A recording the
        binary cannot load, or a flag it refuses, raises ServerStartError
        with the binary's message (file:line:col for a malformed file)."""
        binary = binary or find_binary()
        if binary is None:
            raise BinaryNotFoundError(REPLAY_INSTALL_HINT)
        if speed < 0:
            raise ValueError(f"speed {speed}: use 0 or more")
        cmd = ["replay", "--addr", "127.0.0.1:0", "--exit-on-stdin-close", "--speed", repr(float(speed))]
        if splice is not None:
            cmd += ["--splice", splice]
        for b in behaviors:
            cmd += ["--behavior", b]
        # "--" ends the flags: a recording whose name starts with "-" is still a file.
        cmd += ["--", os.fspath(recording)]
        return cls._launch(binary, cmd, _REPLAYING, token, timeout)

    @classmethod
    def _launch(cls, binary: str, args: Sequence[str], ready: re.Pattern[str], token: str | None,
                timeout: float) -> Server:
        """Runs ``binary args``, waits for the line ``ready`` finds its URL
        in, then for /_a2amock/healthz; the process is the server's."""
        # Both callers pass --exit-on-stdin-close: with a pipe on stdin that
        # only this process holds, whatever ends this process (a SIGKILL, a
        # CI step's timeout) closes the pipe and takes the server with it,
        # where teardown and atexit never run.
        cmd = [binary, *args]
        if token:
            # After the subcommand, before a replay's "--" and recording.
            cmd[2:2] = ["--control-token", token]
        env = {k: v for k, v in os.environ.items() if not k.startswith("A2AMOCK_")}
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env, start_new_session=True)
        except OSError as e:
            raise ServerStartError(f"could not run {binary}: {e}. {INSTALL_HINT}") from e
        lines: queue.Queue[str | None] = queue.Queue()
        stderr_tail: list[str] = []
        drains = [
            threading.Thread(target=_drain, args=(proc.stdout, lines, None), daemon=True),
            threading.Thread(target=_drain, args=(proc.stderr, None, stderr_tail), daemon=True),
        ]
        for t in drains:
            t.start()
        deadline = time.monotonic() + timeout
        url = None
        while url is None:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                line = None  # the deadline passed
            else:
                if line is None:
                    # stdout closed: the process is ending, and nothing more
                    # comes to the queue; wait for its exit code instead.
                    try:
                        proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
                    except subprocess.TimeoutExpired:
                        pass
            if line is None:
                exited = proc.poll() is not None
                _stop(proc)
                for t in drains:
                    t.join(timeout=2)
                stderr = "".join(stderr_tail[-20:])
                if exited:
                    raise ServerStartError(f"{' '.join(cmd)} exited with code {proc.returncode} before serving; "
                                           "stderr:\n" + stderr)
                raise ServerStartError(f"{' '.join(cmd)} did not report its address within {timeout}s; stderr:\n"
                                       + stderr)
            m = ready.search(line)
            if m:
                url = m.group(1)
        srv = cls(url, process=proc, token=token)
        srv._drains = drains
        _running.add(proc)
        try:
            srv.wait_healthy(max(deadline - time.monotonic(), 1.0))
        except BaseException:
            srv.close()
            raise
        return srv

    # -- life ----------------------------------------------------------

    def wait_healthy(self, timeout: float) -> None:
        """Polls /_a2amock/healthz until it answers 200."""
        deadline = time.monotonic() + timeout
        last: str = ""
        while True:
            try:
                r = self.http.get("/_a2amock/healthz", timeout=2.0)
                if r.status_code == 200:
                    return
                last = f"HTTP {r.status_code}: {r.text[:200]}"
                if r.status_code in (401, 403):
                    raise ServerStartError(f"a2amock at {self.url} refused the control API ({last}); "
                                           "set A2AMOCK_CONTROL_TOKEN to the server's --control-token")
            except httpx.HTTPError as e:
                last = str(e)
            if time.monotonic() >= deadline:
                raise ServerStartError(f"a2amock at {self.url} did not answer /_a2amock/healthz within {timeout}s ({last})")
            time.sleep(0.05)

    def close(self) -> None:
        """Stops the process this object started (SIGTERM, then SIGKILL after
        5s) and closes the HTTP client; a server it only connected to is left
        running."""
        self.http.close()
        if self.process is not None:
            _stop(self.process)
            for t in self._drains:
                t.join(timeout=2)
            self.process = None

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- control API ---------------------------------------------------

    def control(self, method: str, path: str, params: Mapping[str, Any] | None = None,
                json: Any = None) -> httpx.Response:
        """Calls the control API at /_a2amock{path}; raises ControlAPIError
        (NotFoundError, ConflictError, InvalidRequestError) on a 4xx/5xx."""
        full = "/_a2amock" + path
        r = self.http.request(method, full, params={k: v for k, v in (params or {}).items() if v is not None},
                              json=json)
        if r.status_code < 400:
            return r
        message, field, errors = r.text[:500], None, None
        try:
            body = r.json()
            err = body.get("error", {})
            message = err.get("message", message)
            field = err.get("field")
            errors = body.get("errors")
        except ValueError:
            pass
        cls: type[ControlAPIError] = ControlAPIError
        if r.status_code == 404:
            cls = NotFoundError
        elif r.status_code == 409:
            cls = ConflictError
        elif r.status_code in (400, 413, 415):
            cls = InvalidRequestError
        raise cls(method, full, r.status_code, message, field=field, errors=errors, body=r.text)


def _drain(stream: IO[bytes] | None, lines: queue.Queue[str | None] | None, tail: list[str] | None) -> None:
    if stream is None:
        return
    for raw in stream:
        line = raw.decode("utf-8", "replace")
        if lines is not None:
            lines.put(line)
        if tail is not None:
            tail.append(line)
            del tail[:-50]
    stream.close()
    if lines is not None:
        lines.put(None)


# Servers started and not yet stopped: stopped at interpreter exit too, so
# a session that ends without its teardown leaves no server behind.
_running: set[subprocess.Popen[bytes]] = set()


@atexit.register
def _stop_all() -> None:
    for proc in list(_running):
        _stop(proc)


def _forget_in_child() -> None:
    """In a child forked from this process (multiprocessing's fork, a plain
    os.fork): the servers are the parent's. The child lets go of their
    lifelines, so a server still ends with the process that started it and
    not with the last fork of it, and it does not stop them when it exits."""
    for proc in list(_running):
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
    _running.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    _running.discard(proc)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdin is not None:
        proc.stdin.close()
