/** useA2amock bound to Vitest's hooks: `import { useA2amock } from "a2amock/vitest"`. */

import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

import { type Hooks, useA2amock as useWith } from "./index.js";
import type { Mock } from "./mock.js";
import type { ServerOptions } from "./server.js";

export * from "./index.js";

/** One server for the file, a fresh Mock per test, removed after it. */
export function useA2amock(options: ServerOptions = {}): () => Mock {
  const hooks: Hooks = { beforeAll, afterAll, beforeEach, afterEach };
  return useWith({ ...options, hooks });
}
