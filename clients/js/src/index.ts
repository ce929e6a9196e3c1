/**
 * a2amock for JavaScript and TypeScript: start or reach an a2amock server,
 * create agents per test, read the journal and assert over it with the Go
 * testkit's assertions.
 *
 *     import { useA2amock } from "a2amock/vitest";
 *     const mock = useA2amock();
 *     test("cleans up", async () => {
 *       await runMyClient(mock().cardUrl());
 *       await mock().assertNoOrphans();
 *     });
 *
 * A recording made with `a2amock record` is replayed by startReplay (its
 * own `a2amock replay` process, with the same journal and assertions), or
 * useReplay / replayTest for one per test.
 */

import { Mock } from "./mock.js";
import { type Replay, type ReplayOptions, startReplay } from "./replay.js";
import { A2amockServer, type ServerOptions } from "./server.js";

export { JournalAssertions } from "./asserting.js";
export * from "./assertions.js";
export * from "./errors.js";
export type { Entry, NotActedBehavior, SkippedBehavior } from "./journal.js";
export { type Agent, type AgentOptions, type JournalQuery, Mock } from "./mock.js";
export { REPLAY_AGENT, Replay, type ReplayOptions, startReplay } from "./replay.js";
export {
  A2amockServer, findBinary, INSTALL_HINT, REPLAY_INSTALL_HINT, type ControlCall, type ReplayServerOptions, type ServerOptions,
} from "./server.js";

/**
 * Starts a server (or connects to A2AMOCK_URL) and returns a Mock with its
 * default agent; mock.close() removes the agents and stops a server it
 * started.
 */
export async function startA2amock(options: ServerOptions = {}): Promise<Mock> {
  const server = await A2amockServer.fromEnv(options);
  try {
    return await Mock.create(server, { ownsServer: true });
  } catch (e) {
    await server.close();
    throw e;
  }
}

// A hook's function takes the framework's arguments as a rest parameter:
// Jest reads a function with a declared parameter as one that takes a done
// callback. Vitest passes the test's context first.
type Hook = (fn: (...args: unknown[]) => unknown | Promise<unknown>, timeout?: number) => void;

/** The test framework's hooks; by default the globals of Jest (or Vitest with globals: true). */
export interface Hooks {
  beforeAll: Hook;
  afterAll: Hook;
  beforeEach: Hook;
  afterEach: Hook;
}

function globalHooks(): Hooks {
  const g = globalThis as unknown as Partial<Hooks>;
  if (!g.beforeAll || !g.afterAll || !g.beforeEach || !g.afterEach) {
    throw new Error("useA2amock: no global beforeAll/afterEach hooks: import { useA2amock } from \"a2amock/vitest\" under Vitest, or pass the hooks");
  }
  return g as Hooks;
}

/**
 * One line of setup for Vitest or Jest: one server for the file (started in
 * beforeAll, or A2AMOCK_URL), a fresh Mock with its own agents for each test
 * (beforeEach), removed after it (afterEach). Returns a getter of the
 * current test's Mock. Tests run one at a time: a test that starts while
 * another holds the mock (test.concurrent) fails, saying so; under Vitest,
 * a2amockTest serves concurrent tests.
 */
export function useA2amock(options: ServerOptions & { hooks?: Hooks } = {}): () => Mock {
  const hooks = options.hooks ?? globalHooks();
  let server: A2amockServer | undefined;
  let current: Mock | undefined;
  // The test that holds the mock: its context under Vitest, a token under
  // Jest (whose hooks get no argument). Claimed before the mock is made, so
  // that a test starting meanwhile is refused, not given the same mock.
  let owner: object | undefined;
  hooks.beforeAll(async () => {
    server = await A2amockServer.fromEnv(options);
  }, 30_000);
  hooks.afterAll(async () => {
    await server?.close();
  });
  hooks.beforeEach(async (...args: unknown[]) => {
    // One getter cannot tell concurrent tests apart: refuse the second
    // rather than hand it the first test's agents.
    if (owner) {
      throw new Error("useA2amock: another test of this file is running (test.concurrent or describe.concurrent), and useA2amock serves one test at a time; " +
        "for concurrent tests take the mock from the test's context: const test = a2amockTest() from \"a2amock/vitest\", then test(\"…\", async ({ a2amock }) => …)");
    }
    const me = typeof args[0] === "object" && args[0] !== null ? args[0] : {};
    owner = me;
    try {
      current = await Mock.create(server!);
    } catch (e) {
      owner = undefined;
      throw e;
    }
  });
  hooks.afterEach(async (...args: unknown[]) => {
    // A refused test's cleanup leaves the holder's mock alone.
    if (typeof args[0] === "object" && args[0] !== null && args[0] !== owner) return;
    const m = current;
    current = undefined;
    owner = undefined;
    await m?.close();
  });
  return () => {
    if (!current) throw new Error("useA2amock: the mock exists only inside a test");
    return current;
  };
}

/**
 * One line of setup for replaying a recording in Vitest or Jest: a fresh
 * replay (its own `a2amock replay` process, the recording from its start)
 * for each test, started in beforeEach and ended in afterEach. Returns a
 * getter of the current test's Replay. Tests run one at a time; under
 * Vitest, replayTest serves concurrent tests.
 */
export function useReplay(recording: string | URL, options: ReplayOptions & { hooks?: Hooks } = {}): () => Replay {
  const hooks = options.hooks ?? globalHooks();
  let current: Replay | undefined;
  // The test that holds the replay, as useA2amock's owner: its context
  // under Vitest, a token under Jest; claimed before the replay starts.
  let owner: object | undefined;
  hooks.beforeEach(async (...args: unknown[]) => {
    if (owner) {
      throw new Error("useReplay: another test of this file is running (test.concurrent or describe.concurrent), and useReplay serves one test at a time; " +
        "for concurrent tests take the replay from the test's context: const test = replayTest(recording) from \"a2amock/vitest\"");
    }
    owner = typeof args[0] === "object" && args[0] !== null ? args[0] : {};
    try {
      current = await startReplay(recording, options);
    } catch (e) {
      owner = undefined;
      throw e;
    }
  }, 30_000);
  hooks.afterEach(async (...args: unknown[]) => {
    // A refused test's cleanup leaves the holder's replay alone.
    if (typeof args[0] === "object" && args[0] !== null && args[0] !== owner) return;
    const r = current;
    current = undefined;
    owner = undefined;
    await r?.close();
  });
  return () => {
    if (!current) throw new Error("useReplay: the replay exists only inside a test");
    return current;
  };
}
