// An A2A client on the official JavaScript SDK (@a2a-js/sdk), written as a
// typical user would.
//
// It implements the a2amock conform client contract (docs/conformance.md) the
// plain way: create a client from the agent's URL with ClientFactory, stream
// the prompt, answer input-required once, bound the whole run by the
// deadline (cancelling the task when it passes) and print one outcome line.
// It does no checks of its own beyond what the SDK does; the scorecard shows
// what that misses.
//
//   a2amock conform --client 'node conformance/clients/js-a2a-sdk/client.mjs'
//
// With --grpc it prefers the SDK's gRPC transport (on @grpc/grpc-js) where the
// card declares it, as a user of that transport would (a2amock conform --grpc
// serves it):
//
//   a2amock conform --grpc --client 'node conformance/clients/js-a2a-sdk/client.mjs --grpc'

import { randomUUID } from "node:crypto";
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";

const OUTCOMES = {
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

const url = process.env.A2A_AGENT_URL;
const deadlineMs = Number(process.env.A2AMOCK_DEADLINE_MS || 30000);
const prompt = process.env.A2AMOCK_PROMPT || "hello";
const input = process.env.A2AMOCK_INPUT || "yes";
const grpc = process.argv.slice(2).includes("--grpc");

const message = (text, ids = {}) => ({
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text } }],
    taskId: ids.taskId ?? "",
    contextId: ids.contextId ?? "",
    // The SDK's message type declares these; its gRPC serializer needs them.
    extensions: [],
    referenceTaskIds: [],
  },
});

const signal = AbortSignal.timeout(deadlineMs);

// send sends a message and follows what comes back until the stream ends.
async function send(client, run, request) {
  for await (const event of client.sendMessageStream(request, { signal })) {
    const { $case, value } = event.payload ?? {};
    if ($case === "task") {
      run.taskId ||= value.id;
      run.contextId = value.contextId;
      run.state = value.status?.state;
    } else if ($case === "statusUpdate") {
      run.state = value.status?.state;
    } else if ($case === "message") {
      // The agent answered with a message instead of a task.
      run.state = TaskState.TASK_STATE_COMPLETED;
    }
  }
}

// wait polls the task until it is done or asks for something.
async function wait(client, run) {
  while (!(run.state in OUTCOMES)) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const task = await client.getTask({ id: run.taskId, tenant: "" }, { signal });
    run.state = task.status?.state;
  }
}

// factory is the SDK's client factory, presenting A2AMOCK_BEARER_TOKEN as a
// bearer token on every A2A call when the run gives one. With --grpc the
// gRPC transport comes first; its token travels as call metadata, set by an
// interceptor (grpc-js refuses call credentials on an insecure channel).
async function factory() {
  const token = process.env.A2AMOCK_BEARER_TOKEN;
  if (grpc) {
    const { GrpcTransportFactory } = await import("@a2a-js/sdk/client/grpc");
    const bearer = {
      async before(args) {
        args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${token}` } };
      },
      async after() {},
    };
    return new ClientFactory({
      transports: [new GrpcTransportFactory(), new JsonRpcTransportFactory(), new RestTransportFactory()],
      preferredTransports: ["GRPC"],
      clientConfig: token ? { interceptors: [bearer] } : undefined,
    });
  }
  if (!token) return new ClientFactory();
  const fetchImpl = (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
  });
}

// drive runs the task on one agent and says how it ended.
async function drive(url) {
  const run = { taskId: "", contextId: "", state: TaskState.TASK_STATE_UNSPECIFIED };
  const result = { outcome: "error", taskId: "", detail: "" };
  let client;
  try {
    // createFromUrl(url) resolves "/.well-known/agent-card.json" against the
    // host's root, which loses an agent's path (/agents/name): give it the
    // whole card URL, as the SDK's README shows.
    client = await (await factory()).createFromUrl(`${url}/.well-known/agent-card.json`, "");
    await send(client, run, message(prompt));
    await wait(client, run);
    if (run.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      await send(client, run, message(input, run));
      await wait(client, run);
      if (run.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        await client.cancelTask({ id: run.taskId, tenant: "" });
      }
    }
    result.outcome = OUTCOMES[run.state];
  } catch (e) {
    if (signal.aborted) {
      result.outcome = "timeout";
      result.detail = `no answer within ${deadlineMs}ms`;
      if (client && run.taskId) {
        try {
          await client.cancelTask({ id: run.taskId, tenant: "" });
        } catch (err) {
          result.detail += `; cancel failed: ${err}`;
        }
      }
    } else {
      result.detail = String(e?.stack ?? e);
    }
  }
  result.taskId = run.taskId;
  return result;
}

const urls = process.env.A2A_AGENT_URLS ? process.env.A2A_AGENT_URLS.split(",") : [url];
// Every agent at once; the outcome is the first one that did not complete.
const results = await Promise.all(urls.map(drive));
console.log(JSON.stringify(results.find((r) => r.outcome !== "completed") ?? results[0]));
