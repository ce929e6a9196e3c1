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
 * No SendMessage or SendStreamingMessage request carried a field its dialect
 * does not define (the entry's `ignored`): the agent skipped it unread, as
 * servers do, so a setting the client believes it sent (v0.3's
 * `configuration.blocking` sent to a v1.0 agent, v1.0's `returnImmediately`
 * sent to a v0.3 one) never took effect.
 */
export function assertNoIgnoredFields(journal: Iterable<Entry>): void {
  const lines: string[] = [];
  let sends = 0;
  let carrying = 0;
  for (const e of journal) {
    if (e.kind !== "request" || (e.op !== "send" && e.op !== "stream")) continue;
    sends++;
    if (!e.ignored?.length) continue;
    carrying++;
    for (const path of e.ignored) {
      const hint = RENAMED[e.dialect ?? ""]?.[path.replace(/\[\d+\]/g, "[]")];
      lines.push(`\n\t\t${e.method} over ${e.binding} (entry ${e.seq}, message ${q(e.messageId ?? "")}): ${path}${hint ? ` (${hint})` : ""}`);
    }
  }
  if (carrying === 0) return;
  throw new A2amockAssertionError(failure(`${carrying} of ${sends} send(s) carried fields the agent ignored`,
    `sent ${sends} SendMessage or SendStreamingMessage request(s)`,
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
    .map((r) => `${r.method} (entry ${r.seq}, message ${r.messageId ?? ""})`);
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
