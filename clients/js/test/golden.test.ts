// The assertions' messages match the Go testkit's, on the journals of real
// runs recorded in testkit/testdata/assertions.json (kept in step with the Go
// code by testkit's TestAssertionMessagesGolden).
import { readFileSync } from "node:fs";

import { expect, test } from "vitest";

import {
  assertCanceled,
  assertNoContinuationTo,
  assertNoIgnoredFields,
  assertNoOrphans,
  assertPolledAtMost,
  assertStoppedPollingWithin,
  assertUsedDeclaredInterface,
  type Entry,
} from "../src/index.js";

interface Call {
  assert: string;
  task?: string;
  n?: number;
  withinMs?: number;
  card?: Record<string, any>;
  want: string;
}
const golden: { cases: { name: string; journal: Entry[]; calls: Call[] }[] } = JSON.parse(
  readFileSync(new URL("../../../testkit/testdata/assertions.json", import.meta.url), "utf8"));

function run(journal: Entry[], c: Call): string {
  const task = c.task ?? "";
  try {
    switch (c.assert) {
      case "AssertNoOrphans": assertNoOrphans(journal); break;
      case "AssertPolledAtMost": assertPolledAtMost(journal, task, c.n ?? 0); break;
      case "AssertStoppedPollingWithin": assertStoppedPollingWithin(journal, task, c.withinMs ?? 0); break;
      case "AssertCanceled": assertCanceled(journal, task); break;
      case "AssertNoContinuationTo": assertNoContinuationTo(journal, task); break;
      case "AssertNoIgnoredFields": assertNoIgnoredFields(journal); break;
      case "AssertUsedDeclaredInterface": assertUsedDeclaredInterface(journal, c.card!); break;
      default: throw new Error(`unknown assertion ${c.assert}`);
    }
  } catch (e) {
    if ((e as Error).name === "AssertionError") return (e as Error).message;
    throw e;
  }
  return "";
}

for (const c of golden.cases) {
  test(`messages match the Go testkit: ${c.name}`, () => {
    for (const call of c.calls) {
      expect(run(c.journal, call), `${call.assert}(${call.task ?? ""})`).toBe(call.want);
    }
  });
}

test("the golden file has failures", () => {
  expect(golden.cases.flatMap((c) => c.calls).filter((c) => c.want).length).toBeGreaterThan(10);
  expect(golden.cases.flatMap((c) => c.calls).filter((c) => c.assert === "AssertUsedDeclaredInterface" && c.want).length).toBe(5);
});
