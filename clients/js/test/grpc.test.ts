// A gRPC client under test: the official @a2a-js/sdk over its gRPC transport
// (@grpc/grpc-js).
//
// The file's server is started with --grpc. Every agent of the test then
// declares a GRPC interface in its card (the server's host:port, the agent's
// name as tenant), the SDK puts the tenant in each request, and the calls
// reach the test's own agent.

import { randomUUID } from "node:crypto";

import { ClientFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { Role, TaskState } from "@a2a-js/sdk";
import { expect, test } from "vitest";

import { useA2amock } from "a2amock/vitest";

const mock = useA2amock({ args: ["--grpc"] });

const message = (text: string) => ({
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text } }],
    taskId: "",
    contextId: "",
    // The SDK's message type declares these; its gRPC serializer needs them.
    extensions: [],
    referenceTaskIds: [],
  },
});

// grpcClient is the SDK's client over gRPC only, from the agent's card.
async function grpcClient(cardUrl: string) {
  return new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(cardUrl, "");
}

// send streams a message and returns the last state the agent gave it.
async function send(c: Awaited<ReturnType<typeof grpcClient>>, text: string): Promise<TaskState> {
  let state = TaskState.TASK_STATE_UNSPECIFIED;
  for await (const event of c.sendMessageStream(message(text) as any)) {
    const { $case, value } = (event as any).payload ?? {};
    if ($case === "task") state = value.status?.state;
    else if ($case === "statusUpdate") state = value.status?.state;
  }
  return state;
}

test("a gRPC client retries after UNAVAILABLE and completes, on the test's own agent", async () => {
  const m = mock();
  await m.setBehaviors(undefined, ["http-error:status=503,op=send|stream,call=1"]);
  const card = await m.card();
  const grpc = card.supportedInterfaces.filter((i: any) => i.protocolBinding === "GRPC");
  expect(grpc.map((i: any) => [i.url, i.tenant])).toEqual([[m.server.grpcTarget, m.agent().serverName]]);

  const c = await grpcClient(m.agent().cardUrl);
  // The first send is refused: a 503 reaches a gRPC client as UNAVAILABLE.
  await expect(send(c, "first try")).rejects.toThrow(/\b14\b|UNAVAILABLE/i);
  // The user's retry completes.
  expect(await send(c, "second try")).toBe(TaskState.TASK_STATE_COMPLETED);

  const requests = await m.journal({ kind: "request" });
  expect(requests.map((e) => [e.binding, e.method])).toEqual([["GRPC", "SendStreamingMessage"], ["GRPC", "SendStreamingMessage"]]);
  await m.assertNoOrphans();
  await m.assertUsedDeclaredInterface();
});
