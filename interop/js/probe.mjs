// Runs one @a2a-js/sdk client call against an A2A agent and prints, as one
// JSON line on stdout, what the SDK observed: the result or the stream's
// events, and the error it raised (class name and message). The behavior
// interop tests (behaviors_faults_test.go and friends) use it to record
// what the JS SDK does under each fault.
//
// Usage: node probe.mjs <agent-base-url> <JSONRPC|HTTP+JSON|GRPC> <action> [arg]
// (GRPC: the SDK's gRPC transport on @grpc/grpc-js, for a mock serving it;
// PROBE_LEGACY=1 for a v0.3 agent, over any of the three)
//
// Actions: verify (the card's signatures, with verifyAgentCardSignature),
// card (discover only), send, stream, retry (one message sent
// twice; the two task ids come back as pages), get <taskId>,
// list (follows nextPageToken for at most 5 pages of pageSize 1),
// subscribe <taskId>. The process exits non-zero only when it cannot run.

import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import {
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  taskStateToJSON,
  verifyAgentCardSignature,
} from "@a2a-js/sdk";

// The SDK's card verifier logs every rejected signature with
// console.debug, on stdout; keep stdout for the JSON result.
console.debug = () => {};

const [baseUrl, transport, action, arg] = process.argv.slice(2);
if (!baseUrl || !transport || !action) {
  console.error("usage: node probe.mjs <agent-base-url> <JSONRPC|HTTP+JSON|GRPC> <action> [arg]");
  process.exit(2);
}
const timeoutMs = Number(process.env.PROBE_TIMEOUT_MS ?? 5000);
// PROBE_LEGACY=1: the agent's card is v0.3; the SDK's v0.3 compatibility
// layer (legacyCompat on the card resolver and the transport factories)
// reads it and speaks v0.3 JSON-RPC, HTTP+JSON or gRPC.
const compat = process.env.PROBE_LEGACY === "1" ? { legacyCompat: { enabled: true } } : undefined;
const opts = () => ({ signal: AbortSignal.timeout(timeoutMs) });
const stateName = (s) => (s === undefined ? undefined : taskStateToJSON(s));

const summariseEvent = (ev) => {
  const c = ev.payload?.$case;
  const v = ev.payload?.value;
  switch (c) {
    case "task":
      return { kind: c, taskId: v.id, state: stateName(v.status?.state) };
    case "statusUpdate":
      return { kind: c, taskId: v.taskId, state: stateName(v.status?.state) };
    case "artifactUpdate":
      return { kind: c, taskId: v.taskId };
    case "message":
      return { kind: c };
    default:
      return { kind: String(c) };
  }
};
const describeError = (e) => ({ name: e?.name ?? typeof e, message: String(e?.message ?? e) });

const out = { transport, action };
if (action === "verify") {
  // Verify the card's signatures with the SDK, fetching keys the way the
  // SDK's documentation shows: the JWKS at the signature's jku, the key by
  // kid. No check of the jku's scheme or of a key's "exp": an application's
  // choice, not the SDK's.
  try {
    const res = await fetch(new URL(".well-known/agent-card.json", baseUrl.endsWith("/") ? baseUrl : baseUrl + "/"));
    const card = await res.json();
    out.signatures = (card.signatures ?? []).length;
    const verify = verifyAgentCardSignature(async (kid, jku) => {
      const r = await fetch(jku, { signal: AbortSignal.timeout(2000) });
      const set = await r.json();
      const key = (set.keys ?? []).find((k) => k.kid === kid);
      if (!key) throw new Error(`no key ${kid} at ${jku}`);
      return key;
    });
    await verify(card);
    out.result = { id: "verified", state: "VERIFIED" };
  } catch (e) {
    out.error = describeError(e);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(0);
}
try {
  const only = {
    JSONRPC: async () => new JsonRpcTransportFactory(compat),
    "HTTP+JSON": async () => new RestTransportFactory(compat),
    GRPC: async () => new (await import("@a2a-js/sdk/client/grpc")).GrpcTransportFactory(compat),
  }[transport];
  if (!only) throw new Error(`unknown transport ${transport}`);
  const factory = new ClientFactory({
    transports: [await only()],
    preferredTransports: [transport],
    ...(compat ? { cardResolver: new DefaultAgentCardResolver(compat) } : {}),
  });
  const client = await factory.createFromUrl(baseUrl);
  out.card = { streaming: !!client.agentCard?.capabilities?.streaming };
  const message = (text) =>
    SendMessageRequest.fromJSON({ message: { messageId: `probe-${crypto.randomUUID()}`, role: "ROLE_USER", parts: [{ text }] } });
  switch (action) {
    case "card":
      break;
    case "send": {
      const r = await client.sendMessage(message("probe"), opts());
      out.result = { id: r.id, state: stateName(r.status?.state), messageId: r.messageId };
      break;
    }
    case "stream":
    case "subscribe": {
      out.events = [];
      const it =
        action === "stream"
          ? client.sendMessageStream(message("probe"), opts())
          : client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: arg }), opts());
      for await (const ev of it) out.events.push(summariseEvent(ev));
      out.ended = true;
      break;
    }
    case "retry": {
      // The same message object sent twice, as an application retrying.
      const m = message("probe");
      const a = await client.sendMessage(m, opts());
      const b = await client.sendMessage(m, opts());
      out.pages = [[a.id], [b.id]];
      break;
    }
    case "get": {
      const t = await client.getTask(GetTaskRequest.fromJSON({ id: arg }), opts());
      out.result = { id: t.id, state: stateName(t.status?.state) };
      break;
    }
    case "list": {
      out.pages = [];
      let token = "";
      do {
        const p = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 1, pageToken: token }), opts());
        out.pages.push(p.tasks.map((t) => t.id));
        token = p.nextPageToken;
      } while (token && out.pages.length < 5);
      break;
    }
    default:
      console.error(`unknown action ${action}`);
      process.exit(2);
  }
} catch (e) {
  out.error = describeError(e);
}
process.stdout.write(JSON.stringify(out) + "\n");
