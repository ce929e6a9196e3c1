import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";

import { JournalAssertions } from "./asserting.js";
import { NotFoundError } from "./errors.js";
import type { Entry } from "./journal.js";
import { A2amockServer } from "./server.js";

export const DEFAULT_AGENT = "agent";

/** An agent created for the test; `serverName` is its unique name on the server. */
export interface Agent {
  name: string;
  serverName: string;
  url: string;
  cardUrl: string;
  dialect: string;
  skills: string[];
  behaviors: string[];
}

/** What an agent is made of (the scenario file format, docs/scenario.schema.json). */
export interface AgentOptions {
  card?: Record<string, unknown>;
  /** Specs ("name:key=value,...") or {name, params, scope} objects. */
  behaviors?: (string | Record<string, unknown>)[];
  timelines?: Record<string, unknown>[];
  /** A scenario file's path or its YAML/JSON text: the agent is its first agent, or scenarioAgent. */
  scenario?: string | URL;
  scenarioAgent?: string;
}

/** Journal filters. */
export interface JournalQuery {
  agent?: string;
  task?: string;
  kind?: string | string[];
}

/** A scenario given as a path (a URL, or a string naming an existing file) or as text. */
export function scenarioText(scenario: string | URL): string {
  if (scenario instanceof URL) return readFileSync(scenario, "utf8");
  if (!scenario.includes("\n") && existsSync(scenario)) return readFileSync(scenario, "utf8");
  return scenario;
}

/**
 * A fresh set of agents for one test on a (possibly shared) a2amock server.
 * Each agent gets a unique name on the server, its own task store, behaviors
 * and journal view; close() removes them. Create one with Mock.create: it
 * adds the default agent, "agent", which `url` and `cardUrl()` point at.
 * The assertions (assertNoOrphans, ...) read the journal of one agent of
 * the test (`agent`), or of all of them.
 */
export class Mock extends JournalAssertions {
  private readonly suffix = randomBytes(4).toString("hex");
  private readonly byName = new Map<string, Agent>();

  private constructor(
    readonly server: A2amockServer,
    private readonly ownsServer: boolean,
  ) {
    super();
  }

  /** A Mock with its default agent on server; ownsServer closes the server with the mock. */
  static async create(server: A2amockServer, options: { ownsServer?: boolean; defaultAgent?: AgentOptions | false } = {}): Promise<Mock> {
    const m = new Mock(server, options.ownsServer ?? false);
    if (options.defaultAgent !== false) await m.addAgent(DEFAULT_AGENT, options.defaultAgent ?? {});
    return m;
  }

  /** Creates an agent; InvalidRequestError names the field at fault, and nothing is created then. */
  async addAgent(name: string = DEFAULT_AGENT, options: AgentOptions = {}): Promise<Agent> {
    if (this.byName.has(name)) throw new Error(`this test already has an agent named ${JSON.stringify(name)}`);
    const body: Record<string, unknown> = { name: `${name.slice(0, 55)}-${this.suffix}` };
    if (options.card) body.card = options.card;
    if (options.behaviors) body.behaviors = options.behaviors;
    if (options.timelines) body.timelines = options.timelines;
    if (options.scenario !== undefined) body.scenario = scenarioText(options.scenario);
    if (options.scenarioAgent) body.scenarioAgent = options.scenarioAgent;
    const d = (await (await this.server.control("POST", "/agents", { body })).json()) as any;
    const agent: Agent = { name, serverName: d.name, url: d.url, cardUrl: d.cardUrl, dialect: d.dialect,
      skills: d.skills, behaviors: d.behaviors };
    this.byName.set(name, agent);
    return agent;
  }

  /** The test's agent of that name (default: the default agent). */
  agent(name: string = DEFAULT_AGENT): Agent {
    const a = this.byName.get(name);
    if (!a) throw new Error(`no agent ${JSON.stringify(name)} in this test (agents: ${[...this.byName.keys()].join(", ")})`);
    return a;
  }

  /** The test's agents, in creation order. */
  get agents(): Agent[] {
    return [...this.byName.values()];
  }

  /** The default agent's JSON-RPC URL. */
  get url(): string {
    return this.agent().url;
  }

  /** An agent's JSON-RPC URL. */
  agentUrl(agent?: string): string {
    return this.agent(agent).url;
  }

  /** An agent's card URL. */
  cardUrl(agent?: string): string {
    return this.agent(agent).cardUrl;
  }

  /** An agent's card as a client reads it. */
  async card(agent?: string): Promise<Record<string, any>> {
    const r = await fetch(this.cardUrl(agent));
    if (!r.ok) throw new Error(`card of ${agent ?? DEFAULT_AGENT}: HTTP ${r.status}`);
    return r.json() as Promise<Record<string, any>>;
  }

  /** Removes one of the test's agents: its streams end, its tasks go. */
  async removeAgent(agent: string): Promise<void> {
    const a = this.agent(agent);
    await this.server.control("DELETE", `/agents/${a.serverName}`);
    this.byName.delete(a.name);
  }

  /** Replaces an agent's behaviors; nothing changes when one spec does not parse. */
  async setBehaviors(agent: string | undefined, specs: string[]): Promise<string[]> {
    const r = await this.server.control("PUT", "/behaviors", { params: { agent: this.agent(agent).serverName }, body: { behaviors: specs } });
    return ((await r.json()) as any).behaviors;
  }

  /** Why didn't it fire: per behavior, requests acted on and skipped (by scope key). */
  async behaviorStats(agent?: string): Promise<{ behavior: string; acted: number; skipped: number; skippedBy: Record<string, number>; skipReasons: Record<string, number>; lastSkip?: string }[]> {
    const r = await this.server.control("GET", "/behaviors", { params: { agent: this.agent(agent).serverName } });
    return ((await r.json()) as any).stats;
  }

  /** Forgets the tasks of the test's agents and starts their journal views afresh. */
  async reset(): Promise<void> {
    for (const a of this.byName.values()) await this.server.control("POST", "/reset", { params: { agent: a.serverName } });
  }

  /** Removes the test's agents (and stops the server when the mock started it). */
  async close(): Promise<void> {
    for (const a of this.byName.values()) {
      try {
        await this.server.control("DELETE", `/agents/${a.serverName}`);
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
      }
    }
    this.byName.clear();
    if (this.ownsServer) await this.server.close();
  }

  /** The journal of one agent of the test, or of all of them, oldest first. */
  async journal(query: JournalQuery = {}): Promise<Entry[]> {
    const kind = Array.isArray(query.kind) ? query.kind.join(",") : query.kind;
    const names = query.agent ? [this.agent(query.agent).serverName] : this.agents.map((a) => a.serverName);
    const out: Entry[] = [];
    for (const n of names) {
      const r = await this.server.control("GET", "/journal", { params: { agent: n, task: query.task, kind } });
      out.push(...((await r.json()) as { entries: Entry[] }).entries);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** The server's metrics, in the Prometheus text format. */
  async metrics(): Promise<string> {
    return (await this.server.control("GET", "/metrics")).text();
  }

  // What the assertions (JournalAssertions) read.

  protected journalFor(agent?: string): Promise<Entry[]> {
    return this.journal({ agent });
  }

  protected cardFor(agent?: string): Promise<Record<string, any>> {
    return this.card(agent);
  }

  protected serverName(agent?: string): string {
    return this.agent(agent).serverName;
  }
}
