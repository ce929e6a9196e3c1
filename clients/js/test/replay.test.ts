// Replays of a committed recording (clients/testdata/recording.json, made by
// `a2amock record` in front of `a2amock serve --seed 7 --step-delay 50ms`:
// the card, a SendMessage answered with a completed task, and a
// SendStreamingMessage whose stream went submitted, working, an artifact,
// completed, 50ms apart), each in its own `a2amock replay` process.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, test } from "vitest";

import {
  A2amockAssertionError, InvalidRequestError, Replay, ServerStartError, startReplay, useReplay as useWith,
} from "../src/index.js";
import { replayTest, useReplay } from "../src/vitest.js";

const RECORDING = new URL("../../testdata/recording.json", import.meta.url);
const SENT_TASK = "cae94e19-ec6f-4896-a32e-d0565b22fc41";
const STREAMED_TASK = "33e5a151-0029-43ab-aba1-27ec55690be2";
const RECORDED_STREAM = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "artifactUpdate", "TASK_STATE_COMPLETED"];

let rpcId = 0;
async function send(url: string, text: string): Promise<any> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "SendMessage",
      params: { message: { messageId: `m-${rpcId}`, role: "ROLE_USER", parts: [{ text }] } } }),
  });
  return r.json();
}

/** The results of a v1.0 SendStreamingMessage's events, in order. */
async function stream(url: string, text: string): Promise<any[]> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "SendStreamingMessage",
      params: { message: { messageId: `s-${rpcId}`, role: "ROLE_USER", parts: [{ text }] } } }),
  });
  const body = await r.text();
  return body.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)).result);
}

/** Each result by what it is: the task's state, or artifactUpdate. */
function kinds(results: any[]): string[] {
  return results.map((r) => r.task?.status.state ?? r.statusUpdate?.status.state ?? Object.keys(r)[0]);
}

async function gone(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

describe("startReplay", () => {
  test("answers what was recorded; the journal and the assertions read it", async () => {
    const replay = await startReplay(RECORDING);
    try {
      expect(replay).toBeInstanceOf(Replay);
      expect(replay.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const card = await replay.card();
      expect(card.name).toBe("agent");
      expect(card.supportedInterfaces[0].url).toBe(replay.url);
      expect((await (await fetch(replay.cardUrl)).json()).name).toBe("agent");

      const task = (await send(replay.url, "hello")).result.task;
      expect(task.id).toBe(SENT_TASK);
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      const events = await stream(replay.url, "stream please");
      expect(kinds(events)).toEqual(RECORDED_STREAM);
      expect(events[0].task.id).toBe(STREAMED_TASK);

      const journal = await replay.journal();
      expect(journal.filter((e) => e.kind === "request").map((e) => e.method)).toEqual(["SendMessage", "SendStreamingMessage"]);
      expect(new Set(journal.map((e) => e.agent))).toEqual(new Set(["agent"]));
      const states = (await replay.journal({ task: STREAMED_TASK, kind: "event" })).map((e) => e.state).filter(Boolean);
      expect(states).toEqual(["submitted", "working", "completed"]);
      await replay.assertNoOrphans();
      await replay.assertUsedDeclaredInterface();
      await replay.assertPolledAtMost(SENT_TASK, 0);
      await expect(replay.assertCanceled(SENT_TASK)).rejects.toThrow(A2amockAssertionError);
      await expect(replay.assertCanceled(SENT_TASK)).rejects.toThrow(`task "${SENT_TASK}" (agent agent): not canceled by the client`);
      await expect(replay.assertNoOrphans("other")).rejects.toThrow(/one agent/);

      // reset rewinds the recording and clears the journal.
      await replay.reset();
      expect(await replay.journal()).toEqual([]);
      expect((await send(replay.url, "hello again")).result.task.id).toBe(SENT_TASK);
    } finally {
      await replay.close();
    }
  });

  test("splice and behaviors reach the process; setBehaviors replaces them", async () => {
    const replay = await startReplay(RECORDING, { splice: "1:drop", behaviors: ["latency:delay=1ms"] });
    try {
      expect(await replay.behaviors()).toEqual(["replay", "splice:at=1,fault=drop", "latency:delay=1ms"]);
      expect(kinds(await stream(replay.url, "stream please"))).toEqual(["TASK_STATE_SUBMITTED", "artifactUpdate", "TASK_STATE_COMPLETED"]);
      expect((await replay.behaviorStats()).map((s) => s.behavior)).toEqual(["replay", "splice:at=1,fault=drop", "latency:delay=1ms"]);

      expect(await replay.setBehaviors([])).toEqual(["replay"]);
      await replay.reset();
      expect(kinds(await stream(replay.url, "stream please"))).toEqual(RECORDED_STREAM);
      await expect(replay.setBehaviors(["no-such-behavior"])).rejects.toThrow(InvalidRequestError);
      expect(await replay.behaviors()).toEqual(["replay"]);
    } finally {
      await replay.close();
    }
  });

  test("speed divides the recorded delays", async () => {
    // The stream's events came 50ms apart (about 100ms from the first to
    // the last): at a quarter of the speed they take 400ms at least.
    const slow = await startReplay(RECORDING, { speed: 0.25 });
    try {
      const start = Date.now();
      expect(kinds(await stream(slow.url, "stream please"))).toEqual(RECORDED_STREAM);
      expect(Date.now() - start).toBeGreaterThanOrEqual(350);
    } finally {
      await slow.close();
    }
  });

  test("close() ends the process", async () => {
    const replay = await startReplay(RECORDING);
    const child = replay.server.process!;
    expect(child.exitCode).toBeNull();
    expect(replay.closed).toBe(false);
    await replay.close();
    expect(replay.closed).toBe(true);
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    expect(await gone(replay.url)).toBe(true);
    await replay.close(); // a second close does nothing
  });

  test("a bad recording rejects with the binary's file:line:col message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2amock-replay-"));
    const bad = join(dir, "bad.json");
    writeFileSync(bad, '{\n  "version": 1,\n  "exchanges": [\n    {"kind": "jsonrpc", "bogus": 1}\n  ]\n}\n');
    const err = await startReplay(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerStartError);
    expect((err as Error).message).toMatch(/exited with code 2 before serving/);
    expect((err as Error).message).toMatch(/bad\.json:4:25: exchanges\[0\]: unknown field "bogus"/);
    await expect(startReplay(join(dir, "missing.json"))).rejects.toThrow(/open .*missing\.json: no such file or directory/);
    await expect(startReplay(RECORDING, { splice: "2:zap" })).rejects.toThrow(/--splice: splice "2:zap": fault "zap"/);
    await expect(startReplay(RECORDING, { speed: -1 })).rejects.toThrow(RangeError);
  });
});

describe("useReplay", () => {
  const replay = useReplay(RECORDING, { splice: "2:end-stream" });
  const seen: Replay[] = [];

  test("gives each test a fresh replay with the options", async () => {
    seen.push(replay());
    expect(await replay().behaviors()).toEqual(["replay", "splice:at=2,fault=end-stream"]);
    expect(kinds(await stream(replay().url, "stream please"))).toEqual(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]);
  });

  test("the recording from its start, the last test's replay ended", async () => {
    seen.push(replay());
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[0].closed).toBe(true);
    expect(await replay().journal()).toEqual([]);
    expect((await send(replay().url, "hello")).result.task.id).toBe(SENT_TASK);
  });
});

// As useA2amock's: a test that starts while another holds the replay is
// refused, and its cleanup leaves the holder's replay alone (the hooks
// called by hand, a context object per test as Vitest passes them).
test("useReplay refuses a test that starts while another holds the replay", async () => {
  const hooks: Record<string, (...args: unknown[]) => unknown> = {};
  const get = useWith(RECORDING, { hooks: {
    beforeAll: (fn) => { hooks.beforeAll = fn; }, afterAll: (fn) => { hooks.afterAll = fn; },
    beforeEach: (fn) => { hooks.beforeEach = fn; }, afterEach: (fn) => { hooks.afterEach = fn; },
  } });
  expect(hooks.beforeEach.length, "Jest reads a declared parameter as a done callback").toBe(0);
  expect(hooks.afterEach.length).toBe(0);
  const a = {}, b = {};
  const startA = Promise.resolve(hooks.beforeEach(a));
  const refusedB = Promise.resolve(hooks.beforeEach(b)).then(() => undefined, (e: Error) => e);
  await startA;
  expect((await refusedB)?.message).toMatch(/another test of this file is running[\s\S]*replayTest/);
  const first = get();
  await hooks.afterEach(b);
  expect(get()).toBe(first);
  expect(first.closed).toBe(false);
  await hooks.afterEach(a);
  expect(first.closed).toBe(true);
  expect(() => get()).toThrow(/only inside a test/);
});

describe("replayTest", () => {
  const rtest = replayTest(RECORDING);
  const seen: Replay[] = [];

  rtest.concurrent("concurrent tests each get their own replay (1)", async ({ replay }) => {
    seen.push(replay);
    expect((await send(replay.url, "hello")).result.task.id).toBe(SENT_TASK);
    await replay.assertNoOrphans();
  });

  rtest.concurrent("concurrent tests each get their own replay (2)", async ({ replay }) => {
    seen.push(replay);
    expect((await send(replay.url, "hello")).result.task.id).toBe(SENT_TASK);
    expect((await replay.journal({ kind: "request" })).length).toBe(1);
  });

  test("and each ends with its test", () => {
    expect(seen.length).toBe(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen.every((r) => r.closed)).toBe(true);
  });
});
