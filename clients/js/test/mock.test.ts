import { spawn } from "node:child_process";
import { type AddressInfo } from "node:net";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";

import { afterAll, beforeAll, describe, expect, test } from "vitest";

import {
  A2amockServer,
  BinaryNotFoundError,
  InvalidRequestError,
  Mock,
  NotFoundError,
  startA2amock,
  useA2amock,
} from "../src/index.js";

let rpcId = 0;
async function call(url: string, method: string, params: unknown): Promise<any> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  return r.json();
}
const send = (url: string, text: string, extra: Record<string, unknown> = {}) =>
  call(url, "SendMessage", { message: { messageId: `m-${++rpcId}`, role: "ROLE_USER", parts: [{ text }], ...extra } });

let server: A2amockServer;
beforeAll(async () => {
  server = await A2amockServer.fromEnv();
});
afterAll(async () => {
  await server.close();
});

async function withMock(fn: (m: Mock) => Promise<void>): Promise<void> {
  const m = await Mock.create(server);
  try {
    await fn(m);
  } finally {
    await m.close();
  }
}

test("default agent, card and journal with why-didn't-it-fire", () =>
  withMock(async (m) => {
    expect(m.agent().serverName).toMatch(/^agent-[0-9a-f]{8}$/);
    expect(m.url).toBe(`${server.url}/agents/${m.agent().serverName}/`);
    expect((await m.card()).supportedInterfaces[0].url).toBe(m.url);

    const desk = await m.addAgent("desk", {
      card: { name: "Intake desk", skills: [{ id: "intake" }, { id: "report" }] },
      behaviors: ["skip-working:skill=report"],
    });
    expect(desk.skills).toEqual(["intake", "report"]);
    const res = await send(desk.url, "hello", { metadata: { skillId: "intake" } });
    expect(res.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    const reqs = await m.journal({ agent: "desk", kind: "request" });
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatchObject({ method: "SendMessage", dialect: "1.0", binding: "JSONRPC" });
    expect(reqs[0].skipped).toEqual([{ behavior: "skip-working:skill=report", key: "skill",
      detail: 'message went to skill "intake"; scope wants "report"' }]);
    const stats = await m.behaviorStats("desk");
    expect(stats[0]).toMatchObject({ acted: 0, skipped: 1, skippedBy: { skill: 1 } });
    const byTask = await m.journal({ agent: "desk", task: res.result.task.id });
    expect(byTask.every((e) => e.taskId === res.result.task.id || e.refTaskId === res.result.task.id)).toBe(true);
    expect(await m.journal({ agent: "agent", kind: "request" })).toEqual([]);
    expect(await m.metrics()).toMatch(new RegExp(`a2amock_requests_total\\{agent="${desk.serverName}",method="SendMessage",.*outcome="ok".*\\} 1`));

    // In scope but not acting, with why: a continuation of a task the agent does not hold.
    const divert = await m.addAgent("divert", { behaviors: ["new-task-id-on-continuation"] });
    await send(divert.url, "room 4", { taskId: "no-such-task" });
    const decisions = await m.journal({ agent: "divert", kind: "decision" });
    expect(decisions.flatMap((e) => e.notActed ?? [])).toEqual([
      { behavior: "new-task-id-on-continuation", reason: expect.stringContaining("no-such-task, which the agent does not hold") },
    ]);
  }));

test("the journal lists the fields a send carried that the agent ignored", () =>
  withMock(async (m) => {
    await call(m.url, "SendMessage", {
      message: { messageId: "m-v03", role: "ROLE_USER", parts: [{ kind: "text", text: "hi" }] },
      configuration: { blocking: false },
    });
    await send(m.url, "plain v1.0");
    const reqs = await m.journal({ kind: "request" });
    expect(reqs.map((e) => e.ignored)).toEqual([["message.parts[0].kind", "configuration.blocking"], undefined]);
  }));

test("setBehaviors and reset", () =>
  withMock(async (m) => {
    expect(await m.setBehaviors(undefined, ["stuck-submitted"])).toEqual(["stuck-submitted"]);
    const task = (await send(m.url, "x")).result.task;
    expect(task.status.state).toBe("TASK_STATE_SUBMITTED");
    await m.reset();
    expect(await m.journal()).toEqual([]);
    expect((await call(m.url, "GetTask", { id: task.id })).error.code).toBe(-32001);
  }));

test("bad input throws typed errors naming the field; nothing is half-created", () =>
  withMock(async (m) => {
    const e1 = await m.addAgent("x", { behaviors: ["skip-working", "nope"] }).catch((e) => e);
    expect(e1).toBeInstanceOf(InvalidRequestError);
    expect(e1).toMatchObject({ status: 400, field: "behaviors[1]" });
    expect(e1.serverMessage).toContain('unknown behavior "nope"');
    const e2 = await m.addAgent("y", { card: { skills: [{ idx: "a" }] } }).catch((e) => e);
    expect(e2).toMatchObject({ field: "card.skills[0]" });
    await expect(m.server.control("DELETE", "/agents/no-such-agent")).rejects.toBeInstanceOf(NotFoundError);
    await expect(m.addAgent("agent")).rejects.toThrow("already has an agent");
    expect(m.agents.map((a) => a.name)).toEqual(["agent"]);
  }));

test("tests on a shared server are isolated", async () => {
  const one = await Mock.create(server);
  const two = await Mock.create(server);
  await one.setBehaviors(undefined, ["stuck-submitted"]);
  const t1 = (await send(one.url, "a")).result.task;
  const t2 = (await send(two.url, "b")).result.task;
  expect(t1.status.state).toBe("TASK_STATE_SUBMITTED");
  expect(t2.status.state).toBe("TASK_STATE_COMPLETED");
  expect((await call(two.url, "GetTask", { id: t1.id })).error.code).toBe(-32001);
  expect(new Set((await one.journal()).map((e) => e.agent))).toEqual(new Set([one.agent().serverName]));
  const names = [...one.agents, ...two.agents].map((a) => a.serverName);
  await one.close();
  await two.close();
  const listed: { name: string }[] = (await (await server.control("GET", "/agents")).json() as any).agents;
  expect(listed.filter((a) => names.includes(a.name))).toEqual([]);
});

test("scenario from a path and from text", () =>
  withMock(async (m) => {
    const path = new URL("../../../examples/incidents/three-worker-incident.yaml", import.meta.url);
    const w3 = await m.addAgent("w3", { scenario: path, scenarioAgent: "worker-3" });
    expect(w3.dialect).toBe("0.3");
    expect(w3.behaviors).toEqual(["new-task-id-on-continuation:unless-metadata=tenant"]);
    const t = await m.addAgent("t", { scenario: "agents:\n  - name: x\n    behaviors: [never-terminal]\n" });
    expect(t.behaviors).toEqual(["never-terminal"]);
  }));

test("the assertions pass and fail with the Go testkit's message shape", () =>
  withMock(async (m) => {
    await m.setBehaviors(undefined, ["never-terminal"]);
    const task = (await send(m.url, "go")).result.task;
    for (let i = 0; i < 3; i++) await call(m.url, "GetTask", { id: task.id });
    let err: Error | undefined;
    await m.assertNoOrphans().catch((e) => (err = e));
    expect(err?.message).toBe(
      `1 orphaned task(s):\ntask "${task.id}" (agent ${m.agent().serverName}): orphaned\n` +
        "\tclient did: created it with SendMessage ×1, GetTask ×3\n" +
        "\tdeclared:   every task the client creates ends terminal or is canceled by the client\n" +
        "\tobserved:   last state working (submitted → working), never canceled",
    );
    await m.assertPolledAtMost(task.id, 3);
    await expect(m.assertPolledAtMost(task.id, 2)).rejects.toThrow("polled 3 times, more than 2");
    await m.assertStoppedPollingWithin(task.id, 30_000);
    await expect(m.assertStoppedPollingWithin(task.id, 0)).rejects.toThrow(/still polled .* after creation, beyond 0s/);
    await expect(m.assertCanceled(task.id)).rejects.toThrow(/not canceled by the client[\s\S]*observed: {3}no CancelTask for it/);
    await m.assertUsedDeclaredInterface();

    expect((await call(m.url, "CancelTask", { id: task.id })).result).toBeTruthy();
    await m.assertCanceled(task.id);
    await m.assertNoOrphans();
    await send(m.url, "again", { taskId: task.id, contextId: task.contextId });
    await expect(m.assertNoContinuationTo(task.id)).rejects.toThrow(
      /1 continuation\(s\) sent to a dead task[\s\S]*it died when the client canceled it/);
  }));

test("the client-habit and signed-card assertions read the test's agents under their server names", () =>
  withMock(async (m) => {
    const name = m.agent().serverName;
    await send(m.url, "with the header");
    await m.assertSentVersionHeader();
    await fetch(m.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "GetTask", params: { id: "no-such-task" } }),
    });
    await expect(m.assertSentVersionHeader()).rejects.toThrow(
      '1 of 2 v1.0 request(s) without A2A-Version: 1.0\n\tclient did: sent 2 v1.0 requests');
    await m.assertContinuationCarriesTaskID();
    await m.assertNoPageTokenLoop();
    await m.assertRetryReusedMessageID();

    const signed = await m.addAgent("signed", { behaviors: ["card-signature:mode=alg-none"] });
    await m.assertNoRequestAfterBadCardSignature("signed");
    await expect(m.assertCardSignatureChecked("signed")).rejects.toThrow(`agent ${signed.serverName}: no A2A request in the journal`);
    await m.card("signed");
    const fetched = (await m.journal({ agent: "signed" })).at(-1)!.seq;
    await send(signed.url, "unverified");
    await expect(m.assertCardSignatureChecked("signed")).rejects.toThrow(
      `agent ${signed.serverName}: card signature not checked before use\n\tclient did: SendMessage over JSONRPC`);
    await expect(m.assertNoRequestAfterBadCardSignature("signed")).rejects.toThrow(
      `agent ${signed.serverName}: used after its card failed signature verification (alg-none)`);
    await m.assertCardRefetchedOnChange(fetched - 1, "signed");
    await expect(m.assertCardRefetchedOnChange(fetched, "signed")).rejects.toThrow(
      `agent ${signed.serverName}: card changed but not fetched again`);
    // The default agent's journal holds no card fetch, nor the other agent's.
    await m.assertCardRefetchedOnChange(fetched);
    await expect(m.assertCardSignatureChecked()).rejects.toThrow(`agent ${name}: card signature not checked before use`);
  }));

test("assertFellBackToPolling reads the pushes a webhook of the test's own accepted from the journal", () =>
  withMock(async (m) => {
    const hook = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200).end());
    });
    await new Promise<void>((ok) => hook.listen(0, "127.0.0.1", ok));
    try {
      const port = (hook.address() as AddressInfo).port;
      const pusher = await m.addAgent("pusher", {
        card: { capabilities: { pushNotifications: true } },
        behaviors: ["push-drop:terminal=true"],
      });
      const r = await call(pusher.url, "SendMessage", {
        message: { messageId: `m-${++rpcId}`, role: "ROLE_USER", parts: [{ text: "hi" }] },
        configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${port}/hook` } },
      });
      const id: string = (r.result.task ?? r.result).id;
      const deadline = Date.now() + 10_000;
      while ((await m.pushedStates(id, "pusher")).length < 2 && Date.now() < deadline) {
        await new Promise((ok) => setTimeout(ok, 10));
      }
      expect(await m.pushedStates(id, "pusher")).toEqual(["submitted", "working"]);
      await expect(m.assertFellBackToPolling(id, "pusher")).rejects.toThrow(
        /the client did not fall back to polling[\s\S]*the client waited for a push that never came; pushed states submitted → working/);
      await call(pusher.url, "GetTask", { id });
      await m.assertFellBackToPolling(id, "pusher");
    } finally {
      await new Promise((ok) => hook.close(ok));
    }
  }));

test("every control-API operation the client calls is in docs/openapi.json", () => {
  const doc = JSON.parse(readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"));
  const dir = new URL("../src/", import.meta.url);
  const src = readdirSync(dir).map((f) => readFileSync(new URL(f, dir), "utf8")).join("");
  const calls = [...src.matchAll(/control\("([A-Z]+)", [`"](\/[^`"?]*)/g)];
  expect(calls.length).toBeGreaterThanOrEqual(8);
  for (const [, method, path] of calls) {
    const templ = "/_a2amock" + path.replace(/\$\{[^}]+\}/g, "{name}");
    expect(doc.paths[templ], `${method} ${templ}`).toBeDefined();
    expect(doc.paths[templ][method.toLowerCase()], `${method} ${templ}`).toBeDefined();
  }
});

describe("finding and stopping the server", () => {
  test("startA2amock starts its own server and close stops it", async () => {
    const saved = process.env.A2AMOCK_URL;
    delete process.env.A2AMOCK_URL;
    try {
      const m = await startA2amock();
      const proc = m.server.process!;
      expect(proc.exitCode).toBeNull();
      await m.close();
      expect(proc.exitCode !== null || proc.signalCode !== null).toBe(true);
      await expect(fetch(`${m.server.url}/_a2amock/healthz`)).rejects.toThrow();
    } finally {
      if (saved !== undefined) process.env.A2AMOCK_URL = saved;
    }
  });

  test("A2AMOCK_URL connects to a running server and leaves it running", async () => {
    const m = await startA2amock({ url: server.url });
    expect(m.server.process).toBeUndefined();
    await m.close();
    expect((await fetch(`${server.url}/_a2amock/healthz`)).ok).toBe(true);
  });

  test("without a binary the error says how to install it", async () => {
    const saved = { ...process.env };
    const empty = mkdtempSync(`${tmpdir()}/a2amock-test-`);
    try {
      delete process.env.A2AMOCK_URL;
      process.env.A2AMOCK_BIN = `${empty}/a2amock`;
      await expect(startA2amock()).rejects.toThrow(/is not an executable file/);
      delete process.env.A2AMOCK_BIN;
      process.env.PATH = empty;
      const e = await startA2amock().catch((x) => x);
      expect(e).toBeInstanceOf(BinaryNotFoundError);
      expect(e.message).toMatch(/A2AMOCK_URL[\s\S]*go install/);
    } finally {
      process.env = saved;
    }
  });

  test("A2AMOCK_CONTROL_TOKEN opens a server started with a control token", async () => {
    const own = await A2amockServer.start({ token: "s3cret" });
    try {
      expect((await fetch(`${own.url}/_a2amock/healthz`)).status).toBe(401);
      const saved = process.env.A2AMOCK_CONTROL_TOKEN;
      process.env.A2AMOCK_CONTROL_TOKEN = "s3cret";
      try {
        const m = await startA2amock({ url: own.url });
        expect(await m.journal()).toEqual([]);
        await m.close();
        process.env.A2AMOCK_CONTROL_TOKEN = "wrong";
        await expect(startA2amock({ url: own.url })).rejects.toThrow(/HTTP 401[\s\S]*A2AMOCK_CONTROL_TOKEN/);
      } finally {
        if (saved === undefined) delete process.env.A2AMOCK_CONTROL_TOKEN;
        else process.env.A2AMOCK_CONTROL_TOKEN = saved;
      }
    } finally {
      await own.close();
    }
  });

  test("a server started by a process that is then SIGKILLed stops too", async () => {
    // The parent runs no handler when killed; the server's stdin pipe closes.
    const dist = new URL("../dist/index.js", import.meta.url).href;
    const script = `import { A2amockServer } from ${JSON.stringify(dist)};
const s = await A2amockServer.start();
console.log(s.url);
setInterval(() => {}, 1 << 30);`;
    const env = { ...process.env };
    delete env.A2AMOCK_URL;
    const parent = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"], env });
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: parent.stdout! }).once("line", resolve);
      parent.once("exit", (code) => reject(new Error(`the parent exited with ${code} before starting a server`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/_a2amock/healthz`)).status).toBe(200);
    const gone = new Promise((resolve) => parent.once("exit", resolve));
    parent.kill("SIGKILL");
    await gone;
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await (await fetch(`${url}/_a2amock/healthz`, { signal: AbortSignal.timeout(2000) })).arrayBuffer();
      } catch {
        break; // refused: nothing serves there any more
      }
      if (Date.now() > deadline) throw new Error(`the server at ${url} still answers 15s after its parent was killed`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 30_000);

  test("useA2amock without hooks asks for them", () => {
    expect(() => useA2amock()).toThrow(/a2amock\/vitest/);
  });
});

test("with --grpc every agent's card declares the shared gRPC interface, its name as tenant", async () => {
  const grpcServer = await A2amockServer.start({ args: ["--grpc"] });
  try {
    const m = await Mock.create(grpcServer);
    try {
      const desk = await m.addAgent("desk");
      for (const a of [m.agent(), desk]) {
        const card = await m.card(a.name);
        const grpc = card.supportedInterfaces.filter((i: any) => i.protocolBinding === "GRPC");
        expect(grpc).toEqual([{ url: grpcServer.grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0", tenant: a.serverName }]);
      }
    } finally {
      await m.close();
    }
  } finally {
    await grpcServer.close();
  }
});

test("assertUsedDeclaredInterface takes a GRPC interface's host:port for no path", async () => {
  const { assertUsedDeclaredInterface } = await import("../src/index.js");
  const card = { name: "a", supportedInterfaces: [{ url: "localhost:8080", protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "a" }] };
  const call = { seq: 1, kind: "request", method: "SendMessage", binding: "GRPC", dialect: "1.0", path: "/lf.a2a.v1.A2AService/SendMessage" };
  expect(() => assertUsedDeclaredInterface([call] as any, card)).not.toThrow();
  expect(() => assertUsedDeclaredInterface([{ ...call, binding: "JSONRPC", path: "/" }] as any, card)).toThrow(/does not declare/);
});

test("assertUsedDeclaredInterface takes gRPC as declared by a v1.0 card without interfaces", async () => {
  const { assertUsedDeclaredInterface } = await import("../src/index.js");
  const call = { seq: 1, kind: "request", method: "SendMessage", binding: "GRPC", dialect: "1.0", path: "/lf.a2a.v1.A2AService/SendMessage" };
  expect(() => assertUsedDeclaredInterface([call] as any, { name: "a", protocolVersion: "1.0" })).not.toThrow();
  expect(() => assertUsedDeclaredInterface([{ ...call, dialect: "0.3" }] as any, { name: "a", protocolVersion: "0.3" })).toThrow(
    /does not declare[\s\S]*SendMessage over GRPC 0\.3/,
  );
  expect(() =>
    assertUsedDeclaredInterface([call, { ...call, seq: 2, dialect: "0.3" }] as any, { name: "a", protocolVersion: "1.0" }),
  ).toThrow(/GRPC 1\.0 \(when the mock serves gRPC\)/);
});
