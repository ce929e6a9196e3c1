"""A gRPC client under test: the official a2a-sdk over its gRPC transport.

The session's server serves HTTP only; a module that tests a gRPC client
overrides ``a2amock_server`` with a server started with ``--grpc``. Every
agent of the test then declares a GRPC interface in its card (the server's
host:port, the agent's name as tenant), the SDK puts the tenant in each
request, and the calls reach the test's own agent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest
from a2a.client import ClientConfig, create_client
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState
from a2a.utils.constants import TransportProtocol

from a2amock import Mock, Server


@pytest.fixture(scope="module")
def a2amock_server() -> Iterator[Server]:
    with Server.start(args=["--grpc"]) as server:
        yield server


async def send(client, text: str) -> int:
    state = TaskState.TASK_STATE_UNSPECIFIED
    async for event in client.send_message(SendMessageRequest(message=new_text_message(text, role=Role.ROLE_USER))):
        if event.HasField("task"):
            state = event.task.status.state
        elif event.HasField("status_update"):
            state = event.status_update.status.state
    return state


async def send_twice(url: str) -> tuple[str, int]:
    """Sends over gRPC only; the first send fails, the second is sent again
    as a user's retry would. Returns the first error and the second state."""
    config = ClientConfig(supported_protocol_bindings=[TransportProtocol.GRPC],
                          grpc_channel_factory=grpc.aio.insecure_channel)
    client = await create_client(url, client_config=config)
    try:
        try:
            await send(client, "first try")
            first = ""
        except Exception as e:  # noqa: BLE001
            first = repr(e)
        return first, await send(client, "second try")
    finally:
        await client.close()


def test_grpc_client_retries_after_unavailable(a2amock: Mock) -> None:
    a2amock.set_behaviors(None, ["http-error:status=503,op=send|stream,call=1"])
    card = a2amock.card()
    grpc_ifaces = [i for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC"]
    assert [(i["url"], i["tenant"]) for i in grpc_ifaces] == [(a2amock.server.grpc_target, a2amock.agent().server_name)]

    first, second = asyncio.run(send_twice(a2amock.url))
    assert "UNAVAILABLE" in first.upper(), first
    assert second == TaskState.TASK_STATE_COMPLETED

    requests = a2amock.journal(kind="request")
    assert [(e.binding, e.method) for e in requests] == [("GRPC", "SendStreamingMessage")] * 2
    a2amock.assert_no_orphans()
    a2amock.assert_used_declared_interface()
