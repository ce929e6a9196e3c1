// Jest as most projects run it: CommonJS, require(), the hooks as globals.
// The package's "require" export (dist/cjs) is what loads here; Vitest's
// tests cover the "import" one.
const { useA2amock, A2amockAssertionError, assertNoOrphans } = require("a2amock");

const mock = useA2amock();

let rpcId = 0;
async function send(url, text) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0", id: ++rpcId, method: "SendMessage",
      params: { message: { messageId: `jest-${rpcId}`, role: "ROLE_USER", parts: [{ text }] } },
    }),
  });
  return r.json();
}

test("a fresh agent per test, the journal and an assertion that passes", async () => {
  const worker = await mock().addAgent("worker");
  const res = await send(worker.url, "hello");
  expect(res.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  const requests = await mock().journal({ agent: "worker", kind: "request" });
  expect(requests.map((e) => e.method)).toEqual(["SendMessage"]);
  await mock().assertNoOrphans("worker");
});

test("an orphan fails with the Go testkit's message", async () => {
  const stuck = await mock().addAgent("stuck", { behaviors: ["never-terminal"] });
  const res = await send(stuck.url, "hello");
  const id = res.result.task.id;
  await expect(mock().assertNoOrphans("stuck")).rejects.toThrow(A2amockAssertionError);
  const journal = await mock().journal({ agent: "stuck" });
  expect(() => assertNoOrphans(journal)).toThrow(new RegExp(`task "${id}"`));
});

test("each test has its own agents", async () => {
  expect(mock().agent().name).toBe("agent");
  await expect(mock().journal({ agent: "worker" })).rejects.toThrow(/worker/);
});
