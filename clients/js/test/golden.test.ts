// The assertions' messages match the Go testkit's, on the journals of real
// runs recorded in testkit/testdata/assertions.json (kept in step with the Go
// code by testkit's TestAssertionMessagesGolden).
import { readFileSync } from "node:fs";

import { expect, test } from "vitest";

import {
  assertCanceled,
  assertCardRefetchedOnChange,
  assertCardSignatureChecked,
  assertContinuationCarriesTaskID,
  assertNoContinuationTo,
  assertNoIgnoredFields,
  assertNoOrphans,
  assertNoPageTokenLoop,
  assertNoRequestAfterBadCardSignature,
  assertPolledAtMost,
  assertRetryReusedMessageID,
  assertSentVersionHeader,
  assertFellBackToPolling,
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
  agent?: string;
  changedAt?: number;
  want: string;
}
const golden: { cases: { name: string; journal: Entry[]; calls: Call[] }[] } = JSON.parse(
  readFileSync(new URL("../../../testkit/testdata/assertions.json", import.meta.url), "utf8"));

// Every journal assertion of the Go testkit, which run handles.
const ASSERTIONS = [
  "AssertNoOrphans", "AssertPolledAtMost", "AssertStoppedPollingWithin", "AssertCanceled", "AssertNoContinuationTo",
  "AssertNoIgnoredFields", "AssertUsedDeclaredInterface", "AssertContinuationCarriesTaskID", "AssertSentVersionHeader",
  "AssertNoPageTokenLoop", "AssertRetryReusedMessageID", "AssertCardRefetchedOnChange", "AssertCardSignatureChecked",
  "AssertNoRequestAfterBadCardSignature", "AssertFellBackToPollingFromJournal",
];

function run(journal: Entry[], c: Call): string {
  const task = c.task ?? "";
  const agent = c.agent ?? "";
  try {
    switch (c.assert) {
      case "AssertNoOrphans": assertNoOrphans(journal); break;
      case "AssertPolledAtMost": assertPolledAtMost(journal, task, c.n ?? 0); break;
      case "AssertStoppedPollingWithin": assertStoppedPollingWithin(journal, task, c.withinMs ?? 0); break;
      case "AssertCanceled": assertCanceled(journal, task); break;
      case "AssertNoContinuationTo": assertNoContinuationTo(journal, task); break;
      case "AssertNoIgnoredFields": assertNoIgnoredFields(journal); break;
      case "AssertUsedDeclaredInterface": assertUsedDeclaredInterface(journal, c.card!); break;
      case "AssertContinuationCarriesTaskID": assertContinuationCarriesTaskID(journal); break;
      case "AssertSentVersionHeader": assertSentVersionHeader(journal); break;
      case "AssertFellBackToPollingFromJournal": assertFellBackToPolling(journal, task); break;
      case "AssertNoPageTokenLoop": assertNoPageTokenLoop(journal); break;
      case "AssertRetryReusedMessageID": assertRetryReusedMessageID(journal); break;
      case "AssertCardRefetchedOnChange": assertCardRefetchedOnChange(journal, agent, c.changedAt ?? 0); break;
      case "AssertCardSignatureChecked": assertCardSignatureChecked(journal, agent); break;
      case "AssertNoRequestAfterBadCardSignature": assertNoRequestAfterBadCardSignature(journal, agent); break;
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
      expect(run(c.journal, call), `${call.assert}(${call.task ?? call.agent ?? ""})`).toBe(call.want);
    }
  });
}

test("the golden file has failures", () => {
  expect(golden.cases.flatMap((c) => c.calls).filter((c) => c.want).length).toBeGreaterThan(10);
  expect(golden.cases.flatMap((c) => c.calls).filter((c) => c.assert === "AssertUsedDeclaredInterface" && c.want).length).toBe(6);
});

test("every assertion in the golden file is handled, and every one is called", () => {
  const names = new Set(golden.cases.flatMap((c) => c.calls.map((call) => call.assert)));
  expect([...names].filter((n) => !ASSERTIONS.includes(n))).toEqual([]);
  expect(ASSERTIONS.filter((n) => !names.has(n))).toEqual([]);
  // An unknown name is an error, not a pass, whatever its want.
  expect(() => run([], { assert: "AssertNoSuchThing", want: "" })).toThrow("unknown assertion AssertNoSuchThing");
  for (const n of ASSERTIONS) {
    const c = golden.cases.find((c) => c.calls.some((call) => call.assert === n))!;
    expect(() => run(c.journal, c.calls.find((call) => call.assert === n)!), n).not.toThrow();
  }
});

test("each journal assertion fails somewhere in the golden file", () => {
  const failing = new Set(golden.cases.flatMap((c) => c.calls).filter((c) => c.want).map((c) => c.assert));
  expect(ASSERTIONS.filter((n) => !failing.has(n))).toEqual([]);
});

test("an entry without a method or binding is named as Go names it, not 'undefined'", () => {
  const journal: Entry[] = [{ seq: 1, time: "2026-12-05T00:00:00Z", agent: "a", kind: "request", ignored: ["x"] }];
  expect(() => assertNoIgnoredFields(journal)).toThrow("\n\t\t over  (entry 1): x");
  expect(() => assertNoIgnoredFields(journal)).not.toThrow("undefined");
});
