/**
 * useA2amock and useReplay bound to Vitest's hooks, a2amockTest and
 * replayTest: `import { useA2amock, a2amockTest, replayTest } from "a2amock/vitest"`.
 */

import { afterAll, afterEach, beforeAll, beforeEach, test as baseTest, type TestAPI } from "vitest";

import { type Hooks, useA2amock as useWith, useReplay as useReplayWith } from "./index.js";
import { Mock } from "./mock.js";
import { type Replay, type ReplayOptions, startReplay } from "./replay.js";
import { A2amockServer, type ServerOptions } from "./server.js";

export * from "./index.js";

/** One server for the file, a fresh Mock per test, removed after it. */
export function useA2amock(options: ServerOptions = {}): () => Mock {
  const hooks: Hooks = { beforeAll, afterAll, beforeEach, afterEach };
  return useWith({ ...options, hooks });
}

/**
 * A Vitest `test` whose context carries `a2amock`: a fresh Mock with its
 * own agents for each test, removed after it, on one server for the file
 * (started by the first test that asks for it, or A2AMOCK_URL; stopped
 * after the file). Unlike useA2amock's getter, the context belongs to its
 * test, so concurrent tests (test.concurrent, describe.concurrent) each
 * get their own Mock:
 *
 *     const test = a2amockTest();
 *     test.concurrent("cleans up", async ({ a2amock, expect }) => {
 *       await runMyClient(a2amock.cardUrl());
 *       await a2amock.assertNoOrphans();
 *     });
 */
export function a2amockTest(options: ServerOptions = {}): TestAPI<{ a2amock: Mock }> {
  let server: Promise<A2amockServer> | undefined;
  afterAll(async () => {
    const s = await server?.catch(() => undefined);
    await s?.close();
  });
  return baseTest.extend<{ a2amock: Mock }>({
    // Vitest reads a fixture's dependencies from its first parameter's
    // destructuring: this one has none.
    // eslint-disable-next-line no-empty-pattern
    a2amock: async ({}, use) => {
      server ??= A2amockServer.fromEnv(options);
      const mock = await Mock.create(await server);
      try {
        await use(mock);
      } finally {
        await mock.close();
      }
    },
  });
}

/** A fresh replay of the recording for each test (its own process), ended after it. */
export function useReplay(recording: string | URL, options: ReplayOptions = {}): () => Replay {
  const hooks: Hooks = { beforeAll, afterAll, beforeEach, afterEach };
  return useReplayWith(recording, { ...options, hooks });
}

/**
 * A Vitest `test` whose context carries `replay`: a fresh replay of the
 * recording for each test that asks for it (its own `a2amock replay`
 * process, the recording from its start), ended after the test; concurrent
 * tests each get their own:
 *
 *     const test = replayTest(new URL("./incident.json", import.meta.url), { splice: "2:drop" });
 *     test("survives the dropped event", async ({ replay }) => {
 *       await runMyClient(replay.cardUrl);
 *       await replay.assertNoOrphans();
 *     });
 */
export function replayTest(recording: string | URL, options: ReplayOptions = {}): TestAPI<{ replay: Replay }> {
  return baseTest.extend<{ replay: Replay }>({
    // eslint-disable-next-line no-empty-pattern
    replay: async ({}, use) => {
      const replay = await startReplay(recording, options);
      try {
        await use(replay);
      } finally {
        await replay.close();
      }
    },
  });
}
