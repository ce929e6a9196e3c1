from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

import a2amock
from a2amock import Entry, InvalidRequestError, Mock, NotFoundError, Server

from rpc import call, send, task_of

REPO = Path(__file__).resolve().parents[3]
FIELD_NOTE = REPO / "examples" / "incidents" / "three-worker-incident.yaml"


def test_default_agent_and_card(a2amock: Mock) -> None:
    agent = a2amock.agent()
    assert agent.name == "agent"
    assert agent.server_name.startswith("agent-")
    assert a2amock.url == agent.url
    assert a2amock.url.endswith(f"/agents/{agent.server_name}/")
    card = a2amock.card()
    assert card["supportedInterfaces"][0]["url"] == a2amock.url


def test_add_agent_with_card_behaviors_and_journal(a2amock: Mock) -> None:
    w = a2amock.add_agent("desk", card={"name": "Intake desk", "skills": [{"id": "intake"}, {"id": "report"}]},
                          behaviors=["skip-working:skill=report"])
    assert w.skills == ("intake", "report")
    assert w.behaviors == ("skip-working:skill=report",)
    task = task_of(send(w.url, "hello", skill="intake"))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"

    entries = a2amock.journal("desk")
    assert all(isinstance(e, Entry) for e in entries)
    assert [e.kind for e in entries if e.kind in ("request", "response")] == ["request", "response"]
    req = next(e for e in entries if e.kind == "request")
    assert req.method == "SendMessage" and req.dialect == "1.0" and req.binding == "JSONRPC"
    assert req.timestamp.tzinfo is not None
    # Why didn't it fire: the request went to intake, the behavior wants report.
    assert req.behaviors == ()
    assert req.skipped[0].key == "skill"
    assert req.skipped[0].detail == 'message went to skill "intake"; scope wants "report"'
    stats = a2amock.behavior_stats("desk")
    assert stats[0]["acted"] == 0 and stats[0]["skippedBy"] == {"skill": 1}
    assert stats[0]["skipReasons"] == {'message went to skill "intake"; scope wants "report"': 1}
    assert a2amock.card("desk")["name"] == "Intake desk"
    # Filters: by task and kind; the default agent saw nothing.
    assert {e.kind for e in a2amock.journal("desk", kind=["event"])} == {"event"}
    assert all(task["id"] in (e.task_id, e.ref_task_id) for e in a2amock.journal("desk", task=task["id"]))
    assert a2amock.journal("agent") == []
    assert [e.agent for e in a2amock.journal()] == [w.server_name] * len(a2amock.journal("desk"))
    # In scope but not acting, with why: a continuation of a task the agent does not hold.
    d = a2amock.add_agent("divert", behaviors=["new-task-id-on-continuation"])
    call(d.url, "SendMessage", {"message": {"messageId": "m-divert", "role": "ROLE_USER", "taskId": "no-such-task",
                                            "parts": [{"text": "room 4"}]}})
    not_acted = [n for e in a2amock.journal("divert", kind=["decision"]) for n in e.not_acted]
    assert [n.behavior for n in not_acted] == ["new-task-id-on-continuation"]
    assert "no-such-task, which the agent does not hold" in not_acted[0].reason


def test_journal_lists_the_fields_the_agent_ignored(a2amock: Mock) -> None:
    call(a2amock.url, "SendMessage", {
        "message": {"messageId": "m-v03", "role": "ROLE_USER", "parts": [{"kind": "text", "text": "hi"}]},
        "configuration": {"blocking": False}})
    send(a2amock.url, "plain v1.0")
    reqs = a2amock.journal(kind=["request"])
    assert [e.ignored for e in reqs] == [("message.parts[0].kind", "configuration.blocking"), ()]


def test_set_behaviors_and_reset(a2amock: Mock) -> None:
    assert a2amock.set_behaviors(None, ["stuck-submitted"]) == ["stuck-submitted"]
    task = task_of(send(a2amock.url, "x"))
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert a2amock.journal()
    a2amock.reset()
    assert a2amock.journal() == []
    got = call(a2amock.url, "GetTask", {"id": task["id"]})
    assert got["error"]["code"] == -32001


def test_bad_input_raises_typed_errors_with_the_field(a2amock: Mock) -> None:
    with pytest.raises(InvalidRequestError) as e:
        a2amock.add_agent("x", behaviors=["skip-working", "nope"])
    assert e.value.status == 400
    assert e.value.field == "behaviors[1]"
    assert 'unknown behavior "nope"' in e.value.message
    with pytest.raises(InvalidRequestError) as e:
        a2amock.add_agent("y", card={"skills": [{"idx": "a"}]})
    assert e.value.field == "card.skills[0]"
    assert "unknown key" in str(e.value)
    with pytest.raises(InvalidRequestError) as e:
        a2amock.set_behaviors(None, ["latency:delay=soon"])
    assert "nothing was changed" in e.value.message
    assert "delay" in e.value.errors[0]
    with pytest.raises(NotFoundError):
        a2amock.server.control("DELETE", "/agents/no-such-agent")
    with pytest.raises(ValueError):
        a2amock.add_agent("agent")
    # Nothing was half-created.
    assert [a.name for a in a2amock.agents] == ["agent"]


def test_tests_are_isolated_on_a_shared_server(a2amock_server: Server) -> None:
    with Mock(a2amock_server) as one, Mock(a2amock_server) as two:
        one.set_behaviors(None, ["stuck-submitted"])
        t1 = task_of(send(one.url, "a"))
        t2 = task_of(send(two.url, "b"))
        assert t1["status"]["state"] == "TASK_STATE_SUBMITTED"
        assert t2["status"]["state"] == "TASK_STATE_COMPLETED"
        assert call(two.url, "GetTask", {"id": t1["id"]})["error"]["code"] == -32001
        assert {e.agent for e in one.journal()} == {one.agent().server_name}
        names = [a.server_name for a in one.agents + two.agents]
    listed = {a["name"] for a in a2amock_server.control("GET", "/agents").json()["agents"]}
    assert not listed & set(names), "closed mocks remove their agents"


def test_scenario_from_path_and_text(a2amock: Mock) -> None:
    w3 = a2amock.add_agent("w3", scenario=FIELD_NOTE, scenario_agent="worker-3")
    assert w3.dialect == "0.3"
    assert w3.behaviors == ("new-task-id-on-continuation:unless-metadata=tenant",)
    w1 = a2amock.add_agent("w1", scenario=str(FIELD_NOTE))
    assert w1.skills == ("intake",)
    text = a2amock.add_agent("t", scenario="agents:\n  - name: x\n    behaviors: [never-terminal]\n")
    assert text.behaviors == ("never-terminal",)
    with pytest.raises(InvalidRequestError) as e:
        a2amock.add_agent("bad", scenario="agents:\n  - name: x\n    behaviors: [bogus]\n")
    assert e.value.field == "scenario.agents[0].behaviors[0]"


def test_assertions_pass_and_fail_with_the_go_message_shape(a2amock: Mock) -> None:
    a2amock.set_behaviors(None, ["never-terminal"])
    task = task_of(send(a2amock.url, "go"))
    tid = task["id"]
    for _ in range(3):
        call(a2amock.url, "GetTask", {"id": tid})
    with pytest.raises(AssertionError) as e:
        a2amock.assert_no_orphans()
    want = (f"1 orphaned task(s):\ntask \"{tid}\" (agent {a2amock.agent().server_name}): orphaned\n"
            "\tclient did: created it with SendMessage ×1, GetTask ×3\n"
            "\tdeclared:   every task the client creates ends terminal or is canceled by the client\n"
            "\tobserved:   last state working (submitted → working), never canceled")
    assert str(e.value) == want
    a2amock.assert_polled_at_most(tid, 3)
    with pytest.raises(AssertionError, match=r"polled 3 times, more than 2"):
        a2amock.assert_polled_at_most(tid, 2)
    a2amock.assert_stopped_polling_within(tid, timedelta(seconds=30))
    with pytest.raises(AssertionError, match=r"still polled .* after creation, beyond 0s"):
        a2amock.assert_stopped_polling_within(tid, 0)
    with pytest.raises(AssertionError, match=r"not canceled by the client[\s\S]*observed:   no CancelTask for it"):
        a2amock.assert_canceled(tid)
    a2amock.assert_no_continuation_to(tid)
    a2amock.assert_used_declared_interface()

    assert call(a2amock.url, "CancelTask", {"id": tid}).get("result")
    a2amock.assert_canceled(tid)
    a2amock.assert_no_orphans()
    send(a2amock.url, "again", task_id=tid, context_id=task["contextId"])
    with pytest.raises(AssertionError, match=r"1 continuation\(s\) sent to a dead task[\s\S]*it died when the client canceled it"):
        a2amock.assert_no_continuation_to(tid)


def test_client_habit_assertions_on_live_agents(a2amock: Mock) -> None:
    """The card assertions name the test's agent as the server does (its
    unique name), and a card change is found by the journal seq."""
    httpx.get(a2amock.card_url(), trust_env=False).raise_for_status()
    send(a2amock.url, "hi")
    a2amock.set_behaviors(None, ["card-underclaims"])
    changed = a2amock.journal()[-1].seq
    a2amock.assert_card_refetched_on_change(changed)
    send(a2amock.url, "hi again")
    with pytest.raises(AssertionError) as e:
        a2amock.assert_card_refetched_on_change(changed)
    assert str(e.value).startswith(f"agent {a2amock.agent().server_name}: card changed but not fetched again\n"
                                   "\tclient did: SendMessage over JSONRPC (entry ")
    for passing in (a2amock.assert_sent_version_header, a2amock.assert_retry_reused_message_id,
                    a2amock.assert_no_page_token_loop, a2amock.assert_continuation_carries_task_id):
        passing()

    signed = a2amock.add_agent("signed", behaviors=["card-signature:mode=tampered"])
    httpx.get(signed.card_url, trust_env=False).raise_for_status()
    send(signed.url, "hi")
    with pytest.raises(AssertionError, match=rf"agent {signed.server_name}: used after its card failed signature "
                                             r"verification \(tampered\)"):
        a2amock.assert_no_request_after_bad_card_signature("signed")
    with pytest.raises(AssertionError, match=r"observed:   the card was fetched, its signing keys \(JWKS\) never"):
        a2amock.assert_card_signature_checked("signed")
    a2amock.assert_no_request_after_bad_card_signature()  # the default agent's card is not signed


def test_fell_back_to_polling_reads_the_pushes_from_the_journal(a2amock: Mock) -> None:
    """With the terminal push dropped, the assertion fails until the client
    polls; the states pushed are the deliveries the journal records."""
    import http.server
    import threading

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    try:
        a2amock.add_agent("pusher", card={"capabilities": {"pushNotifications": True}},
                          behaviors=["push-drop:terminal=true"])
        url = a2amock.agent_url("pusher")
        resp = call(url, "SendMessage", {
            "message": {"messageId": "m-push", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": {"taskPushNotificationConfig": {"url": f"http://127.0.0.1:{hook.server_address[1]}/hook"}}})
        tid = task_of(resp)["id"]
        deadline = time.monotonic() + 10
        while a2amock.pushed_states(tid, "pusher") != ["submitted", "working"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert a2amock.pushed_states(tid, "pusher") == ["submitted", "working"]
        with pytest.raises(AssertionError, match=r"the client did not fall back to polling[\s\S]*"
                                                 r"the client waited for a push that never came; pushed states "
                                                 r"submitted → working"):
            a2amock.assert_fell_back_to_polling(tid, "pusher")
        call(url, "GetTask", {"id": tid})
        a2amock.assert_fell_back_to_polling(tid, "pusher")
    finally:
        hook.shutdown()
        hook.server_close()


def test_used_declared_interface_fails_on_an_undeclared_binding(a2amock: Mock) -> None:
    v03 = a2amock.add_agent("old", card={"dialect": "0.3"})
    httpx.post(v03.url, json={"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"messageId": "m", "role": "user", "kind": "message", "parts": [{"kind": "text", "text": "x"}]}}},
        trust_env=False).raise_for_status()
    a2amock.assert_used_declared_interface("old")
    card = a2amock.card("old")
    card["preferredTransport"] = "HTTP+JSON"
    card["additionalInterfaces"] = []
    with pytest.raises(AssertionError, match=r"1 of 1 request\(s\) used an interface the card does not declare"):
        a2amock.assert_used_declared_interface("old", card=card)


def test_used_declared_interface_takes_grpc_for_a_v10_card_without_interfaces() -> None:
    call = Entry.from_json({"seq": 1, "time": "2026-12-04T00:00:00Z", "agent": "a", "kind": "request", "method": "SendMessage",
                            "binding": "GRPC", "dialect": "1.0", "path": "/lf.a2a.v1.A2AService/SendMessage"})
    old = Entry.from_json({"seq": 2, "time": "2026-12-04T00:00:00Z", "agent": "a", "kind": "request", "method": "SendMessage",
                           "binding": "GRPC", "dialect": "0.3", "path": "/lf.a2a.v1.A2AService/SendMessage"})
    a2amock.assert_used_declared_interface([call], {"name": "a", "protocolVersion": "1.0"})
    with pytest.raises(AssertionError, match=r"SendMessage over GRPC 0\.3"):
        a2amock.assert_used_declared_interface([old], {"name": "a", "protocolVersion": "0.3"})
    with pytest.raises(AssertionError, match=r"GRPC 1\.0 \(when the mock serves gRPC\)"):
        a2amock.assert_used_declared_interface([call, old], {"name": "a", "protocolVersion": "1.0"})


def test_metrics(a2amock: Mock) -> None:
    send(a2amock.url, "x")
    name = a2amock.agent().server_name
    assert re.search(rf'a2amock_requests_total\{{agent="{name}",method="SendMessage",.*outcome="ok".*\}} 1', a2amock.metrics())


def test_operations_exist_in_the_openapi_description() -> None:
    doc = json.loads((REPO / "docs" / "openapi.json").read_text())
    src = "".join(p.read_text() for p in (REPO / "clients/python/src/a2amock").glob("*.py"))
    calls = re.findall(r'control\("([A-Z]+)", f?"(/[^"?]*)', src)
    assert len(calls) >= 8
    for method, path in calls:
        templ = "/_a2amock" + re.sub(r"\{[^}]+\}", "{name}", path)
        assert templ in doc["paths"], f"{method} {templ} is not in docs/openapi.json"
        assert method.lower() in doc["paths"][templ], f"{method} {templ} is not in docs/openapi.json"
    assert "/_a2amock/healthz" in doc["paths"]


def test_server_connect_by_url(a2amock_server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2AMOCK_URL", a2amock_server.url)
    with Server.from_env() as s:
        assert s.process is None
        assert s.url == a2amock_server.url
    # Connecting leaves the server running.
    assert a2amock_server.control("GET", "/healthz").json()["status"] == "ok"


def test_server_start_and_stop_leaves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A2AMOCK_URL", raising=False)
    s = Server.from_env()
    proc = s.process
    assert proc is not None and proc.poll() is None
    s.close()
    assert proc.poll() is not None
    with pytest.raises(httpx.ConnectError):
        httpx.get(s.url + "/_a2amock/healthz", timeout=2, trust_env=False)


def _parent_script(tmp_path: Path, source: str) -> list[str]:
    """The command running source as a Python program, the process that
    starts a server in the lifeline tests."""
    script = tmp_path / "parent.py"
    script.write_text(source)
    return [sys.executable, str(script)]


def _no_url() -> dict[str, str]:
    """The lifeline tests' environment: they start their own server."""
    return {k: v for k, v in os.environ.items() if k != "A2AMOCK_URL"}


def _end(parent: subprocess.Popen[str]) -> None:
    parent.kill()
    parent.wait()
    if parent.stdout is not None:
        parent.stdout.close()


def test_server_ends_with_a_killed_parent(tmp_path: Path) -> None:
    """A process that started the server and is then SIGKILLed runs no
    teardown and no atexit; the server still stops (its stdin pipe closes)."""
    cmd = _parent_script(tmp_path,
        "import sys, time\n"
        "from a2amock import Server\n"
        "s = Server.start()\n"
        "print(s.url, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=_no_url(), text=True)
    try:
        assert parent.stdout is not None
        url = parent.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        assert httpx.get(url + "/_a2amock/healthz", timeout=5, trust_env=False).status_code == 200
    finally:
        _end(parent)
    _wait_gone(url, "its parent was killed")


def _wait_gone(url: str, what: str) -> None:
    deadline = time.monotonic() + 15
    while True:
        try:
            httpx.get(url + "/_a2amock/healthz", timeout=2, trust_env=False)
        except httpx.ConnectError:
            return
        assert time.monotonic() < deadline, f"the server at {url} still answers 15s after {what}"
        time.sleep(0.05)


def test_server_ends_with_a_killed_parent_whose_fork_lives_on(tmp_path: Path) -> None:
    """A child forked after the server started (multiprocessing's fork, a
    plain os.fork) does not inherit the server's lifeline: when the process
    that started the server is killed, the server stops although the child
    is still running."""
    cmd = _parent_script(tmp_path,
        "import os, time\n"
        "from a2amock import Server\n"
        "s = Server.start()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(s.url, child, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=_no_url(), text=True)
    child = 0
    try:
        assert parent.stdout is not None
        url, pid = parent.stdout.readline().split()
        child = int(pid)
        assert httpx.get(url + "/_a2amock/healthz", timeout=5, trust_env=False).status_code == 200
        parent.kill()
        parent.wait()
        _wait_gone(url, "its parent was killed, with the parent's forked child still running")
        os.kill(child, 0)  # the child was alive all along
    finally:
        _end(parent)
        if child:
            try:
                os.kill(child, 9)
            except ProcessLookupError:
                pass


def test_forked_child_exiting_leaves_the_parents_server(tmp_path: Path) -> None:
    """A forked child that exits normally runs the interpreter's exit
    handlers; they must not stop the server its parent started."""
    cmd = _parent_script(tmp_path,
        "import os, sys\n"
        "import httpx\n"
        "from a2amock import Server\n"
        "s = Server.start()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    sys.exit(0)\n"
        "os.waitpid(child, 0)\n"
        "print(httpx.get(s.url + '/_a2amock/healthz', timeout=5, trust_env=False).status_code, flush=True)\n"
        "s.close()\n"
    )
    out = subprocess.run(cmd, capture_output=True, env=_no_url(), text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "200", out.stdout + out.stderr


def test_missing_binary_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("A2AMOCK_URL", raising=False)
    monkeypatch.setenv("A2AMOCK_BIN", str(tmp_path / "nope"))
    with pytest.raises(a2amock.BinaryNotFoundError, match="is not an executable file"):
        Server.from_env()
    monkeypatch.delenv("A2AMOCK_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(a2amock.BinaryNotFoundError, match=r"A2AMOCK_URL[\s\S]*go install"):
        Server.from_env()


def test_fixture_fails_clearly_without_a_binary(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A2AMOCK_URL", raising=False)
    monkeypatch.delenv("A2AMOCK_BIN", raising=False)
    monkeypatch.setenv("PATH", str(pytester.path))
    pytester.makepyfile("def test_x(a2amock):\n    pass\n")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*A2AMOCK_URL*go install*"])


GRPC_CARD_TEST = """
def test_card(a2amock, a2amock_server):
    bindings = [i["protocolBinding"] for i in a2amock.card()["supportedInterfaces"]]
    assert "GRPC" in bindings, bindings
"""


def test_plugin_settings_command_line_then_environment_then_ini(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, a2amock_server: Server) -> None:
    monkeypatch.delenv("A2AMOCK_URL", raising=False)
    binary = os.environ.get("A2AMOCK_BIN") or a2amock.find_binary()
    assert binary, "the plugin's tests need the binary"
    pytester.makepyfile(GRPC_CARD_TEST)
    # a2amock_args: the command line, else the ini file; without either the
    # server serves no gRPC and the test fails.
    pytester.runpytest_inprocess().assert_outcomes(failed=1)
    pytester.runpytest_inprocess("--a2amock-args=--grpc --seed 7").assert_outcomes(passed=1)
    pytester.makeini("[pytest]\na2amock_args = --grpc\n")
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    result = pytester.runpytest_inprocess("--a2amock-args=--grpc '--seed")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--a2amock-args \"--grpc '--seed\": No closing quotation*"])

    # a2amock_bin: the command line, else A2AMOCK_BIN, else the ini file.
    pytester.makeini(f"[pytest]\na2amock_args = --grpc\na2amock_bin = {pytester.path / 'nope'}\n")
    monkeypatch.setenv("A2AMOCK_BIN", binary)
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    monkeypatch.delenv("A2AMOCK_BIN")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the a2amock_bin ini setting '*nope' is not an executable file*"])
    result = pytester.runpytest_inprocess(f"--a2amock-bin={pytester.path / 'other'}")
    result.stdout.fnmatch_lines(["*--a2amock-bin '*other' is not an executable file*"])
    pytester.runpytest_inprocess(f"--a2amock-bin={binary}").assert_outcomes(passed=1)

    # a2amock_url: a running server instead of starting one (this session's,
    # started without --grpc, so the gRPC test fails against it).
    pytester.makepyfile(test_connected="""
def test_connected(a2amock_server):
    assert a2amock_server.process is None
""")
    result = pytester.runpytest_inprocess(f"--a2amock-url={a2amock_server.url}")
    result.assert_outcomes(passed=1, failed=1)


def test_control_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A2AMOCK_URL", raising=False)
    with Server.start(token="s3cret") as s:
        assert httpx.get(s.url + "/_a2amock/healthz", trust_env=False).status_code == 401
        # A2AMOCK_CONTROL_TOKEN, as a2amock serve reads it, opens the control API to the client.
        monkeypatch.setenv("A2AMOCK_URL", s.url)
        monkeypatch.setenv("A2AMOCK_CONTROL_TOKEN", "s3cret")
        with Server.from_env() as remote, Mock(remote) as m:
            assert m.journal() == []
        monkeypatch.setenv("A2AMOCK_CONTROL_TOKEN", "wrong")
        with pytest.raises(a2amock.ServerStartError, match="HTTP 401"):
            Server.from_env()
