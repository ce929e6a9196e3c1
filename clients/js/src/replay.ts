import { fileURLToPath } from "node:url";

import { JournalAssertions } from "./asserting.js";
import type { Entry } from "./journal.js";
import type { JournalQuery } from "./mock.js";
import { A2amockServer, type ReplayServerOptions } from "./server.js";

/** The replayed agent's name on the server (record/replay's AgentName). */
export const REPLAY_AGENT = "agent";

/** How to replay a recording: speed (0, the default, waits for no recorded delay), splice, behaviors, binary. */
export type ReplayOptions = ReplayServerOptions;

/**
 * A recording (`a2amock record`) served by an `a2amock replay` process of
 * its own: the recorded agent at `url` (its card at `cardUrl`), each
 * recorded send played through the engine as a scripted timeline. The
 * journal, the behaviors and the assertions are a Mock's (the agent is
 * named "agent"). close() ends the process; so does the end of this
 * process, however it ends. Start one with startReplay.
 */
export class Replay extends JournalAssertions {
  constructor(
    readonly server: A2amockServer,
    /** The recording's path, as given. */
    readonly recording: string,
  ) {
    super();
  }

  /** The replay's base URL: the recorded agent is served at its root. */
  get url(): string {
    return `${this.server.url}/`;
  }

  /** The agent card's URL, as the agent served it (its interface URLs pointed at the replay). */
  get cardUrl(): string {
    return `${this.server.url}/.well-known/agent-card.json`;
  }

  /** The host:port a gRPC client dials: a replay serves recorded gRPC calls on its HTTP port. */
  get grpcTarget(): string {
    return this.server.grpcTarget;
  }

  /** Whether the process has ended (after close()). */
  get closed(): boolean {
    const p = this.server.process;
    return p !== undefined && (p.exitCode !== null || p.signalCode !== null);
  }

  /** The agent card as a client reads it. */
  async card(): Promise<Record<string, any>> {
    const r = await fetch(this.cardUrl);
    if (!r.ok) throw new Error(`card of the replay: HTTP ${r.status}`);
    return r.json() as Promise<Record<string, any>>;
  }

  /** What the replay answered since it started (or since reset()), oldest first; optionally only a task's entries, or some kinds. */
  async journal(query: Omit<JournalQuery, "agent"> = {}): Promise<Entry[]> {
    const kind = Array.isArray(query.kind) ? query.kind.join(",") : query.kind;
    const r = await this.server.control("GET", "/journal", { params: { agent: REPLAY_AGENT, task: query.task, kind } });
    return ((await r.json()) as { entries: Entry[] }).entries;
  }

  /** The behaviors acting on replayed requests: "replay" (always first), then the splice and those given. */
  async behaviors(): Promise<string[]> {
    const r = await this.server.control("GET", "/behaviors", { params: { agent: REPLAY_AGENT } });
    return ((await r.json()) as { behaviors: string[] }).behaviors;
  }

  /**
   * Replaces the behaviors given at start (and the splice) with specs; the
   * replay stays first. Nothing changes when a spec does not parse
   * (InvalidRequestError). Returns the behaviors now acting.
   */
  async setBehaviors(specs: string[]): Promise<string[]> {
    const r = await this.server.control("PUT", "/behaviors", { params: { agent: REPLAY_AGENT }, body: { behaviors: specs } });
    return ((await r.json()) as { behaviors: string[] }).behaviors;
  }

  /** Per behavior, how many requests it acted on and skipped. */
  async behaviorStats(): Promise<{ behavior: string; acted: number; skipped: number; skippedBy: Record<string, number>; skipReasons: Record<string, number>; lastSkip?: string }[]> {
    const r = await this.server.control("GET", "/behaviors", { params: { agent: REPLAY_AGENT } });
    return ((await r.json()) as any).stats;
  }

  /** Rewinds the recording to its first exchange, forgets the replayed tasks and clears the journal. */
  async reset(): Promise<void> {
    await this.server.control("POST", "/reset");
  }

  /** Ends the replay's process (SIGTERM, then SIGKILL after 5s). */
  async close(): Promise<void> {
    await this.server.close();
  }

  // What the assertions (JournalAssertions) read.

  protected journalFor(agent?: string): Promise<Entry[]> {
    onlyAgent(agent);
    return this.journal();
  }

  protected cardFor(agent?: string): Promise<Record<string, any>> {
    onlyAgent(agent);
    return this.card();
  }

  protected serverName(agent?: string): string {
    onlyAgent(agent);
    return REPLAY_AGENT;
  }
}

function onlyAgent(agent?: string): void {
  if (agent !== undefined && agent !== REPLAY_AGENT) {
    throw new Error(`a replay serves one agent, ${JSON.stringify(REPLAY_AGENT)}, not ${JSON.stringify(agent)}`);
  }
}

/**
 * Replays a recording written by `a2amock record` (JSON or YAML; a path, or
 * a file: URL such as new URL("./incident.json", import.meta.url)) in an
 * `a2amock replay` process of its own on a free loopback port, and resolves
 * once it answers. The binary is options.binary, else A2AMOCK_BIN, else
 * a2amock on PATH. A recording it cannot load rejects with ServerStartError
 * carrying its message ("file:line:col: exchanges[2]: ...").
 *
 *     const replay = await startReplay("incident.json", { splice: "2:drop" });
 *     try {
 *       await runMyClient(replay.cardUrl);
 *       await replay.assertNoOrphans();
 *     } finally {
 *       await replay.close();
 *     }
 */
export async function startReplay(recording: string | URL, options: ReplayOptions = {}): Promise<Replay> {
  const path = recording instanceof URL ? fileURLToPath(recording) : recording;
  return new Replay(await A2amockServer.startReplay(path, options), path);
}
