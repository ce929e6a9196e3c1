// Browser test of the live page's raw-bytes view: clicking a request shows
// the bytes the client sent and the bytes it was answered (from GET
// /_a2amock/journal/wire), credentials redacted, with and without a control
// token (given to the page as #token=…), and a gRPC call's binary message and
// trailers. Needs A2AMOCK_BIN and chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import http2 from "node:http2";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const bin = process.env.A2AMOCK_BIN || join(root, "bin/a2amock");
const executablePath = process.env.CHROMIUM || execFileSync("sh", ["-c", "command -v chromium"]).toString().trim();

const servers = [];
let browser;

function serve(env, args = []) {
  return new Promise((ok, fail) => {
    const p = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--log-level", "warn", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    servers.push(p);
    let out = "";
    const timer = setTimeout(() => fail(new Error("a2amock did not start: " + out)), 10000);
    const seen = (b) => {
      out += b;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (m) { clearTimeout(timer); ok(m[0]); }
    };
    p.stdout.on("data", seen); p.stderr.on("data", seen);
    p.on("exit", (code) => fail(new Error("a2amock exited " + code + ": " + out)));
  });
}

before(async () => {
  browser = await chromium.launch({
    executablePath, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
});
after(async () => {
  if (browser) await browser.close();
  for (const p of servers) p.kill("SIGTERM");
});

// withFirstRequest opens the live page at url (hash: "#token=…" or ""),
// clicks the journal's first request and hands the page to fn.
async function withFirstRequest(url, hash, fn) {
  const page = await browser.newPage();
  try {
    await page.goto(url + "/_a2amock/ui" + hash);
    const mark = page.locator("g.mark[data-kind=request]").first();
    await mark.waitFor();
    await mark.click();
    await fn(page);
  } finally {
    await page.close();
  }
}

async function check(token) {
  const url = await serve(token ? { A2AMOCK_CONTROL_TOKEN: token } : { A2AMOCK_CONTROL_TOKEN: "" });
  const text = "raw-bytes-" + Math.random().toString(36).slice(2);
  const res = await fetch(url + "/", {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer client-secret" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text }] } } }),
  });
  const answer = await res.json();
  assert.ok(answer.result && answer.result.task, JSON.stringify(answer));
  await withFirstRequest(url, token ? "#token=" + token : "", async (page) => {
    const req = page.locator("#detail pre.wire-request");
    await req.waitFor();
    const sent = await req.textContent();
    assert.match(sent, /^POST \/ HTTP\/1\.1/);
    assert.ok(sent.includes(text), sent);
    assert.match(sent, /Authorization: \[redacted: 20 bytes\]/);
    assert.ok(!sent.includes("client-secret"), sent);
    const got = await page.locator("#detail pre.wire-response").textContent();
    assert.match(got, /^200\n/);
    assert.ok(got.includes(answer.result.task.id), got);
  });
}

test("raw bytes of a request and its answer", () => check(""));
test("raw bytes with a control token from the page address", () => check("ui-e2e-token"));

// A fault configured on the agent that did not fire says why, next to the
// request: out of its scope (the skill it wants) or in scope and idle.
test("behaviors that did not act, and why", async () => {
  const url = await serve({ A2AMOCK_CONTROL_TOKEN: "" });
  const put = await fetch(url + "/_a2amock/behaviors", {
    method: "PUT", headers: { "content-type": "application/json" },
    body: JSON.stringify({ behaviors: ["skip-working:skill=no-such-skill"] }),
  });
  assert.equal(put.status, 200, await put.text());
  const res = await fetch(url + "/", {
    method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } } }),
  });
  assert.equal(res.status, 200);
  await withFirstRequest(url, "", async (page) => {
    const quiet = page.locator("#detail ul.not-acted li");
    await quiet.first().waitFor();
    const text = await quiet.first().textContent();
    assert.match(text, /◇ skip-working:skill=no-such-skill — out of scope \(skill\)/);
  });
});

// A send carrying fields its dialect does not define (v0.3's blocking and
// a part's kind, sent to a v1.0 agent) says so next to the request.
test("fields the agent ignored", async () => {
  const url = await serve({ A2AMOCK_CONTROL_TOKEN: "" });
  const res = await fetch(url + "/", {
    method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: {
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ kind: "text", text: "hi" }] }, configuration: { blocking: true } } }),
  });
  assert.equal(res.status, 200);
  await withFirstRequest(url, "", async (page) => {
    const note = page.locator("#detail p.ignored");
    await note.waitFor();
    assert.equal(await note.textContent(),
      "⚠ fields the agent ignored (its dialect does not define them): message.parts[0].kind, configuration.blocking");
  });
});

// field encodes one protobuf field: a length-delimited one (wire type 2) for
// a string or a message, a varint (wire type 0) for a number; every length
// and number here is under 128, a one-byte varint.
const field = (n, v) => typeof v === "number"
  ? Buffer.from([n << 3, v])
  : Buffer.concat([Buffer.from([(n << 3) | 2, Buffer.byteLength(v)]), Buffer.from(v)]);

// sendMessageRequest is a v1.0 SendMessageRequest (a2a-v1.0.proto): message
// (2) with message_id (1), role (4) ROLE_USER and one text part (5).
const sendMessageRequest = (text) =>
  field(2, Buffer.concat([field(1, "m-grpc"), field(4, 1), field(5, field(1, text))]));

// grpcCall makes one unary gRPC call over h2c (Node's own HTTP/2 client, no
// gRPC library) and returns the answer's length-prefixed body and trailers.
function grpcCall(url, method, message) {
  return new Promise((ok, fail) => {
    const session = http2.connect(url);
    session.on("error", fail);
    const req = session.request({
      ":method": "POST", ":path": "/lf.a2a.v1.A2AService/" + method,
      "content-type": "application/grpc", te: "trailers", "a2a-version": "1.0", authorization: "Bearer grpc-secret",
    });
    const chunks = [];
    let trailers = {};
    req.on("data", (c) => chunks.push(c));
    req.on("trailers", (t) => { trailers = t; });
    req.on("end", () => { session.close(); ok({ body: Buffer.concat(chunks), trailers }); });
    req.on("error", fail);
    const prefix = Buffer.from([0, 0, 0, 0, message.length]); // uncompressed, its length
    req.end(Buffer.concat([prefix, message]));
  });
}

// A gRPC call's answer is a binary message followed by trailers: the raw
// view shows the message as base64 and prints the trailers after it.
test("raw bytes of a gRPC call: its message as base64, then its trailers", async () => {
  const url = await serve({ A2AMOCK_CONTROL_TOKEN: "" }, ["--grpc"]);
  const text = "grpc-bytes-" + Math.random().toString(36).slice(2, 8);
  const { body, trailers } = await grpcCall(url, "SendMessage", sendMessageRequest(text));
  assert.equal(trailers["grpc-status"], "0", JSON.stringify(trailers));
  assert.ok(body.length > 5 && body.includes(text), "a length-prefixed message naming the text");
  await withFirstRequest(url, "", async (page) => {
    const req = page.locator("#detail pre.wire-request");
    await req.waitFor();
    const sent = await req.textContent();
    assert.match(sent, /^POST \/lf\.a2a\.v1\.A2AService\/SendMessage HTTP\/2\.0/);
    assert.match(sent, /Authorization: \[redacted: 18 bytes\]/);
    assert.ok(!sent.includes("grpc-secret"), sent);
    const got = await page.locator("#detail pre.wire-response").textContent();
    assert.match(got, /^200\n/);
    assert.match(got, /Content-Type: application\/grpc/);
    assert.ok(got.includes("(base64) " + body.toString("base64")), got);
    // The trailers come last, after the message.
    assert.match(got, /\n\nGrpc-Status: 0(\n|$)/);
    assert.ok(got.indexOf("Grpc-Status: 0") > got.indexOf("(base64)"), got);
  });
});
