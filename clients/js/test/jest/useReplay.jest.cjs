// Replay under Jest as most projects run it: CommonJS, require(), the hooks
// as globals (the package's "require" export, dist/cjs).
const path = require("node:path");
const { useReplay, A2amockAssertionError } = require("a2amock");

const replay = useReplay(path.join(__dirname, "..", "..", "..", "testdata", "recording.json"));

async function send(url, text) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0", id: 1, method: "SendMessage",
      params: { message: { messageId: "jest-replay-1", role: "ROLE_USER", parts: [{ text }] } },
    }),
  });
  return r.json();
}

test("a replay per test answers the recorded send; the journal and assertions read it", async () => {
  const res = await send(replay().url, "hello");
  expect(res.result.task.id).toBe("cae94e19-ec6f-4896-a32e-d0565b22fc41");
  expect(res.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  const requests = await replay().journal({ kind: "request" });
  expect(requests.map((e) => e.method)).toEqual(["SendMessage"]);
  await replay().assertNoOrphans();
  await expect(replay().assertCanceled("cae94e19-ec6f-4896-a32e-d0565b22fc41")).rejects.toThrow(A2amockAssertionError);
});
