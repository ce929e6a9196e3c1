"""Replays of a committed recording (clients/testdata/recording.json, made by
``a2amock record`` in front of ``a2amock serve --seed 7 --step-delay 50ms``:
the card, a SendMessage answered with a completed task, and a
SendStreamingMessage whose stream went submitted, working, an artifact,
completed, 50ms apart), each in its own ``a2amock replay`` process."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import a2amock
from a2amock import InvalidRequestError, Replay, ServerStartError
from a2amock.pytest_plugin import ReplayFactory

from rpc import send, task_of

REPO = Path(__file__).resolve().parents[3]
RECORDING = REPO / "clients" / "testdata" / "recording.json"

SENT_TASK = "cae94e19-ec6f-4896-a32e-d0565b22fc41"
STREAMED_TASK = "33e5a151-0029-43ab-aba1-27ec55690be2"


def stream(url: str, text: str) -> list[dict[str, Any]]:
    """The results of a v1.0 SendStreamingMessage's events, in order."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
            "params": {"message": {"messageId": f"s-{time.monotonic_ns()}", "role": "ROLE_USER", "parts": [{"text": text}]}}}
    out: list[dict[str, Any]] = []
    with httpx.stream("POST", url, json=body, headers={"A2A-Version": "1.0"}, timeout=10, trust_env=False) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:])["result"])
    return out


def kinds(results: list[dict[str, Any]]) -> list[str]:
    """Each result by what it is: the task's state, or artifactUpdate."""
    out = []
    for r in results:
        if "task" in r:
            out.append(r["task"]["status"]["state"])
        elif "statusUpdate" in r:
            out.append(r["statusUpdate"]["status"]["state"])
        else:
            out.append(next(iter(r)))
    return out


RECORDED_STREAM = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "artifactUpdate", "TASK_STATE_COMPLETED"]


def test_replay_answers_what_was_recorded(a2amock_replay: ReplayFactory) -> None:
    replay = a2amock_replay(RECORDING)
    assert replay.url.startswith("http://127.0.0.1:")
    assert replay.card()["name"] == "agent"
    assert replay.card()["supportedInterfaces"][0]["url"] == replay.url
    assert httpx.get(replay.card_url, trust_env=False).json()["name"] == "agent"

    task = task_of(send(replay.url, "hello"))
    assert task["id"] == SENT_TASK
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    events = stream(replay.url, "stream please")
    assert kinds(events) == RECORDED_STREAM
    assert events[0]["task"]["id"] == STREAMED_TASK

    # The journal is a mock's, and so are the assertions.
    journal = replay.journal()
    assert [e.method for e in journal if e.kind == "request"] == ["SendMessage", "SendStreamingMessage"]
    assert {e.agent for e in journal} == {"agent"}
    assert [e.state for e in replay.journal(task=STREAMED_TASK, kind="event") if e.state] == [
        "submitted", "working", "completed"]
    replay.assert_no_orphans()
    replay.assert_used_declared_interface()
    replay.assert_polled_at_most(SENT_TASK, 0)
    with pytest.raises(AssertionError, match=f'task "{SENT_TASK}" \\(agent agent\\): not canceled by the client'):
        replay.assert_canceled(SENT_TASK)
    with pytest.raises(KeyError, match="one agent"):
        replay.assert_no_orphans("other")

    # reset rewinds the recording and clears the journal.
    replay.reset()
    assert replay.journal() == []
    assert task_of(send(replay.url, "hello again"))["id"] == SENT_TASK


def test_splice_and_behaviors_reach_the_process(a2amock_replay: ReplayFactory) -> None:
    replay = a2amock_replay(RECORDING, splice="1:drop", behaviors=["latency:delay=1ms"])
    assert replay.behaviors() == ["replay", "splice:at=1,fault=drop", "latency:delay=1ms"]
    events = stream(replay.url, "stream please")
    assert kinds(events) == ["TASK_STATE_SUBMITTED", "artifactUpdate", "TASK_STATE_COMPLETED"]
    assert [s["behavior"] for s in replay.behavior_stats()] == ["replay", "splice:at=1,fault=drop", "latency:delay=1ms"]

    # set_behaviors replaces them (the replay stays first): the stream is whole again.
    assert replay.set_behaviors([]) == ["replay"]
    replay.reset()
    assert kinds(stream(replay.url, "stream please")) == RECORDED_STREAM
    with pytest.raises(InvalidRequestError):
        replay.set_behaviors(["no-such-behavior"])
    assert replay.behaviors() == ["replay"]


def test_speed_divides_the_recorded_delays(a2amock_replay: ReplayFactory) -> None:
    # The stream's events came 50ms apart (about 100ms from the first to
    # the last): at a quarter of the speed they take 400ms at least.
    slow = a2amock_replay(RECORDING, speed=0.25)
    start = time.monotonic()
    assert kinds(stream(slow.url, "stream please")) == RECORDED_STREAM
    assert time.monotonic() - start >= 0.35


def test_close_ends_the_process() -> None:
    with a2amock.start_replay(RECORDING) as replay:
        assert isinstance(replay, Replay)
        proc = replay.server.process
        assert proc is not None and proc.poll() is None
        url = replay.url
        assert task_of(send(url, "hello"))["id"] == SENT_TASK
    assert proc.poll() is not None
    assert replay.closed
    with pytest.raises(httpx.ConnectError):
        httpx.get(url, trust_env=False, timeout=2)
    replay.close()  # a second close does nothing


def test_the_fixture_ends_its_replays_with_the_test(pytester: pytest.Pytester) -> None:
    pids = pytester.path / "pids"
    pytester.makepyfile(f"""
def test_two(a2amock_replay):
    for _ in range(2):
        r = a2amock_replay({str(RECORDING)!r})
        with open({str(pids)!r}, "a") as f:
            f.write(str(r.server.process.pid) + "\\n")
""")
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # reaped: no such process


def test_a_bad_recording_says_where(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "version": 1,\n  "exchanges": [\n    {"kind": "jsonrpc", "bogus": 1}\n  ]\n}\n')
    with pytest.raises(ServerStartError, match=r'bad\.json:4:25: exchanges\[0\]: unknown field "bogus"') as e:
        a2amock.start_replay(bad)
    assert "exited with code 2 before serving" in str(e.value)
    with pytest.raises(ServerStartError, match=r"open .*missing\.json: no such file or directory"):
        a2amock.start_replay(tmp_path / "missing.json")
    with pytest.raises(ServerStartError, match=r'--splice: splice "2:zap": fault "zap"'):
        a2amock.start_replay(RECORDING, splice="2:zap")
    with pytest.raises(ValueError, match="speed -1"):
        a2amock.start_replay(RECORDING, speed=-1)
