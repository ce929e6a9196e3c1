// Drives the @a2a-js/sdk client against an A2A agent and prints, as one JSON
// document on stdout, what it observed: task ids, the states it saw in order,
// artifacts, and the errors the SDK raised (by their class name).
//
// Usage: node client.mjs <agent-base-url> [--slow-skill ID] [--input-skill ID] [--grpc] [--legacy]
//
// The agent is discovered from its card with ClientFactory.createFromUrl, once
// per v1.0 transport (JSON-RPC, then HTTP+JSON, then with --grpc gRPC on
// @grpc/grpc-js), each time with a factory that knows only that transport so
// the SDK cannot fall back to another one.
// --slow-skill names a skill that stays working until canceled (so cancel and
// resubscribe do not race the lifecycle); --input-skill one that parks in
// input-required. Every step catches its own failure and reports it under
// "failures", so one broken call does not hide what the others saw; the
// process exits non-zero only when it cannot run at all.

import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  taskStateToJSON,
} from "@a2a-js/sdk";

const args = process.argv.slice(2);
const baseUrl = args.find((a) => !a.startsWith("--"));
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
if (!baseUrl) {
  console.error("usage: node client.mjs <agent-base-url> [--slow-skill ID] [--input-skill ID] [--grpc] [--legacy]");
  process.exit(2);
}
const slowSkill = flag("--slow-skill");
const inputSkill = flag("--input-skill");
const grpc = args.includes("--grpc");
// --legacy: the agent's card is v0.3; the SDK's v0.3 compatibility layer
// (legacyCompat on the card resolver and the factories) translates it and
// picks the v0.3 transports. v0.3 has no tasks/list, so that step is left
// out.
const legacy = args.includes("--legacy");
const compat = legacy ? { legacyCompat: { enabled: true } } : undefined;

// Every call gets a bound, so a stream that never ends fails the step
// instead of hanging the Go test.
const callTimeoutMs = 15000;
const opts = () => ({ signal: AbortSignal.timeout(callTimeoutMs) });

let seq = 0;
const message = (text, extra = {}) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: `js-${process.pid}-${++seq}`,
      role: "ROLE_USER",
      parts: [{ text }],
      ...extra.message,
    },
    ...(extra.configuration ? { configuration: extra.configuration } : {}),
  });

// Requests are built from their ProtoJSON form with the SDK's own fromJSON,
// so every field has the default the SDK's serialiser expects (a plain
// object without "status" would be sent as status "UNRECOGNIZED").
const getReq = (json) => GetTaskRequest.fromJSON(json);
const listReq = (json) => ListTasksRequest.fromJSON(json);
const cancelReq = (json) => CancelTaskRequest.fromJSON(json);
const subReq = (json) => SubscribeToTaskRequest.fromJSON(json);

const stateName = (s) => (s === undefined ? undefined : taskStateToJSON(s));

const summariseTask = (t) => ({
  taskId: t.id,
  contextId: t.contextId,
  state: stateName(t.status?.state),
  artifacts: (t.artifacts ?? []).length,
  artifactText: (t.artifacts ?? [])
    .flatMap((a) => a.parts ?? [])
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join(""),
  statusText: (t.status?.message?.parts ?? [])
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join(""),
});

const summariseEvent = (ev) => {
  const c = ev.payload?.$case;
  const v = ev.payload?.value;
  switch (c) {
    case "task":
      return { kind: c, taskId: v.id, state: stateName(v.status?.state) };
    case "statusUpdate":
      return { kind: c, taskId: v.taskId, state: stateName(v.status?.state) };
    case "artifactUpdate":
      return { kind: c, taskId: v.taskId, artifactId: v.artifact?.artifactId, lastChunk: !!v.lastChunk };
    case "message":
      return { kind: c, messageId: v.messageId };
    default:
      return { kind: String(c) };
  }
};

const describeError = (e) => ({
  name: e?.name ?? typeof e,
  message: String(e?.message ?? e),
  code: e?.envelopeCode ?? e?.status,
});

async function drain(stream) {
  const events = [];
  for await (const ev of stream) events.push(summariseEvent(ev));
  return { events, ended: true };
}

async function run(protocol, makeFactory) {
  const out = { transport: protocol, failures: [] };
  const step = async (name, fn) => {
    try {
      out[name] = await fn();
    } catch (e) {
      out.failures.push({ step: name, ...describeError(e) });
    }
  };

  const factory = new ClientFactory({
    transports: [makeFactory()],
    preferredTransports: [protocol],
    ...(legacy ? { cardResolver: new DefaultAgentCardResolver(compat) } : {}),
  });
  let client;
  try {
    client = await factory.createFromUrl(baseUrl);
  } catch (e) {
    out.failures.push({ step: "discover", ...describeError(e) });
    return out;
  }
  out.protocolVersion = legacy ? client.transport.protocolVersion : client.protocolVersion;
  out.transportName = client.transport.protocolName;

  await step("send", async () => summariseTask(await client.sendMessage(message("hello from js"), opts())));

  await step("stream", async () => drain(client.sendMessageStream(message("stream from js"), opts())));

  await step("get", async () => {
    const t = await client.getTask(getReq({ id: out.send.taskId, historyLength: 10 }), opts());
    return { ...summariseTask(t), history: (t.history ?? []).length };
  });

  if (!legacy) await step("list", async () => {
    const first = await client.listTasks(listReq({ pageSize: 1 }), opts());
    const pages = [first.tasks.map((t) => t.id)];
    let token = first.nextPageToken;
    while (token && pages.length < 50) {
      const next = await client.listTasks(listReq({ pageSize: 1, pageToken: token }), opts());
      pages.push(next.tasks.map((t) => t.id));
      token = next.nextPageToken;
    }
    return { totalSize: first.totalSize, pages };
  });

  const slow = slowSkill ? { metadata: { skillId: slowSkill } } : {};
  await step("resubscribe", async () => {
    const started = await client.sendMessage(
      message("run on", { message: slow, configuration: { returnImmediately: true } }),
      opts(),
    );
    // Read the snapshot the re-attached stream starts with, then leave:
    // the slow task never ends by itself.
    const events = [];
    for await (const ev of client.resubscribeTask(subReq({ id: started.id }), opts())) {
      events.push(summariseEvent(ev));
      break;
    }
    return { taskId: started.id, stateBefore: stateName(started.status?.state), events };
  });

  await step("cancel", async () => {
    const started = await client.sendMessage(
      message("cancel me", { message: slow, configuration: { returnImmediately: true } }),
      opts(),
    );
    const canceled = await client.cancelTask(cancelReq({ id: started.id }), opts());
    const after = await client.getTask(getReq({ id: started.id }), opts());
    return {
      taskId: started.id,
      stateBefore: stateName(started.status?.state),
      state: stateName(canceled.status?.state),
      stateAfter: stateName(after.status?.state),
    };
  });

  if (inputSkill) {
    await step("inputRequired", async () => {
      const first = await client.sendMessage(
        message("start something", { message: { metadata: { skillId: inputSkill } } }),
        opts(),
      );
      const reply = await client.sendMessage(
        message("the blue one", { message: { taskId: first.id, contextId: first.contextId } }),
        opts(),
      );
      return { first: summariseTask(first), reply: summariseTask(reply) };
    });
  }

  // Errors: the SDK turns the agent's error into its own typed class.
  out.errors = {};
  const expectError = async (name, fn) => {
    try {
      await fn();
      out.errors[name] = { name: "none" };
    } catch (e) {
      out.errors[name] = describeError(e);
    }
  };
  await expectError("getUnknown", () => client.getTask(getReq({ id: "no-such-task" }), opts()));
  await expectError("cancelTerminal", () => client.cancelTask(cancelReq({ id: out.send?.taskId ?? "missing" }), opts()));
  await expectError("sendToTerminal", () =>
    client.sendMessage(message("again", { message: { taskId: out.send?.taskId ?? "missing" } }), opts()),
  );
  return out;
}

const runs = [
  await run("JSONRPC", () => new JsonRpcTransportFactory(compat)),
  await run("HTTP+JSON", () => new RestTransportFactory(compat)),
];
if (grpc) {
  // Imported only here: the gRPC transport needs its optional peers.
  const { GrpcTransportFactory } = await import("@a2a-js/sdk/client/grpc");
  // With --legacy the factory dispatches a v0.3 interface to its
  // LegacyGrpcTransport (the v0.3 proto's a2a.v1.A2AService).
  runs.push(await run("GRPC", () => new GrpcTransportFactory(compat)));
}
const summary = { sdk: "@a2a-js/sdk", baseUrl, runs };
process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
