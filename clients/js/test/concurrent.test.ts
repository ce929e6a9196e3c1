import { describe, expect, test } from "vitest";

import { useA2amock as useWith } from "../src/index.js";
import { a2amockTest } from "../src/vitest.js";

const it = a2amockTest();

async function send(url: string, text: string): Promise<any> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage",
      params: { message: { messageId: `c-${text}-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] } } }),
  });
  return r.json();
}

// Concurrent tests, each holding its agents while the others run: every one
// sees its own Mock, and only its own agents and journal.
describe.concurrent("a2amockTest under describe.concurrent", () => {
  for (const i of [1, 2, 3, 4]) {
    it(`test ${i} has its own mock`, async ({ a2amock, expect }) => {
      const mine = await a2amock.addAgent(`w${i}`);
      await send(mine.url, `hello ${i}`);
      await new Promise((r) => setTimeout(r, 40 * (5 - i))); // the others start and end meanwhile
      expect(a2amock.agent(`w${i}`).serverName).toBe(mine.serverName);
      for (const j of [1, 2, 3, 4].filter((j) => j !== i)) expect(() => a2amock.agent(`w${j}`)).toThrow(/no agent/);
      const requests = await a2amock.journal({ agent: `w${i}`, kind: "request" });
      expect(requests.map((e) => e.method)).toEqual(["SendMessage"]);
      await a2amock.assertNoOrphans(`w${i}`);
    });
  }
});

// useA2amock's getter cannot tell concurrent tests apart: a second test
// that starts while one holds the mock fails with what to use instead, and
// its cleanup leaves the holder's mock alone. The hooks are called by hand,
// with a context object per test as Vitest passes them, so that two tests
// overlap on demand (and both start before either has its mock).
test("useA2amock refuses a test that starts while another holds the mock", async () => {
  const hooks: Record<string, (...args: unknown[]) => unknown> = {};
  const get = useWith({ hooks: {
    beforeAll: (fn) => { hooks.beforeAll = fn; }, afterAll: (fn) => { hooks.afterAll = fn; },
    beforeEach: (fn) => { hooks.beforeEach = fn; }, afterEach: (fn) => { hooks.afterEach = fn; },
  } });
  expect(hooks.beforeEach.length, "Jest reads a declared parameter as a done callback").toBe(0);
  expect(hooks.afterEach.length).toBe(0);
  await hooks.beforeAll();
  const a = {}, b = {}, c = {};
  try {
    const startA = Promise.resolve(hooks.beforeEach(a));
    const refusedB = Promise.resolve(hooks.beforeEach(b)).then(() => undefined, (e: Error) => e); // before A has its mock
    await startA;
    expect((await refusedB)?.message).toMatch(/another test of this file is running[\s\S]*a2amockTest/);
    const first = get();
    await hooks.afterEach(b); // the refused test's cleanup
    expect(get()).toBe(first);
    expect(await first.journal()).toEqual([]); // still open on the server
    await hooks.afterEach(a);
    expect(() => get()).toThrow(/only inside a test/);
    await hooks.beforeEach(c); // one at a time again: fine
    await hooks.afterEach(c);
  } finally {
    await hooks.afterAll();
  }
});
