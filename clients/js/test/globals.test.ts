// Jest-style setup: useA2amock() from the main entry with the framework's
// hooks as globals (Jest's default; Vitest's with globals: true).
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest";

Object.assign(globalThis, { beforeAll, afterAll, beforeEach, afterEach });
const { useA2amock } = await import("a2amock");
const mock = useA2amock();

test("a fresh mock per test through the global hooks", async () => {
  const m = mock();
  expect(m.agents.map((a) => a.name)).toEqual(["agent"]);
  await m.addAgent("extra");
  expect((await m.card("extra")).name).toBeTruthy();
});

test("the previous test's agents are gone", async () => {
  expect(mock().agents.map((a) => a.name)).toEqual(["agent"]);
});
