import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";

import {
  BinaryNotFoundError,
  ConflictError,
  ControlAPIError,
  InvalidRequestError,
  NotFoundError,
  ServerStartError,
} from "./errors.js";

export const INSTALL_HINT =
  "a2amock needs its server: set A2AMOCK_URL to a running a2amock server or container " +
  "(e.g. http://127.0.0.1:8080), or put the a2amock binary on PATH or in A2AMOCK_BIN. " +
  "Install the binary with `go install github.com/a2amock/a2amock/cmd/a2amock@latest` " +
  "(or `go build -o bin/a2amock ./cmd/a2amock` in a clone), or run the container image.";

export const REPLAY_INSTALL_HINT =
  "a replay runs its own a2amock process: put the a2amock binary on PATH or in A2AMOCK_BIN " +
  "(a server at A2AMOCK_URL cannot replay a recording). " +
  "Install it with `go install github.com/a2amock/a2amock/cmd/a2amock@latest` " +
  "(or `go build -o bin/a2amock ./cmd/a2amock` in a clone).";

const SERVING = /serving \d+ agent\(s\) at (http:\/\/\S+)/;
// "a2amock: replaying FILE (N exchange(s) recorded from UPSTREAM) at URL":
// the URL is the line's last word, whatever the file's name holds.
const REPLAYING = /^a2amock: replaying .* at (http:\/\/\S+)\s*$/;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The a2amock binary: A2AMOCK_BIN when set, else a2amock on PATH. */
export function findBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.A2AMOCK_BIN) {
    if (!executable(env.A2AMOCK_BIN)) {
      throw new BinaryNotFoundError(`A2AMOCK_BIN=${JSON.stringify(env.A2AMOCK_BIN)} is not an executable file. ${INSTALL_HINT}`);
    }
    return env.A2AMOCK_BIN;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, "a2amock"))) return join(dir, "a2amock");
  }
  return undefined;
}

/** How to reach or start a server. */
export interface ServerOptions {
  /** A running server or container; default: A2AMOCK_URL. */
  url?: string;
  /** The binary to start; default: A2AMOCK_BIN, else a2amock on PATH. */
  binary?: string;
  /** Extra arguments of `a2amock serve`. */
  args?: string[];
  /** Control token (--control-token); default: A2AMOCK_CONTROL_TOKEN. */
  token?: string;
  /** How long to wait for the server to answer its health check. */
  timeoutMs?: number;
}

/** How to start a replay of a recording (`a2amock replay`). */
export interface ReplayServerOptions {
  /** Divides the recorded delays: 0 (the default) waits for none, 1 is recorded time. */
  speed?: number;
  /** A fault cut into event N (from 0) of every replayed stream: "N:end-stream", "N:drop" or "N:hang". */
  splice?: string;
  /** Behaviors of the catalogue applied to every replayed request, e.g. "stream-drop-events:rate=0.5". */
  behaviors?: string[];
  /** The binary to start; default: A2AMOCK_BIN, else a2amock on PATH. */
  binary?: string;
  /** Control token (--control-token); none by default (the replay listens on loopback). */
  token?: string;
  /** How long to wait for the replay to answer its health check. */
  timeoutMs?: number;
}

/** Query parameters and JSON body of a control-API call. */
export interface ControlCall {
  params?: Record<string, string | number | undefined>;
  body?: unknown;
}

/**
 * An a2amock server: one this process started, or one already running (a
 * container given by A2AMOCK_URL). `control` calls its control API
 * (/_a2amock/...), throwing ControlAPIError with the server's message on a
 * 4xx or 5xx.
 */
export class A2amockServer {
  private constructor(
    readonly url: string,
    readonly process?: ChildProcess,
    private readonly token?: string,
  ) {}

  /**
   * The host:port a gRPC client dials, for a server started with
   * `args: ["--grpc"]`: every agent's card declares it, with the agent's
   * name as tenant (which the SDKs put in each request and the server
   * routes on).
   */
  get grpcTarget(): string {
    return this.url.replace(/^[a-z]+:\/\//, "");
  }

  /** A2AMOCK_URL when set (or options.url), else the binary started on a free loopback port. */
  static async fromEnv(options: ServerOptions = {}): Promise<A2amockServer> {
    const url = options.url ?? process.env.A2AMOCK_URL;
    const token = options.token ?? process.env.A2AMOCK_CONTROL_TOKEN;
    if (url) return A2amockServer.connect(url, { ...options, token });
    return A2amockServer.start({ ...options, token });
  }

  /** Connects to a running server and waits for /_a2amock/healthz. */
  static async connect(url: string, options: ServerOptions = {}): Promise<A2amockServer> {
    const srv = new A2amockServer(url.replace(/\/+$/, ""), undefined, options.token);
    await srv.waitHealthy(options.timeoutMs ?? 10_000);
    return srv;
  }

  /**
   * Starts `a2amock serve` on a free loopback port and waits for /_a2amock/healthz.
   * The server ends with this process however it ends (`close()`, exit, or a kill
   * that runs no handler: it watches a pipe on its stdin).
   */
  static async start(options: ServerOptions = {}): Promise<A2amockServer> {
    const binary = options.binary ?? findBinary();
    if (!binary) throw new BinaryNotFoundError(INSTALL_HINT);
    const args = ["serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--exit-on-stdin-close", ...(options.args ?? [])];
    return A2amockServer.launch(binary, args, SERVING, options);
  }

  /**
   * Starts `a2amock replay RECORDING` on a free loopback port, as start()
   * starts `a2amock serve` (and ending as it does): the recording served as
   * an a2amock server whose one agent, "agent", plays it at its root. A
   * recording the binary cannot load, or a flag it refuses, throws
   * ServerStartError with the binary's message (file:line:col for a
   * malformed file).
   */
  static async startReplay(recording: string, options: ReplayServerOptions = {}): Promise<A2amockServer> {
    const binary = options.binary ?? findBinary();
    if (!binary) throw new BinaryNotFoundError(REPLAY_INSTALL_HINT);
    const speed = options.speed ?? 0;
    if (!(speed >= 0)) throw new RangeError(`speed ${speed}: use 0 or more`);
    const args = ["replay", "--addr", "127.0.0.1:0", "--exit-on-stdin-close", "--speed", String(speed)];
    if (options.splice !== undefined) args.push("--splice", options.splice);
    for (const b of options.behaviors ?? []) args.push("--behavior", b);
    // "--" ends the flags: a recording whose name starts with "-" is still a file.
    args.push("--", recording);
    return A2amockServer.launch(binary, args, REPLAYING, options);
  }

  /**
   * Runs `binary args`, waits for the line `ready` finds its URL in, then
   * for /_a2amock/healthz; the process is the server's.
   */
  private static async launch(binary: string, subcommandArgs: string[], ready: RegExp,
    options: { token?: string; timeoutMs?: number }): Promise<A2amockServer> {
    const timeoutMs = options.timeoutMs ?? 15_000;
    // Both callers pass --exit-on-stdin-close: with a pipe on stdin that only
    // this process holds, whatever ends this process (a SIGKILL, a worker
    // killed on timeout, a signal with no handler, none of which emits
    // "exit") closes the pipe and takes the server with it.
    const args = [...subcommandArgs];
    // After the subcommand, before a replay's "--" and recording.
    if (options.token) args.splice(1, 0, "--control-token", options.token);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("A2AMOCK_")));
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"], env });
    // Nothing is written to it; a server gone first must not raise EPIPE here.
    child.stdin!.on("error", () => {});
    const stderr: string[] = [];
    const stderrDone = new Promise<void>((resolve) => child.stderr!.once("close", () => resolve()));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr.push(d);
      if (stderr.length > 50) stderr.shift();
    });
    const lines = createInterface({ input: child.stdout! });
    let url: string;
    try {
      url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new ServerStartError(
          `${binary} ${args.join(" ")} did not report its address within ${timeoutMs}ms; stderr:\n${stderr.join("")}`)), timeoutMs);
        child.once("error", (e) => {
          clearTimeout(timer);
          reject(new ServerStartError(`could not run ${binary}: ${e.message}. ${INSTALL_HINT}`));
        });
        let served = false;
        child.once("exit", (code) => {
          clearTimeout(timer);
          if (served) return;
          // All of stderr: the binary's message is its last words.
          const fail = () => reject(new ServerStartError(
            `${binary} ${args.join(" ")} exited with code ${code} before serving; stderr:\n${stderr.join("")}`));
          const late = setTimeout(fail, 2000);
          void stderrDone.then(() => {
            clearTimeout(late);
            fail();
          });
        });
        lines.on("line", (line) => {
          const m = ready.exec(line);
          if (m && !served) {
            served = true;
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
    } catch (e) {
      await stop(child);
      throw e;
    }
    // Keep reading stdout so the child never blocks on a full pipe.
    lines.on("line", () => {});
    running.add(child);
    const srv = new A2amockServer(url.replace(/\/+$/, ""), child, options.token);
    try {
      await srv.waitHealthy(timeoutMs);
    } catch (e) {
      await srv.close();
      throw e;
    }
    return srv;
  }

  /** Polls /_a2amock/healthz until it answers 200. */
  async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      try {
        const r = await fetch(`${this.url}/_a2amock/healthz`, { headers: this.headers(), signal: AbortSignal.timeout(2000) });
        if (r.ok) {
          await r.arrayBuffer();
          return;
        }
        last = `HTTP ${r.status}: ${(await r.text()).slice(0, 200)}`;
        if (r.status === 401 || r.status === 403) {
          throw new ServerStartError(`a2amock at ${this.url} refused the control API (${last}); set A2AMOCK_CONTROL_TOKEN to the server's --control-token`);
        }
      } catch (e) {
        if (e instanceof ServerStartError) throw e;
        last = String(e);
      }
      if (Date.now() >= deadline) {
        throw new ServerStartError(`a2amock at ${this.url} did not answer /_a2amock/healthz within ${timeoutMs}ms (${last})`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops the process this object started; a server it only connected to is left running. */
  async close(): Promise<void> {
    if (this.process) await stop(this.process);
  }

  private headers(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  /** Calls the control API at /_a2amock{path}; throws ControlAPIError on a 4xx or 5xx. */
  async control(method: string, path: string, call: ControlCall = {}): Promise<Response> {
    const full = `/_a2amock${path}`;
    const u = new URL(this.url + full);
    for (const [k, v] of Object.entries(call.params ?? {})) {
      if (v !== undefined && v !== "") u.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = this.headers();
    let body: string | undefined;
    if (call.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(call.body);
    }
    const r = await fetch(u, { method, headers, body });
    if (r.status < 400) return r;
    const text = await r.text();
    let message = text.slice(0, 500);
    let field: string | undefined;
    let errors: unknown[] = [];
    try {
      const j = JSON.parse(text);
      message = j.error?.message ?? message;
      field = j.error?.field;
      errors = j.errors ?? [];
    } catch {
      // not JSON: keep the text
    }
    const Cls = r.status === 404 ? NotFoundError : r.status === 409 ? ConflictError
      : [400, 413, 415].includes(r.status) ? InvalidRequestError : ControlAPIError;
    throw new Cls(method, full, r.status, message, field, errors, text);
  }
}

// Servers started and not yet stopped: killed when this process exits, so a
// test run that ends without its teardown leaves no server behind.
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

async function stop(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  child.stdin?.destroy();
}
