// Assertions over the journal, mirroring the Go testkit's (package testkit,
// assert.go): same names in camelCase, same checks, same message shape — the
// task, what the client did, what was declared, what was observed. Each
// throws an AssertionError-like Error with the message when it fails.

import { type Entry, TERMINAL_STATES, nanosBetween } from "./journal.js";

const TASK_NOT_FOUND = -32001;

/** The error the assertions throw. */
export class A2amockAssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

const q = (s: string): string => JSON.stringify(s);

function failure(subject: string, did: string, declared: string, observed: string): string {
  return `${subject}\n\tclient did: ${did}\n\tdeclared:   ${declared}\n\tobserved:   ${observed}`;
}

const stateList = (s: string[]): string => (s.length ? s.join(" → ") : "no state");

/** Formats nanoseconds as Go's time.Duration.String does. */
export function goDuration(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const sign = nanos < 0n ? "-" : "";
  let ns = nanos < 0n ? -nanos : nanos;
  const frac = (v: bigint, unit: bigint): string => {
    const whole = v / unit;
    const rest = v % unit;
    if (rest === 0n) return whole.toString();
    const digits = rest.toString().padStart(unit.toString().length - 1, "0").replace(/0+$/, "");
    return `${whole}.${digits}`;
  };
  if (ns < 1_000n) return `${sign}${ns}ns`;
  if (ns < 1_000_000n) return `${sign}${frac(ns, 1_000n)}µs`;
  if (ns < 1_000_000_000n) return `${sign}${frac(ns, 1_000_000n)}ms`;
  const h = ns / 3_600_000_000_000n;
  ns %= 3_600_000_000_000n;
  const m = ns / 60_000_000_000n;
  ns %= 60_000_000_000n;
  let out = sign;
  if (h) out += `${h}h`;
  if (h || m) out += `${m}m`;
  return out + frac(ns, 1_000_000_000n) + "s";
}

class Story {
  created = "";
  states: string[] = [];
  requests: Entry[] = [];
  polls: Entry[] = [];
  cancels: Entry[] = [];
  cancelAcked = false;
  cancelErr = 0;
  dead?: Entry;
  deadReason = "";
  constructor(readonly agent: string, readonly id: string, readonly first: Entry) {}
  last(): string {
    return this.states.at(-1) ?? "";
  }
  markDead(e: Entry, why: string): void {
    if (!this.dead) {
      this.dead = e;
      this.deadReason = why;
    }
  }
  did(): string {
    const n = new Map<string, number>();
    const add = (k: string) => n.set(k, (n.get(k) ?? 0) + 1);
    if (this.created) add(`created it with ${this.created}`);
    for (const r of this.requests) {
      let m = r.method || r.op || "";
      if (r.refTaskId === this.id && (r.op === "send" || r.op === "stream")) m += " (continuation)";
      add(m);
    }
    if (n.size === 0) return "nothing about this task";
    return [...n].map(([k, c]) => `${k} ×${c}`).join(", ");
  }
  subject(what: string): string {
    return `task ${q(this.id)} (agent ${this.agent}): ${what}`;
  }
}

function stories(journal: Iterable<Entry>): Map<string, Story> {
  const byId = new Map<string, Story>();
  const get = (e: Entry, id: string): Story => {
    let s = byId.get(id);
    if (!s) {
      s = new Story(e.agent, id, e);
      byId.set(id, s);
    }
    return s;
  };
  const requests = new Map<number, Entry>();
  for (const e of journal) {
    const taskId = e.taskId ?? "";
    const ref = e.refTaskId ?? "";
    const code = e.errorCode ?? 0;
    if (e.kind === "request") {
      requests.set(e.request ?? 0, e);
      if (taskId) {
        const s = get(e, taskId);
        s.requests.push(e);
        if (e.op === "get-task") s.polls.push(e);
        else if (e.op === "cancel-task") {
          s.cancels.push(e);
          s.markDead(e, `the client canceled it (entry ${e.seq})`);
        }
      }
      if (ref && ref !== taskId) get(e, ref).requests.push(e);
    } else if (e.kind === "response") {
      if (taskId && (e.op === "send" || e.op === "stream") && ref !== taskId) {
        const s = get(e, taskId);
        if (!s.created) s.created = requests.get(e.request ?? 0)?.method || e.op || "";
      }
      if (ref && taskId && taskId !== ref && code === 0) {
        get(e, ref).markDead(e, `a message to it was answered with another task, ${q(taskId)} (entry ${e.seq})`);
      }
      if (e.op === "cancel-task" && taskId) {
        const s = get(e, taskId);
        if (code === 0) s.cancelAcked = true;
        else s.cancelErr = code;
      }
      if (code === TASK_NOT_FOUND) {
        const id = taskId || ref;
        if (id) get(e, id).markDead(e, `the agent no longer knew it (TaskNotFound, entry ${e.seq})`);
      }
    } else if (e.kind === "event") {
      if (!taskId || !e.state) continue;
      const s = get(e, taskId);
      if (s.last() !== e.state) s.states.push(e.state);
      if (TERMINAL_STATES.has(e.state)) s.markDead(e, `it reached ${e.state} (entry ${e.seq})`);
    }
  }
  return byId;
}

/**
 * Every task the client created ended terminal, or was canceled by the
 * client (a CancelTask the agent acknowledged).
 */
export function assertNoOrphans(journal: Iterable<Entry>): void {
  const msgs: string[] = [];
  for (const s of stories(journal).values()) {
    if (s.states.length === 0 && !s.created) continue;
    if (TERMINAL_STATES.has(s.last()) || s.cancelAcked) continue;
    let obs = `last state ${s.last()} (${stateList(s.states)}), `;
    obs += s.cancels.length === 0 ? "never canceled" : `cancel refused with error ${s.cancelErr}`;
    msgs.push(failure(s.subject("orphaned"), s.did(),
      "every task the client creates ends terminal or is canceled by the client", obs));
  }
  if (msgs.length) throw new A2amockAssertionError(`${msgs.length} orphaned task(s):\n${msgs.join("\n")}`);
}

/** The client sent at most n GetTask requests for the task. */
export function assertPolledAtMost(journal: Iterable<Entry>, taskId: string, n: number): void {
  const s = stories(journal).get(taskId);
  if (!s || s.polls.length <= n) return;
  throw new A2amockAssertionError(failure(s.subject(`polled ${s.polls.length} times, more than ${n}`), s.did(),
    `at most ${n} GetTask polls`,
    `${s.polls.length} GetTask polls from ${s.polls[0].time} to ${s.polls.at(-1)!.time}; task states ${stateList(s.states)}`));
}

/**
 * The client's last GetTask for the task came at most withinMs
 * milliseconds after the task's first journal entry.
 */
export function assertStoppedPollingWithin(journal: Iterable<Entry>, taskId: string, withinMs: number): void {
  const s = stories(journal).get(taskId);
  if (!s || s.polls.length === 0) return;
  const last = s.polls.at(-1)!;
  const span = nanosBetween(s.first.time, last.time);
  const d = BigInt(Math.round(withinMs * 1e6));
  if (span <= d) return;
  throw new A2amockAssertionError(failure(
    s.subject(`still polled ${goDuration(span)} after creation, beyond ${goDuration(d)}`), s.did(),
    `no GetTask later than ${goDuration(d)} after the task was created`,
    `last GetTask (entry ${last.seq}) ${goDuration(span)} after creation; task states ${stateList(s.states)}`));
}

/** The client canceled the task: a CancelTask the agent acknowledged. */
export function assertCanceled(journal: Iterable<Entry>, taskId: string): void {
  const s = stories(journal).get(taskId);
  if (!s) {
    throw new A2amockAssertionError(failure(`task ${q(taskId)}: not in the journal`, "nothing about this task",
      "the client cancels the task", "no entry names the task"));
  }
  if (s.cancelAcked) return;
  const obs = s.cancels.length ? `${s.cancels.length} CancelTask, refused with error ${s.cancelErr}` : "no CancelTask for it";
  throw new A2amockAssertionError(failure(s.subject("not canceled by the client"), s.did(),
    "the client cancels the task (CancelTask acknowledged)", `${obs}; task states ${stateList(s.states)}`));
}

// For a field an agent of a dialect ignores that another dialect defines,
// what the agent's dialect calls it (paths with list indexes as []), as the
// Go testkit says it.
const V10_HABITS: Record<string, string> = {
  "configuration.returnImmediately": "v1.0's; v0.3 reads blocking: false instead, and without it a send blocks",
  "configuration.taskPushNotificationConfig": "v1.0's; v0.3 reads pushNotificationConfig, so no push was registered",
  "message.parts[].url": "v1.0's; v0.3 reads a file part's file.uri",
  "message.parts[].raw": "v1.0's; v0.3 reads a file part's file.bytes",
  "message.parts[].mediaType": "v1.0's; v0.3 reads a file part's file.mimeType",
  "message.parts[].filename": "v1.0's; v0.3 reads a file part's file.name",
};
const RENAMED: Record<string, Record<string, string>> = {
  "1.0": {
    "configuration.blocking": "v0.3's; v1.0 reads returnImmediately, its inverse: without it a send blocks",
    "configuration.pushNotificationConfig": "v0.3's; v1.0 reads taskPushNotificationConfig, so no push was registered",
    "message.kind": "v0.3's discriminator; a v1.0 message has none",
    "message.parts[].kind": "v0.3's part discriminator; a v1.0 part is told by its member: text, raw, url or data",
    "message.parts[].file": "v0.3's file part; v1.0 reads raw or url, with filename and mediaType",
  },
  "0.3": V10_HABITS,
  "0.2": V10_HABITS,
};

/**
 * No request carried a field its dialect does not define (the entry's
 * `ignored`): the agent skipped it unread, as servers do, so a setting the
 * client believes it sent (v0.3's `configuration.blocking` sent to a v1.0
 * agent, a ListTasks `page_size` where v1.0's JSON reads `pageSize`, v1.0's
 * `returnImmediately` sent to a v0.3 one) never took effect.
 */
export function assertNoIgnoredFields(journal: Iterable<Entry>): void {
  const lines: string[] = [];
  let requests = 0;
  let carrying = 0;
  for (const e of journal) {
    if (e.kind !== "request") continue;
    requests++;
    if (!e.ignored?.length) continue;
    carrying++;
    for (const path of e.ignored) {
      const hint = RENAMED[e.dialect ?? ""]?.[path.replace(/\[\d+\]/g, "[]")];
      const msg = e.messageId ? `, message ${q(e.messageId)}` : "";
      lines.push(`\n\t\t${e.method ?? ""} over ${e.binding ?? ""} (entry ${e.seq}${msg}): ${path}${hint ? ` (${hint})` : ""}`);
    }
  }
  if (carrying === 0) return;
  throw new A2amockAssertionError(failure(`${carrying} of ${requests} request(s) carried fields the agent ignored`,
    `sent ${requests} request(s)`,
    "every field a request carries is one its dialect defines, so the agent reads what the client meant",
    `ignored:${lines.join("")}`));
}

/** The client sent no message naming the task after the task was dead. */
export function assertNoContinuationTo(journal: Iterable<Entry>, taskId: string): void {
  const s = stories(journal).get(taskId);
  if (!s?.dead) return;
  const dead = s.dead;
  const late = s.requests
    .filter((r) => r.seq > dead.seq && r.refTaskId === taskId && (r.op === "send" || r.op === "stream"))
    .map((r) => `${r.method ?? ""} (entry ${r.seq}, message ${r.messageId ?? ""})`);
  if (late.length === 0) return;
  throw new A2amockAssertionError(failure(s.subject(`${late.length} continuation(s) sent to a dead task`), s.did(),
    `no message to a task after it is dead; it died when ${s.deadReason}`, `continuations ${late.join(", ")}`));
}

interface Iface {
  binding: string;
  version: string;
  url: string;
}

type Card = Record<string, any>;

/** The interfaces a card declares (v1.0 supportedInterfaces, or v0.x url and additionalInterfaces). */
export function cardInterfaces(card: Card): Iface[] {
  if ("supportedInterfaces" in card) {
    return (card.supportedInterfaces ?? []).map((i: Card) => ({
      binding: i.protocolBinding ?? "", version: i.protocolVersion ?? "", url: i.url ?? "" }));
  }
  const version = String(card.protocolVersion ?? "").split(".").slice(0, 2).join(".");
  const out: Iface[] = [];
  if (card.url) out.push({ binding: card.preferredTransport || "JSONRPC", version, url: card.url });
  for (const i of card.additionalInterfaces ?? []) {
    const x = { binding: i.transport ?? "", version, url: i.url ?? "" };
    if (!out.some((o) => o.binding === x.binding && o.version === x.version && o.url === x.url)) out.push(x);
  }
  return out;
}

function ifacePath(raw: string): string {
  if (!raw) return "";
  try {
    return new URL(raw).pathname || "/";
  } catch {
    return "";
  }
}

function matches(i: Iface, e: Entry): boolean {
  // A request refused before its method was understood (a body that is not
  // JSON, an unknown method) has no dialect: its binding and path say which
  // interface it was sent to.
  if (i.binding !== e.binding || (e.dialect && i.version !== e.dialect)) return false;
  if (i.binding === "GRPC") return true; // host:port, no path to compare
  const p = ifacePath(i.url);
  if (!p || !e.path) return true;
  const trim = p.replace(/\/+$/, "");
  return e.path === p || e.path === trim || e.path.startsWith(trim + "/");
}

/**
 * Every A2A request used a binding and protocol version the card declares
 * and, when the card gives interface URLs, a path under one of them. Pass the
 * card as the client read it. A journal without requests fails.
 */
export function assertUsedDeclaredInterface(journal: Iterable<Entry>, card: Card): void {
  let ifaces = cardInterfaces(card);
  if (ifaces.length === 0) {
    const d = String(card.protocolVersion ?? "1.0").split(".").slice(0, 2).join(".");
    ifaces = [{ binding: "JSONRPC", version: d, url: "" }];
    // A mock that serves gRPC declares it in every v1.0 card; one that does
    // not journals no gRPC call.
    if (d === "1.0") ifaces.push({ binding: "HTTP+JSON", version: d, url: "" }, { binding: "GRPC", version: d, url: "" });
  }
  const declared = ifaces.map(
    (i) =>
      `${i.binding} ${i.version}` +
      (ifacePath(i.url) ? ` at ${ifacePath(i.url)}` : "") +
      (i.binding === "GRPC" && !i.url ? " (when the mock serves gRPC)" : ""),
  );
  const bad: string[] = [];
  let n = 0;
  for (const e of journal) {
    if (e.kind !== "request") continue;
    n++;
    if (!ifaces.some((i) => matches(i, e))) {
      const method = e.method || "a request"; // refused before its method was understood
      const iface = `${e.binding ?? ""} ${e.dialect ?? ""}`.trim() || "no interface"; // a path no route serves
      bad.push(`\n\t\t${method} over ${iface} at ${e.path} (entry ${e.seq}, task ${q(e.taskId || e.refTaskId || "")})`);
    }
  }
  const name = card.name ?? "";
  if (n === 0) {
    throw new A2amockAssertionError(failure(`agent ${name}: no task, no request in the journal`, "sent no A2A request",
      declared.join("; "), "nothing to compare"));
  }
  if (bad.length) {
    throw new A2amockAssertionError(failure(`agent ${name}: ${bad.length} of ${n} request(s) used an interface the card does not declare`,
      `sent ${n} A2A requests`, declared.join("; "), bad.join("")));
  }
}

// The assertions below catch client-side bugs reported against real A2A
// clients (the Go testkit's assert_client.go and assert_cards.go), from the
// journal alone. Filter the journal by agent when the mock hosts several.

const isSend = (e: Entry): boolean => e.kind === "request" && (e.op === "send" || e.op === "stream");

const INTERRUPTED_STATES: ReadonlySet<string> = new Set(["input-required", "auth-required"]);

/**
 * Every message the client sent in answer to a task waiting for it
 * (input-required or auth-required) named the task by its taskId, with the
 * task's contextId (or none). The message answering the task is the
 * client's next send in the task's context after the task was interrupted.
 * Clients seen sending the contextId only (the Vercel AI SDK provider, the
 * AG-UI adapter and ADK: adk-python#4934, adcp-client#729) start a new task
 * instead of continuing.
 */
export function assertContinuationCarriesTaskID(journal: Iterable<Entry>): void {
  const entries = [...journal];
  const ctxOf = new Map<string, string>();
  for (const e of entries) {
    if (e.taskId && e.contextId && e.kind !== "request" && !ctxOf.has(e.taskId)) ctxOf.set(e.taskId, e.contextId);
  }
  // waiting maps a context to the interrupted task awaiting an answer.
  const waiting = new Map<string, { task: string; state: string; seq: number }>();
  const msgs: string[] = [];
  for (const e of entries) {
    if ((e.kind === "event" || e.kind === "response") && INTERRUPTED_STATES.has(e.state ?? "") && e.taskId) {
      const c = ctxOf.get(e.taskId) ?? "";
      if (c) waiting.set(c, { task: e.taskId, state: e.state!, seq: e.seq });
    } else if (isSend(e)) {
      const ref = e.refTaskId ?? "";
      // A send is looked up by the context of the task it names when that
      // task is the one waiting there, so a continuation carrying another
      // contextId is still found (and reported); otherwise by its contextId.
      let ctx = e.contextId ?? "";
      const refCtx = ref ? ctxOf.get(ref) ?? "" : "";
      if (refCtx && (!ctx || waiting.get(refCtx)?.task === ref)) ctx = refCtx;
      const w = waiting.get(ctx);
      if (!w) continue;
      waiting.delete(ctx);
      const method = e.method ?? "";
      const msg = e.messageId ?? "";
      if (!ref) {
        msgs.push(failure(`task ${q(w.task)}: its ${w.state} was answered without its taskId`,
          `${method} (entry ${e.seq}, message ${msg}) with contextId ${e.contextId ?? ""} only`,
          `a continuation of a task in ${w.state} (entry ${w.seq}) carries taskId ${w.task}`,
          "no taskId: the agent starts a new task in the same context"));
      } else if (ref !== w.task) {
        msgs.push(failure(`task ${q(w.task)}: its ${w.state} was answered to another task`,
          `${method} (entry ${e.seq}, message ${msg}) naming task ${ref}`,
          `a continuation carries taskId ${w.task}`, `taskId ${ref}`));
      } else if (e.contextId && e.contextId !== ctx) {
        msgs.push(failure(`task ${q(w.task)}: continued with another contextId`,
          `${method} (entry ${e.seq}, message ${msg})`,
          `a continuation carries the task's contextId ${ctx} (or none)`, `contextId ${e.contextId}`));
      }
    }
  }
  if (msgs.length) throw new A2amockAssertionError(`${msgs.length} continuation(s) without the task's ids:\n${msgs.join("\n")}`);
}

// The dialects a2amock speaks, and whether a request of each may omit
// A2A-Version (the Go wire package's Descriptor.VersionHeaderOptional).
const VERSION_HEADER_OPTIONAL: Readonly<Record<string, boolean>> = { "1.0": false, "0.3": true, "0.2": true, "0.1": true };

/** The dialect of an A2A-Version ("1.0.2" is "1.0"), and whether it is one a2amock speaks. */
function dialectOfVersion(v: string): [string, boolean] {
  let d = v;
  const i = v.indexOf(".");
  if (i >= 0) {
    const j = v.indexOf(".", i + 1);
    if (j >= 0) d = v.slice(0, j);
  }
  return [d, Object.hasOwn(VERSION_HEADER_OPTIONAL, d)];
}

/**
 * Every v1.0 request in the journal carried an A2A-Version of 1.0 (header
 * or query parameter). A v1.0 request without one is a v0.3 request by the
 * spec's rule (§1.6), which a strict agent refuses.
 */
export function assertSentVersionHeader(journal: Iterable<Entry>): void {
  const bad: string[] = [];
  let n = 0;
  for (const e of journal) {
    // The requests of a dialect that may not omit the header (v1.0) must
    // name that dialect in it.
    const dialect = e.dialect ?? "";
    if (e.kind !== "request" || !Object.hasOwn(VERSION_HEADER_OPTIONAL, dialect) || VERSION_HEADER_OPTIONAL[dialect]) continue;
    n++;
    const [d, known] = dialectOfVersion(e.version ?? "");
    if (known && d === dialect) continue;
    const v = e.version ? q(e.version) : "none";
    const id = e.taskId || e.refTaskId || "";
    bad.push(`\n\t\t${e.method ?? ""} over ${e.binding ?? ""} (entry ${e.seq}, task ${q(id)}): A2A-Version ${v}`);
  }
  if (bad.length === 0) return;
  throw new A2amockAssertionError(failure(`${bad.length} of ${n} v1.0 request(s) without A2A-Version: 1.0`,
    `sent ${n} v1.0 requests`, "every v1.0 request carries A2A-Version: 1.0 (spec §1.6)", bad.join("")));
}

// The paged operations whose tokens the journal keeps, as the messages call
// them.
const LISTINGS: ReadonlyMap<string, string> = new Map([
  ["list-tasks", "ListTasks"],
  ["list-push-configs", "ListTaskPushNotificationConfigs"],
]);

/**
 * The client never sent a listing (ListTasks, or
 * ListTaskPushNotificationConfigs) the same pageToken again after the agent
 * had answered that very token with it as nextPageToken: a listing that does
 * not advance (see the behavior list-pagination-loop) must end, not be
 * followed for ever.
 */
export function assertNoPageTokenLoop(journal: Iterable<Entry>): void {
  const sent = new Map<number, Entry>();
  // looped holds the tokens an answer repeated back, by agent and listing.
  const looped = new Map<string, number>();
  const reported = new Set<string>();
  const msgs: string[] = [];
  for (const e of journal) {
    const listing = e.op === undefined ? undefined : LISTINGS.get(e.op);
    if (listing === undefined) continue;
    const token = e.pageToken ?? "";
    const key = `${e.agent}\x00${e.op}\x00${token}`;
    if (e.kind === "request") {
      sent.set(e.request ?? 0, e);
      const at = looped.get(key);
      if (at !== undefined && token && !reported.has(key)) {
        reported.add(key);
        msgs.push(failure(`agent ${e.agent}: ${listing} followed a nextPageToken that repeated`,
          `sent pageToken ${q(token)} again (entry ${e.seq})`,
          "a client stops (or reports the agent) when nextPageToken repeats the pageToken it sent",
          `the answer at entry ${at} gave back pageToken ${q(token)} as its nextPageToken`));
      }
    } else if (e.kind === "response") {
      const req = sent.get(e.request ?? 0);
      if (req && token && token === (req.pageToken ?? "") && !looped.has(key)) looped.set(key, e.seq);
    }
  }
  if (msgs.length) throw new A2amockAssertionError(msgs.join("\n"));
}

// The behaviors after which a client has no usable answer to its send, and
// may retry.
const ANSWER_BREAKERS: ReadonlySet<string> = new Set(["http-error", "connection-reset", "empty-response", "malformed-json",
  "truncated-body", "stream-eof-mid-frame", "stream-error-as-json", "stream-hang", "send-result-envelope", "auth-flaky",
  "content-type", "sse-framing"]);

const breaksAnswer = (behavior: string): boolean => ANSWER_BREAKERS.has(behavior.split(":", 1)[0]);

/**
 * When the client resent a message after its first sending failed, it
 * reused the messageId, so the agent can recognise the retry instead of
 * acting twice (A2A#928, #1893, #1987). A sending failed when the agent
 * answered it with an error, never answered it, or a behavior that breaks
 * the answer acted on it (http-error, connection-reset, empty-response and
 * the like). The resent message is the client's next send with the same
 * text (the journal keeps a digest of it, `messageDigest`) to the same task
 * or context.
 */
export function assertRetryReusedMessageID(journal: Iterable<Entry>): void {
  const entries = [...journal];
  const failed = new Map<number, boolean>();
  for (const e of entries) {
    if (isSend(e)) failed.set(e.request ?? 0, true); // until an answer says otherwise
    else if (e.kind === "response" && !e.errorCode && failed.has(e.request ?? 0)) failed.set(e.request ?? 0, false);
  }
  for (const e of entries) {
    if (isSend(e) && (e.behaviors ?? []).some(breaksAnswer)) failed.set(e.request ?? 0, true);
  }
  const last = new Map<string, Entry>();
  const msgs: string[] = [];
  for (const e of entries) {
    if (!isSend(e) || !e.messageDigest) continue;
    const key = [e.agent, e.refTaskId ?? "", e.contextId ?? "", e.messageDigest].join("\x00");
    const prev = last.get(key);
    last.set(key, e);
    if (!prev || !failed.get(prev.request ?? 0) || (prev.messageId ?? "") === (e.messageId ?? "")) continue;
    const subject = e.refTaskId
      ? `task ${q(e.refTaskId)}: a failed message to it was resent with a new messageId`
      : `agent ${e.agent}: a failed message was resent with a new messageId`;
    const bs = (prev.behaviors ?? []).filter(breaksAnswer);
    const why = bs.length ? `failed (${bs.join(", ")})` : "failed";
    msgs.push(failure(subject,
      `${prev.method ?? ""} (entry ${prev.seq}) ${why}, then ${e.method ?? ""} (entry ${e.seq}) with the same text`,
      `a retry reuses the messageId ${prev.messageId ?? ""}`, `messageId ${e.messageId ?? ""}`));
  }
  if (msgs.length) throw new A2amockAssertionError(msgs.join("\n"));
}

/**
 * After the agent's card changed (at journal sequence number changedAt: take
 * the last entry's seq when the test changes the card) the client fetched
 * the card again before its next A2A request to that agent. The mock serves
 * cards with an ETag and Cache-Control: no-cache, so a client that honours
 * HTTP caching revalidates; one that caches the card for the process's
 * lifetime keeps using what the card no longer says. `agent` is the agent's
 * name in the journal (a Mock agent's `serverName`).
 */
export function assertCardRefetchedOnChange(journal: Iterable<Entry>, agent: string, changedAt: number): void {
  for (const e of journal) {
    if (e.seq <= changedAt || e.agent !== agent) continue;
    if (e.kind === "card") return;
    if (e.kind === "request") {
      const id = e.taskId || e.refTaskId || "";
      throw new A2amockAssertionError(failure(`agent ${agent}: card changed but not fetched again`,
        `${e.method ?? ""} over ${e.binding ?? ""} (entry ${e.seq}, task ${q(id)})`,
        `the card changed at entry ${changedAt} (ETag changed, Cache-Control: no-cache): refetch it before using the agent`,
        "no card fetch between the change and this request"));
    }
  }
}

// The card-signature modes whose card a verifying client must refuse.
const BAD_SIGNATURE_MODES: ReadonlySet<string> = new Set(["tampered", "wrong-canonical-form", "unknown-kid", "alg-none",
  "hs256", "expired-key", "jku-unreachable"]);

/** The card-signature mode of a card fetch that served a signature a verifier must refuse, or "". */
function badSignature(e: Entry): string {
  for (const b of e.behaviors ?? []) {
    if (!b.startsWith("card-signature")) continue;
    let rest = b.slice("card-signature".length);
    if (rest.startsWith(":")) rest = rest.slice(1);
    let mode = "tampered"; // the behavior's default
    for (const kv of rest.split(",")) {
      if (kv.startsWith("mode=")) mode = kv.slice("mode=".length);
    }
    if (BAD_SIGNATURE_MODES.has(mode)) return mode;
  }
  return "";
}

/**
 * The client fetched the agent's signing keys (its JWKS, the jku of the
 * card's signatures) after fetching the card and before its first A2A
 * request: the visible part of verifying a signed card (a2a-js#605,
 * a2a-go#368). Use it with a mock that signs cards (the behavior
 * card-signature). A client that caches keys across agents or runs may skip
 * the fetch legitimately; this assertion is for the first contact. `agent`
 * is the agent's name in the journal (a Mock agent's `serverName`).
 */
export function assertCardSignatureChecked(journal: Iterable<Entry>, agent: string): void {
  let cardSeen = false;
  let keysSeen = false;
  for (const e of journal) {
    if (e.agent !== agent) continue;
    if (e.kind === "card") {
      cardSeen = true;
      keysSeen = false;
    } else if (e.kind === "jwks") {
      keysSeen = keysSeen || cardSeen;
    } else if (e.kind === "request") {
      if (cardSeen && keysSeen) return;
      const obs = cardSeen ? "the card was fetched, its signing keys (JWKS) never" : "no card fetch before it";
      throw new A2amockAssertionError(failure(`agent ${agent}: card signature not checked before use`,
        `${e.method ?? ""} over ${e.binding ?? ""} (entry ${e.seq})`,
        "a client verifying signed cards fetches the card, then the JWKS its signature names, before its first request",
        obs));
    }
  }
  throw new A2amockAssertionError(failure(`agent ${agent}: no A2A request in the journal`, "sent no request",
    "a card fetch, a JWKS fetch, then requests", "nothing to check"));
}

/**
 * After the agent served a card whose signature a verifier must refuse (the
 * behavior card-signature in mode tampered, wrong-canonical-form,
 * unknown-kid, alg-none, hs256, expired-key or jku-unreachable), the client
 * sent that agent no A2A request, until it fetched a card again that was not
 * bad. `agent` is the agent's name in the journal (a Mock agent's
 * `serverName`).
 */
export function assertNoRequestAfterBadCardSignature(journal: Iterable<Entry>, agent: string): void {
  let bad = "";
  let at = 0;
  const msgs: string[] = [];
  for (const e of journal) {
    if (e.agent !== agent) continue;
    if (e.kind === "card") {
      bad = badSignature(e);
      at = e.seq;
    } else if (e.kind === "request" && bad) {
      msgs.push(failure(`agent ${agent}: used after its card failed signature verification (${bad})`,
        `${e.method ?? ""} over ${e.binding ?? ""} (entry ${e.seq}, task ${q((e.taskId ?? "") + (e.refTaskId ?? ""))})`,
        `a card whose signature does not verify (card-signature:mode=${bad}, entry ${at}) is refused, and the agent not used`,
        "the client went on to use the agent"));
      bad = ""; // one report per bad card
    }
  }
  if (msgs.length) throw new A2amockAssertionError(msgs.join("\n"));
}

/**
 * The states the agent pushed for the task that a webhook accepted
 * (answered 2xx), in the order the journal recorded the deliveries: what a
 * webhook of the client's own received, as far as the mock can tell.
 */
export function pushedStates(journal: Iterable<Entry>, taskId: string): string[] {
  const out: string[] = [];
  for (const e of journal) {
    const code = e.http ?? 0;
    if (e.kind === "push" && e.taskId === taskId && e.state && code >= 200 && code < 300) out.push(e.state);
  }
  return out;
}

/**
 * A client whose terminal push never came fell back to GetTask: the agent
 * reached a terminal state for the task, no terminal state reached the
 * webhook (the journal's push deliveries, pushedStates), and the journal
 * holds a GetTask for the task after that terminal state, answered with a
 * terminal task. The Go testkit's AssertFellBackToPollingFromJournal.
 */
export function assertFellBackToPolling(journal: Iterable<Entry>, taskId: string): void {
  const entries = [...journal];
  const rule = "the agent ends the task; a client whose terminal push does not come polls GetTask until it sees the terminal state";
  const pushed = pushedStates(entries, taskId);
  const s = stories(entries).get(taskId);
  if (!s) {
    throw new A2amockAssertionError(failure(`task ${q(taskId)}: not in the journal`, "nothing about this task", rule,
      "no entry names the task"));
  }
  const terminal = entries.find((e) => e.kind === "event" && e.taskId === taskId && TERMINAL_STATES.has(e.state ?? ""));
  if (!terminal) {
    throw new A2amockAssertionError(failure(s.subject("never reached a terminal state, so nothing was left to poll for"),
      s.did(), rule, `task states ${stateList(s.states)}`));
  }
  for (const p of pushed) {
    if (TERMINAL_STATES.has(p)) {
      throw new A2amockAssertionError(failure(s.subject("its terminal push was delivered, so nothing forced a fallback"),
        s.did(), rule, `the webhook received ${p}; pushed states ${stateList(pushed)}`));
    }
  }
  const polled = new Set<number>();
  for (const e of entries) {
    if (e.seq > terminal.seq && e.kind === "request" && e.op === "get-task" && e.taskId === taskId) polled.add(e.request ?? 0);
  }
  if (entries.some((e) => e.kind === "response" && polled.has(e.request ?? 0) && TERMINAL_STATES.has(e.state ?? ""))) return;
  let observed = `no GetTask for the task after its terminal state ${terminal.state} (journal #${terminal.seq}): ` +
    `the client waited for a push that never came; pushed states ${stateList(pushed)}`;
  if (polled.size > 0) {
    observed = `${polled.size} GetTask for the task after its terminal state ${terminal.state} ` +
      `(journal #${terminal.seq}), none answered with a terminal task`;
  }
  throw new A2amockAssertionError(failure(s.subject("the client did not fall back to polling"), s.did(), rule, observed));
}
