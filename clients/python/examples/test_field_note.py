"""The field note, with the official Python a2a-sdk as the client under test.

Worker 3 of the field-note scenario asks for input, then answers the
client's follow-up (same taskId) with a brand-new task, leaving the original
task working for ever. A client written the naive way follows the new task to
completion and leaves the original as an orphan; a client written the robust
way notices that the answer is for another task and cancels the one it
abandons. a2amock's journal shows the difference, and assert_no_orphans says
it in one message.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.client import ClientConfig, create_client
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest, Role, SendMessageRequest, TaskState

from a2amock import Mock

FIELD_NOTE = Path(__file__).resolve().parents[3] / "examples" / "incidents" / "three-worker-incident.yaml"
DONE = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED}


async def send(client, message) -> tuple[str, str, int]:
    """Sends a message (a blocking SendMessage) and returns the task id,
    context id and state of the answer."""
    task_id, context_id, state = "", "", TaskState.TASK_STATE_UNSPECIFIED
    async for event in client.send_message(SendMessageRequest(message=message)):
        if event.HasField("task"):
            task_id, context_id, state = event.task.id, event.task.context_id, event.task.status.state
    return task_id, context_id, state


async def wait(client, task_id: str, state: int, timeout: float) -> int:
    """Polls the task until it is done or asks for something, within timeout."""
    deadline = asyncio.get_running_loop().time() + timeout
    while state not in DONE and state != TaskState.TASK_STATE_INPUT_REQUIRED:
        if asyncio.get_running_loop().time() >= deadline:
            raise TimeoutError(f"task {task_id} still {TaskState.Name(state)} after {timeout}s")
        await asyncio.sleep(0.05)
        state = (await client.get_task(GetTaskRequest(id=task_id))).status.state
    return state


async def naive_client(url: str) -> tuple[str, int]:
    """Asks for the report and, as the card says the intake skill needs the
    account, sends it as a follow-up to the task. Whatever task the answer
    names is "the" task, and working means the agent will get back to us."""
    client = await create_client(url, client_config=ClientConfig(streaming=False))
    try:
        task_id, context_id, _ = await send(client, new_text_message("monthly report", role=Role.ROLE_USER))
        answered, _, state = await send(client, new_text_message(
            "account 42", role=Role.ROLE_USER, task_id=task_id, context_id=context_id))
        return answered, state
    finally:
        await client.close()


async def robust_client(url: str, deadline: float = 0.5) -> tuple[str, int]:
    """The same, but an answer that names another task than the one the
    follow-up continued means the agent dropped ours: cancel it rather than
    leave it running. Every wait has a deadline, and a task still running
    past it is canceled, not abandoned."""
    client = await create_client(url, client_config=ClientConfig(streaming=False))
    try:
        task_id, context_id, _ = await send(client, new_text_message("monthly report", role=Role.ROLE_USER))
        answered, _, state = await send(client, new_text_message(
            "account 42", role=Role.ROLE_USER, task_id=task_id, context_id=context_id))
        if answered != task_id:
            await client.cancel_task(CancelTaskRequest(id=task_id))
        try:
            state = await wait(client, answered, state, deadline)
        except TimeoutError:
            state = (await client.cancel_task(CancelTaskRequest(id=answered))).status.state
        return answered, state
    finally:
        await client.close()


@pytest.fixture
def worker3(a2amock: Mock) -> str:
    return a2amock.add_agent("worker-3", scenario=FIELD_NOTE, scenario_agent="worker-3").url


def test_naive_client_leaves_an_orphan(a2amock: Mock, worker3: str) -> None:
    answered, state = asyncio.run(naive_client(worker3))
    assert state == TaskState.TASK_STATE_WORKING
    original = a2amock.journal("worker-3", kind="response")[0].task_id
    assert answered != original, "the agent answered the follow-up with a new task"
    with pytest.raises(AssertionError) as failure:
        a2amock.assert_no_orphans()
    agent = a2amock.agent("worker-3").server_name
    declared = "\tdeclared:   every task the client creates ends terminal or is canceled by the client\n"
    observed = "\tobserved:   last state working (submitted → working), never canceled"
    assert str(failure.value) == (
        "2 orphaned task(s):\n"
        f'task "{original}" (agent {agent}): orphaned\n'
        "\tclient did: created it with message/send ×1, message/send (continuation) ×1\n" + declared + observed + "\n"
        f'task "{answered}" (agent {agent}): orphaned\n'
        "\tclient did: created it with message/send ×1\n" + declared + observed)
    with pytest.raises(AssertionError, match="not canceled by the client"):
        a2amock.assert_canceled(original)


def test_robust_client_leaves_no_orphan(a2amock: Mock, worker3: str) -> None:
    answered, state = asyncio.run(robust_client(worker3))
    assert state == TaskState.TASK_STATE_CANCELED
    a2amock.assert_no_orphans()
    original = a2amock.journal("worker-3", kind="response")[0].task_id
    a2amock.assert_canceled(original)
    a2amock.assert_canceled(answered)
    a2amock.assert_no_continuation_to(original)
    a2amock.assert_stopped_polling_within(answered, 2.0)
    a2amock.assert_used_declared_interface("worker-3")
