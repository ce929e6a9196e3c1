// The field note, with the official @a2a-js/sdk as the client under test.
//
// Worker 3 of the field-note scenario stops at working and answers the
// client's follow-up (same taskId) with a brand-new task that stops at working
// too. A client written the naive way takes the new task as "the" task and
// leaves both running; a client written the robust way notices the answer is
// for another task, cancels the one it abandons and cancels the new one when
// its deadline passes. assertNoOrphans says which in one message.

import { randomUUID } from "node:crypto";

import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";
import { expect, test } from "vitest";

import { useA2amock } from "a2amock/vitest";

const mock = useA2amock();

const DONE = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

const message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text } }],
    taskId: ids.taskId ?? "",
    contextId: ids.contextId ?? "",
  },
});

async function client(cardUrl: string) {
  return new ClientFactory().createFromUrl(cardUrl, "");
}

// send sends a blocking SendMessage and returns the task it answered with.
async function send(c: Awaited<ReturnType<typeof client>>, req: ReturnType<typeof message>) {
  const res: any = await c.sendMessage({ ...req, configuration: undefined } as any);
  if (!res?.status) throw new Error(`expected a task, got ${JSON.stringify(res)}`);
  return { id: res.id as string, contextId: res.contextId as string, state: res.status.state as TaskState };
}

// naive asks, sends the account as a follow-up to the task (the card says the
// skill needs it), and takes whatever task the answer names as "the" task.
async function naive(cardUrl: string) {
  const c = await client(cardUrl);
  const first = await send(c, message("monthly report"));
  return send(c, message("account 42", { taskId: first.id, contextId: first.contextId }));
}

// robust does the same but cancels the task the agent dropped, and cancels
// the new one when its deadline passes instead of abandoning it.
async function robust(cardUrl: string, deadlineMs = 500) {
  const c = await client(cardUrl);
  const first = await send(c, message("monthly report"));
  const answer = await send(c, message("account 42", { taskId: first.id, contextId: first.contextId }));
  if (answer.id !== first.id) await c.cancelTask({ id: first.id, tenant: "" });
  let state = answer.state;
  const deadline = Date.now() + deadlineMs;
  while (!DONE.has(state) && state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
    if (Date.now() >= deadline) {
      state = (await c.cancelTask({ id: answer.id, tenant: "" })).status!.state;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
    state = (await c.getTask({ id: answer.id, tenant: "" })).status!.state;
  }
  return { id: answer.id, state };
}

// Worker 3 of examples/incidents/three-worker-incident.yaml, with its card in
// A2A 1.0 (the field note's is 0.3, which @a2a-js/sdk 1.3.0 does not speak).
async function worker3() {
  return mock().addAgent("worker-3", {
    card: {
      name: "Intake worker 3",
      capabilities: { streaming: true },
      skills: [{ id: "intake", name: "Intake", inputModes: ["text/plain"], needsInput: true,
        inputPrompt: "Which account should the report cover?", estimatedDuration: "2s" }],
    },
    behaviors: ["new-task-id-on-continuation:unless-metadata=tenant"],
  });
}

test("the naive client leaves two orphans, and assertNoOrphans says so", async () => {
  const w = await worker3();
  const answer = await naive(w.cardUrl);
  expect(answer.state).toBe(TaskState.TASK_STATE_WORKING);
  const original = (await mock().journal({ agent: "worker-3", kind: "response" }))[0].taskId!;
  expect(answer.id).not.toBe(original);

  const declared = "\tdeclared:   every task the client creates ends terminal or is canceled by the client\n";
  const observed = "\tobserved:   last state working (submitted → working), never canceled";
  await expect(mock().assertNoOrphans()).rejects.toThrow(
    "2 orphaned task(s):\n" +
      `task "${original}" (agent ${w.serverName}): orphaned\n` +
      "\tclient did: created it with SendMessage ×1, SendMessage (continuation) ×1\n" + declared + observed + "\n" +
      `task "${answer.id}" (agent ${w.serverName}): orphaned\n` +
      "\tclient did: created it with SendMessage ×1\n" + declared + observed,
  );
  await expect(mock().assertCanceled(original)).rejects.toThrow("not canceled by the client");
});

test("the robust client leaves no orphan", async () => {
  const w = await worker3();
  const answer = await robust(w.cardUrl);
  expect(answer.state).toBe(TaskState.TASK_STATE_CANCELED);
  await mock().assertNoOrphans();
  const original = (await mock().journal({ agent: "worker-3", kind: "response" }))[0].taskId!;
  await mock().assertCanceled(original);
  await mock().assertCanceled(answer.id);
  await mock().assertNoContinuationTo(original);
  await mock().assertStoppedPollingWithin(answer.id, 2000);
  await mock().assertUsedDeclaredInterface("worker-3");
});
