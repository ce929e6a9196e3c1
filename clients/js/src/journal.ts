/** A behavior configured on the agent that did not act on a request. */
export interface SkippedBehavior {
  behavior: string;
  /** The scope key that excluded it (agent, skill, op, ...). */
  key: string;
  /** What the request had against what the scope wants. */
  detail: string;
}

/** A behavior in scope of a request that left its decision as it was. */
export interface NotActedBehavior {
  behavior: string;
  /** What about the request kept the behavior from acting (a continuation naming a task the agent does not hold, say). */
  reason: string;
}

/** One line of the journal, as GET /_a2amock/journal returns it. */
export interface Entry {
  seq: number;
  time: string;
  agent: string;
  kind: "request" | "response" | "decision" | "event" | "stream-close" | "card" | "jwks" | "push" | "dropped" | "stream-event" | "withheld" | "note";
  op?: string;
  method?: string;
  dialect?: string;
  binding?: string;
  request?: number;
  taskId?: string;
  contextId?: string;
  messageId?: string;
  state?: string;
  refTaskId?: string;
  errorCode?: number;
  http?: number;
  detail?: string;
  /** On a ListTasks or ListTaskPushNotificationConfigs request, the pageToken the client sent; on its response, the nextPageToken the agent answered. */
  pageToken?: string;
  /** A fingerprint of a request message's text (the first 8 bytes of its SHA-256, hex), so a resent message can be recognised without the journal keeping what it said. */
  messageDigest?: string;
  /** The A2A-Version a request carried (header or query); absent when it sent none. */
  version?: string;
  /** The HTTP path of card fetches and REST requests. */
  path?: string;
  metadataKeys?: string[];
  /** Behaviors applied to the request (in its scope); on a stream-event or withheld entry, the stream behaviors that shaped it. */
  behaviors?: string[];
  /** Behaviors configured but out of scope, and why. */
  skipped?: SkippedBehavior[];
  /** On a request or card entry: the behaviors that changed anything about it, with the hook they acted through. */
  acted?: { behavior: string; hook: string }[];
  /** On a decision: the behaviors in scope that left it as it was, with why. */
  notActed?: NotActedBehavior[];
  /** On a request: the fields its dialect does not define, by path ("configuration.blocking", "page_size"), which the agent skipped unread. */
  ignored?: string[];
}

export const TERMINAL_STATES: ReadonlySet<string> = new Set(["completed", "failed", "canceled", "rejected"]);

/** Milliseconds since the epoch of a journal time (RFC 3339, nanoseconds cut to milliseconds). */
export function entryTime(e: Entry): number {
  return Date.parse(e.time.replace(/(\.\d{3})\d+/, "$1"));
}

/** Nanoseconds between two journal times, exact. */
export function nanosBetween(from: string, to: string): bigint {
  const ns = (t: string): bigint => {
    const m = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(t);
    if (!m) throw new Error(`not an RFC 3339 time: ${t}`);
    const whole = BigInt(Date.parse(m[1] + m[3])) * 1_000_000n;
    return whole + BigInt((m[2] ?? "").padEnd(9, "0").slice(0, 9) || "0");
  };
  return ns(to) - ns(from);
}
