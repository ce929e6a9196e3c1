"""Drives the official Python A2A SDK (a2a-sdk) against a2amock agents.

Reads a JSON list of jobs on stdin, runs them (four at a time) in one process
(the SDK's import alone costs the better part of a second, so the Go tests
batch their calls), and prints one JSON document on stdout:

    {"sdk": "<a2a-sdk version>", "results": [<one result per job, in order>]}

A job is {"url": agent base URL, "transport": "JSONRPC" | "HTTP+JSON" | "GRPC",
"action": ..., "arg": ..., "timeoutMs": bound of the whole job (10000)}.
A result holds what the SDK returned (result, events, pages, card) and the
exception it raised, as {"name": class name, "message": str(exception)}.

Actions:
  card       discover the card (A2ACardResolver, no signature verifier)
  verify     discover with the SDK's signature verifier
             (a2a.utils.signing.create_signature_verifier, EdDSA only, keys
             fetched with PyJWT's PyJWKClient from the signature's jku)
  extended   verify, then GetExtendedAgentCard with the same verifier
  send       one message, non-streaming (ClientConfig(streaming=False))
  stream     one message, streaming (the SDK falls back to send when the
             card denies streaming)
  retry      one message object sent twice (non-streaming); the task ids
             come back as pages
  get ID     GetTask
  cancel ID  CancelTask
  subscribe ID  SubscribeToTask, read to the end of the stream; with
             skill=SKILL instead of an id, a task of that skill is started
             first (ReturnImmediately)
  list       ListTasks, pageSize 1, following nextPageToken for <= 5 pages
  lifecycle  the honest lifecycle (see lifecycle()); arg is
             "<slow skill id>,<input skill id>"
  push       a webhook on 127.0.0.1:0 in this process, registered with
             CreateTaskPushConfig (see push()); arg is the input skill id

The process exits non-zero only when it cannot run at all.
"""

import asyncio
import importlib.metadata
import json
import sys
import uuid

import httpx
import jwt
from google.protobuf.json_format import MessageToDict

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    ListTasksRequest,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.proto_utils import parse_lenient
from a2a.utils.signing import create_signature_verifier

KINDS = {
    "task": "task",
    "message": "message",
    "status_update": "statusUpdate",
    "artifact_update": "artifactUpdate",
}


def describe_error(e):
    return {"name": type(e).__name__, "message": str(e)}


def text_of(parts):
    return "".join(p.text for p in parts if p.HasField("text"))


def summarise_task(t):
    if t is None:
        return {"state": "NO_TASK"}
    return {
        "id": t.id,
        "contextId": t.context_id,
        "state": TaskState.Name(t.status.state),
        "artifacts": len(t.artifacts),
        "artifactText": "".join(text_of(a.parts) for a in t.artifacts),
        "statusText": text_of(t.status.message.parts),
        "history": len(t.history),
    }


def summarise_event(ev):
    kind = ev.WhichOneof("payload")
    out = {"kind": KINDS.get(kind, str(kind))}
    if kind == "task":
        out.update(taskId=ev.task.id, state=TaskState.Name(ev.task.status.state))
    elif kind == "status_update":
        out.update(taskId=ev.status_update.task_id, state=TaskState.Name(ev.status_update.status.state))
    elif kind == "artifact_update":
        out.update(taskId=ev.artifact_update.task_id)
    return out


def message(text, task_id="", context_id="", skill=""):
    m = new_text_message(text, role=Role.ROLE_USER, task_id=task_id or None, context_id=context_id or None)
    m.message_id = f"py-{uuid.uuid4()}"
    if skill:
        m.metadata.update({"skillId": skill})
    return m


async def connect(job, streaming=True, verifier=None):
    """Resolves the card (as create_client(url) does) and makes a client
    forced onto the job's transport; returns the client and the card."""
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, job["url"]).get_agent_card(signature_verifier=verifier)
    grpc_options = {}
    if job["transport"] == "GRPC":
        # The SDK's gRPC transport (grpcio), on the plain h2c channel the
        # mock serves.
        import grpc

        grpc_options = {"grpc_channel_factory": grpc.aio.insecure_channel}
    config = ClientConfig(streaming=streaming, supported_protocol_bindings=[job["transport"]], **grpc_options)
    return await create_client(card, client_config=config), card


async def send_task(client, msg, return_immediately=False):
    """Sends msg and returns the task of the (single) answer event."""
    req = SendMessageRequest(message=msg)
    req.configuration.return_immediately = return_immediately
    task = None
    async for ev in client.send_message(req):
        if ev.HasField("task"):
            task = ev.task
    return task


async def drain(stream, out):
    out["events"] = []
    async for ev in stream:
        out["events"].append(summarise_event(ev))
    out["ended"] = True


def key_provider(kid, jku):
    """Fetches the signing key by kid from the JWKS at jku, as PyJWT does."""
    if not jku:
        raise jwt.PyJWKClientError("signature has no jku")
    return jwt.PyJWKClient(jku, cache_keys=False, timeout=2).get_signing_key(kid)


async def probe(job, out):
    action, arg = job["action"], job.get("arg", "")
    verifier = create_signature_verifier(key_provider, ["EdDSA"]) if action in ("verify", "extended") else None
    client, card = await connect(job, streaming=action not in ("send", "retry"), verifier=verifier)
    try:
        out["card"] = {"streaming": card.capabilities.streaming, "signatures": len(card.signatures)}
        if action in ("card", "verify"):
            pass
        elif action == "extended":
            ext = await client.get_extended_agent_card(GetExtendedAgentCardRequest(), signature_verifier=verifier)
            out["extended"] = {"signatures": len(ext.signatures), "skills": len(ext.skills)}
        elif action == "send":
            out["result"] = summarise_task(await send_task(client, message("probe")))
        elif action == "stream":
            await drain(client.send_message(SendMessageRequest(message=message("probe"))), out)
        elif action == "subscribe":
            if arg.startswith("skill="):
                # Start a task of that skill first, so its clock starts
                # after this interpreter's (slow) start-up.
                unary, _ = await connect(job, streaming=False)
                try:
                    req = message("run on", skill=arg.removeprefix("skill="))
                    arg = (await send_task(unary, req, return_immediately=True)).id
                finally:
                    await unary.close()
            await drain(client.subscribe(SubscribeToTaskRequest(id=arg)), out)
        elif action == "retry":
            m = message("probe")
            a = await send_task(client, m)
            b = await send_task(client, m)
            out["pages"] = [[a.id], [b.id]]
        elif action == "get":
            out["result"] = summarise_task(await client.get_task(GetTaskRequest(id=arg)))
        elif action == "cancel":
            out["result"] = summarise_task(await client.cancel_task(CancelTaskRequest(id=arg)))
        elif action == "list":
            out["pages"] = []
            token = ""
            while True:
                page = await client.list_tasks(ListTasksRequest(page_size=1, page_token=token))
                out["pages"].append([t.id for t in page.tasks])
                token = page.next_page_token
                if not token or len(out["pages"]) >= 5:
                    break
        elif action in ("lifecycle", "push"):
            # A second client, non-streaming, for the unary sends.
            unary, _ = await connect(job, streaming=False)
            try:
                if action == "lifecycle":
                    await lifecycle(client, unary, out, *arg.split(","))
                else:
                    await push(client, unary, out, arg)
            finally:
                await unary.close()
        else:
            raise SystemExit(f"unknown action {action}")
    finally:
        await client.close()


async def lifecycle(client, unary, out, slow_skill, input_skill):
    """The honest lifecycle on one client: every step's outcome, or its error."""
    out["failures"] = []

    async def step(name, fn):
        try:
            out[name] = await fn()
        except Exception as e:  # noqa: BLE001 - recorded for the Go test
            out["failures"].append({"step": name, **describe_error(e)})

    async def send():
        return summarise_task(await send_task(unary, message("hello from python")))

    async def stream():
        got = {}
        await drain(client.send_message(SendMessageRequest(message=message("stream from python"))), got)
        return got

    async def get():
        t = await client.get_task(GetTaskRequest(id=out["send"]["id"], history_length=10))
        return summarise_task(t)

    async def list_all():
        first = await client.list_tasks(ListTasksRequest(page_size=1))
        pages, token = [[t.id for t in first.tasks]], first.next_page_token
        while token and len(pages) < 10:
            nxt = await client.list_tasks(ListTasksRequest(page_size=1, page_token=token))
            pages.append([t.id for t in nxt.tasks])
            token = nxt.next_page_token
        return {"totalSize": first.total_size, "pages": pages}

    async def subscribe():
        started = await send_task(unary, message("run on", skill=slow_skill), return_immediately=True)
        events = []
        async for ev in client.subscribe(SubscribeToTaskRequest(id=started.id)):
            events.append(summarise_event(ev))
            if len(events) == 1:
                # Cancel from outside while subscribed: the stream must
                # carry the canceled state and end.
                await client.cancel_task(CancelTaskRequest(id=started.id))
        return {"taskId": started.id, "stateBefore": TaskState.Name(started.status.state), "events": events}

    async def cancel():
        started = await send_task(unary, message("cancel me", skill=slow_skill), return_immediately=True)
        canceled = await client.cancel_task(CancelTaskRequest(id=started.id))
        after = await client.get_task(GetTaskRequest(id=started.id))
        return {
            "taskId": started.id,
            "stateBefore": TaskState.Name(started.status.state),
            "state": TaskState.Name(canceled.status.state),
            "stateAfter": TaskState.Name(after.status.state),
        }

    async def input_required():
        first = await send_task(unary, message("start something", skill=input_skill))
        reply = await send_task(unary, message("the blue one", task_id=first.id, context_id=first.context_id))
        return {"first": summarise_task(first), "reply": summarise_task(reply)}

    for name, fn in [
        ("send", send),
        ("stream", stream),
        ("get", get),
        ("list", list_all),
        ("subscribe", subscribe),
        ("cancel", cancel),
        ("inputRequired", input_required),
    ]:
        await step(name, fn)

    out["errors"] = {}
    sent = out.get("send", {}).get("id", "missing")
    for name, call in [
        ("getUnknown", lambda: client.get_task(GetTaskRequest(id="no-such-task"))),
        ("cancelTerminal", lambda: client.cancel_task(CancelTaskRequest(id=sent))),
        ("sendToTerminal", lambda: send_task(unary, message("again", task_id=sent))),
    ]:
        try:
            await call()
            out["errors"][name] = {"name": "none", "message": ""}
        except Exception as e:  # noqa: BLE001
            out["errors"][name] = describe_error(e)


async def push(client, unary, out, input_skill):
    """Registers a webhook served here, continues the task, and reports each
    notification as a receiver would see it: which token headers it carried, its
    Content-Type, and what the SDK's own decoder (parse_lenient into a
    StreamResponse, as the SDK's client transports decode events) made of
    the body.
    """
    got = []
    arrived = asyncio.Event()

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            note = {
                "tokens": {
                    h: headers[h]
                    for h in ("x-a2a-notification-token", "a2a-notification-token", "authorization")
                    if h in headers
                },
                "contentType": headers.get("content-type", ""),
            }
            try:
                ev = parse_lenient(body.decode("utf-8"), StreamResponse())
                note["decoded"] = summarise_event(ev) if ev.WhichOneof("payload") else {"kind": "none"}
            except Exception as e:  # noqa: BLE001
                note["decodeError"] = describe_error(e)
            got.append(note)
            arrived.set()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        first = await send_task(unary, message("watch this", skill=input_skill))
        cfg = TaskPushNotificationConfig(
            task_id=first.id,
            id="hook",
            url=f"http://127.0.0.1:{port}/hook",
            token="tok-py",
        )
        await client.create_task_push_notification_config(cfg)
        done = await send_task(unary, message("here is more", task_id=first.id, context_id=first.context_id))
        out["result"] = summarise_task(done)
        # The mock delivers asynchronously: wait for the terminal push.
        for _ in range(50):
            if any(n.get("decoded", {}).get("state") == "TASK_STATE_COMPLETED" for n in got):
                break
            arrived.clear()
            try:
                await asyncio.wait_for(arrived.wait(), 0.1)
            except TimeoutError:
                pass
        out["pushes"] = got
    finally:
        server.close()
        await server.wait_closed()


async def run(job, slots):
    out = {"transport": job["transport"], "action": job["action"]}
    async with slots:
        try:
            async with asyncio.timeout(job.get("timeoutMs", 10000) / 1000):
                await probe(job, out)
        except Exception as e:  # noqa: BLE001 - what the SDK raised is the result
            out["error"] = describe_error(e)
    return out


async def main():
    jobs = json.load(sys.stdin)
    # A few jobs at a time: each job's bound counts from its own start, and
    # one event loop on a loaded machine must not eat the bounds of all.
    slots = asyncio.Semaphore(4)
    results = await asyncio.gather(*(run(j, slots) for j in jobs))
    doc = {"sdk": importlib.metadata.version("a2a-sdk"), "results": results}
    sys.stdout.write(json.dumps(doc) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
