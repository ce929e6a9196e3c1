// a2amock timeline: one page for the live view and the static report.
// Plain JavaScript and SVG; every journal string goes into the DOM as text.
"use strict";
(() => {
  const cfg = JSON.parse(document.getElementById("a2amock-config").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const TERMINAL = new Set(["completed", "failed", "canceled", "cancelled", "rejected"]);
  const LEFT_IDLE_MS = 5000, MAX_ROWS = 150, MAX_MARKS = 40, ROW_H = 34, LABEL_W = 200, END_W = 240;
  const $ = (id) => document.getElementById(id);
  const normState = (s) => (s ? String(s).toLowerCase().replace(/^task_state_/, "").replace(/_/g, "-") : "");
  const behaviorName = (spec) => String(spec).split(":")[0].trim();

  function el(tag, attrs, text) {
    const n = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
    for (const k in attrs || {}) n.setAttribute(k, attrs[k]);
    if (text != null) n.textContent = text;
    return n;
  }

  // Model: the journal folded into agents, tasks, requests and divergences.
  class Model {
    constructor(name) { this.name = name; this.reset(); }
    reset() {
      this.entries = []; this.agents = new Map(); this.tasks = new Map(); this.requests = new Map();
      this.divergences = []; this.kinds = new Set(); this.t0 = Infinity; this.t1 = -Infinity; this.lastSeq = 0; this.failedBy = new Map();
    }
    agent(name) {
      let a = this.agents.get(name);
      if (!a) { a = { name, tasks: [], misc: [] }; this.agents.set(name, a); }
      return a;
    }
    task(agent, id) {
      const key = agent + "\u0000" + id;
      let t = this.tasks.get(key);
      if (!t) {
        t = { key, agent, id, contextId: "", entries: [], seen: new Set(), state: "", first: Infinity, last: -Infinity,
          faults: 0, divergedTo: null, divergedFrom: null, cancelReq: false, dropped: false, touched: 0 };
        this.tasks.set(key, t); this.agent(agent).tasks.push(t);
      }
      return t;
    }
    attach(t, e) {
      if (t.seen.has(e.seq)) return;
      t.seen.add(e.seq); t.entries.push(e);
      t.first = Math.min(t.first, e._t); t.last = Math.max(t.last, e._t); t.touched = performance.now();
      if (e.contextId) t.contextId = e.contextId;
      if (e.state && e.taskId === t.id && (e.kind === "event" || e.kind === "response" || e.kind === "push")) t.state = normState(e.state);
      if (e.behaviors && e.behaviors.length) t.faults++;
      if (e.kind === "dropped") t.dropped = true;
      if (e.kind === "request" && /cancel/i.test((e.method || "") + (e.op || ""))) t.cancelReq = true;
    }
    add(e) {
      if (!e || typeof e !== "object") return;
      e._t = Date.parse(e.time) || 0;
      this.entries.push(e); this.kinds.add(e.kind);
      this.lastSeq = Math.max(this.lastSeq, e.seq || 0);
      if (e._t) { this.t0 = Math.min(this.t0, e._t); this.t1 = Math.max(this.t1, e._t); }
      const agent = e.agent || "(default)";
      const a = this.agent(agent);
      let r = null;
      if (e.request) {
        r = this.requests.get(e.request);
        if (!r) { r = { entries: [], task: null, ref: "" }; this.requests.set(e.request, r); }
        r.entries.push(e);
        if (e.kind === "request" && e.refTaskId) r.ref = e.refTaskId;
      }
      if (e.taskId) {
        const t = this.task(agent, e.taskId);
        this.attach(t, e);
        if (r && !r.task) { r.task = t; for (const x of r.entries) if (!x.taskId && x !== e) this.attach(t, x); }
        if (r && r.ref && r.ref !== e.taskId && !r.diverged) {
          r.diverged = true;
          const from = this.task(agent, r.ref);
          from.divergedTo = t; t.divergedFrom = from;
          this.divergences.push({ from, to: t, entry: e });
        }
      } else if (r && r.task) {
        this.attach(r.task, e);
      } else if (e.refTaskId) {
        this.attach(this.task(agent, e.refTaskId), e);
      } else if (!r || e.kind !== "request") {
        a.misc.push(e);
      }
    }
    // end says how a task ended, with a label that does not need colour.
    end(t, live) {
      if (t.dropped) return { cls: "left", label: "✗ dropped by the store" };
      if (TERMINAL.has(t.state)) {
        if (t.state.startsWith("cancel") && t.cancelReq) return { cls: "end", label: "■ canceled by the client" };
        return { cls: "end", label: "✓ " + t.state };
      }
      const idle = live ? performance.now() - t.touched >= LEFT_IDLE_MS : true;
      if (t.divergedTo || idle) return { cls: "left", label: "⚠ LEFT BEHIND (" + (t.state || "no state") + ")", left: true };
      return { cls: "", label: "… " + (t.state || "open") };
    }
  }

  // Filters.
  const filters = { agent: $("f-agent"), task: $("f-task"), context: $("f-context"), kind: $("f-kind"), left: $("f-left"), faults: $("f-faults"), axis: $("f-axis") };
  for (const k in filters) filters[k].addEventListener("input", () => schedule());
  function syncOptions(select, values) {
    const have = new Set([...select.options].map((o) => o.value));
    for (const v of [...values].sort()) if (!have.has(v)) select.append(el("option", { value: v }, v));
  }

  // Legend: every mark has a shape and a text label, not only a colour.
  function legend() {
    const L = $("legend");
    const item = (draw, text) => {
      const s = el("svg:svg", { width: 16, height: 16, "aria-hidden": "true" }); draw(s);
      const span = el("span"); span.append(s, " " + text); L.append(span);
    };
    item((s) => s.append(el("svg:path", { d: "M2 3 L14 8 L2 13 Z", class: "m-request" })), "request (client → agent)");
    item((s) => s.append(el("svg:path", { d: "M14 3 L2 8 L14 13 Z", class: "m-response" })), "answer");
    item((s) => s.append(el("svg:circle", { cx: 8, cy: 8, r: 5, class: "m-event" })), "event / state");
    item((s) => s.append(el("svg:circle", { cx: 8, cy: 8, r: 4, class: "m-decision" })), "decision");
    item((s) => s.append(el("svg:circle", { cx: 8, cy: 8, r: 6, class: "m-terminal" })), "terminal state (large)");
    item((s) => s.append(el("svg:rect", { x: 3, y: 3, width: 10, height: 10, class: "m-push" })), "push delivery");
    item((s) => s.append(el("svg:path", { d: "M8 1 L15 8 L8 15 L1 8 Z", class: "m-fault" })), "◆ fault (behavior acted)");
    item((s) => s.append(el("svg:rect", { x: 1, y: 3, width: 14, height: 10, fill: "none", class: "row-bg", style: "stroke:var(--left);stroke-width:2;stroke-dasharray:3 2" })), "⚠ left behind (dashed frame)");
    item((s) => s.append(el("svg:path", { d: "M2 2 C 12 2, 12 14, 14 14", class: "diverge" })), "divergence: continuation answered with a new task id");
  }

  function glossary() {
    const dl = $("glossary-list");
    for (const name of Object.keys(cfg.docs || {}).sort()) {
      dl.append(el("dt", { id: "behavior-" + name }, name), el("dd", {}, cfg.docs[name]));
    }
  }

  // Detail panel: the raw journal entries of a request, or a task's entries.
  let lastFocus = null;
  function openDetail(title, nodes) {
    lastFocus = document.activeElement;
    $("detail-title").textContent = title;
    $("detail-body").replaceChildren(...nodes);
    $("detail").hidden = false;
    $("detail-close").focus();
  }
  function closeDetail() {
    $("detail").hidden = true;
    if (!lastFocus) return;
    // The row may have been drawn again meanwhile: focus its new self.
    let f = lastFocus;
    if (!f.isConnected && f.dataset && f.dataset.task) f = [...document.querySelectorAll("g.row")].find((r) => r.dataset.task === f.dataset.task) || f;
    if (f.isConnected) f.focus();
  }
  $("detail-close").addEventListener("click", closeDetail);
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && !$("detail").hidden) closeDetail(); });

  const clean = (e) => { const o = {}; for (const k in e) if (!k.startsWith("_")) o[k] = e[k]; return o; };
  function showEntry(m, e) {
    const nodes = [];
    const r = e.request ? m.requests.get(e.request) : null;
    const group = r ? r.entries : [e];
    // A request or card entry names, in acted, the behaviors that changed
    // it and through which hook; the others in behaviors were in scope and
    // changed nothing (listed with the quiet ones below).
    const hooks = new Map();
    for (const a of e.acted || []) hooks.set(a.behavior, (hooks.has(a.behavior) ? hooks.get(a.behavior) + ", " : "") + a.hook);
    const scoped = e.kind === "request" || e.kind === "card";
    const acting = (e.behaviors || []).filter((b) => !scoped || hooks.has(b));
    if (acting.length) {
      const p = el("p", { class: "faults" }, "Faults that acted: ");
      for (const b of acting) {
        const a = el("a", { href: "#behavior-" + behaviorName(b), class: "badge fault" }, "◆ " + b + (hooks.has(b) ? " (" + hooks.get(b) + ")" : ""));
        a.addEventListener("click", () => { $("glossary").open = true; });
        p.append(a);
        if (cfg.docs && cfg.docs[behaviorName(b)]) p.append(el("span", {}, " — " + cfg.docs[behaviorName(b)] + " "));
      }
      nodes.push(p);
    }
    if (e._checks) nodes.push(el("p", { class: "badge left" }, "✗ failed check: " + e._checks.join(", ")));
    // Fields the client sent that the agent's dialect does not define: it
    // skipped them, so what they asked for never took effect.
    const ignored = group.flatMap((x) => x.ignored || []);
    if (ignored.length) nodes.push(el("p", { class: "badge left ignored" }, "⚠ fields the agent ignored (its dialect does not define them): " + ignored.join(", ")));
    // Why a configured fault did not fire: out of its scope, or in scope
    // and it left the exchange as it was.
    const quiet = [];
    if (scoped) for (const b of e.behaviors || []) if (!hooks.has(b)) quiet.push([b, "in scope, changed nothing"]);
    for (const x of group) {
      for (const k of x.skipped || []) quiet.push([k.behavior, "out of scope (" + k.key + "): " + k.detail]);
      for (const k of x.notActed || []) quiet.push([k.behavior, "in scope, did not act: " + k.reason]);
    }
    if (quiet.length) {
      const ul = el("ul", { class: "not-acted" });
      for (const [b, why] of quiet) {
        const a = el("a", { href: "#behavior-" + behaviorName(b), class: "badge" }, "◇ " + b);
        a.addEventListener("click", () => { $("glossary").open = true; });
        const li = el("li"); li.append(a, " — " + why); ul.append(li);
      }
      nodes.push(el("p", { class: "faults" }, "Behaviors that did not act:"), ul);
    }
    nodes.push(el("h3", {}, r ? "Request " + e.request + ": " + group.length + " journal entries (raw JSON)" : "Journal entry (raw JSON)"));
    nodes.push(el("pre", { class: "raw" }, group.map((x) => JSON.stringify(clean(x), null, 2)).join("\n")));
    if (e._wire) for (const w of e._wire) nodes.push(el("h3", {}, "Wire record"), el("pre", { class: "raw" }, JSON.stringify(w, null, 2)));
    if (cfg.wire && (e.request || e.kind === "card" || e.kind === "jwks")) nodes.push(wireView(e.request ? "request=" + e.request : "seq=" + e.seq));
    openDetail("#" + e.seq + " " + e.kind + (e.method ? " " + e.method : ""), nodes);
  }
  // The raw bytes of the exchange (live only: the server keeps the last
  // ones; a saved journal has none).
  const authHeaders = () => {
    const token = new URLSearchParams(location.hash.slice(1)).get("token");
    return token ? { Authorization: "Bearer " + token } : {};
  };
  const bodyText = (b) => b ? (b.text != null ? b.text : b.base64 != null ? "(base64) " + b.base64 : "") + (b.truncated ? `\n… (${b.size} bytes in all, first 16 KiB kept)` : "") : "";
  const headText = (h) => Object.keys(h || {}).sort().map((k) => h[k].map((v) => k + ": " + v).join("\n")).join("\n");
  function wireView(q) {
    const box = el("section", { class: "wire" }, el("h3", {}, "Raw bytes"), el("p", { class: "more" }, "loading…"));
    fetch(cfg.wire + "?" + q, { headers: authHeaders(), cache: "no-store" }).then(async (res) => {
      const x = await res.json();
      if (!res.ok) { box.replaceChildren(el("h3", {}, "Raw bytes"), el("p", { class: "more" }, (x.error && x.error.message) || "HTTP " + res.status)); return; }
      box.replaceChildren(
        el("h3", {}, "Request bytes"), el("pre", { class: "raw wire-request" }, `${x.method} ${x.url} ${x.proto}\n${headText(x.header)}\n\n${bodyText(x.body)}`),
        el("h3", {}, "Response bytes" + (x.done ? "" : " (still open)")), el("pre", { class: "raw wire-response" }, `${x.status || "(no status: the connection was taken over)"}\n${headText(x.responseHeader)}\n\n${bodyText(x.response)}${x.trailer ? "\n\n" + headText(x.trailer) : ""}`));
    }).catch((err) => box.replaceChildren(el("h3", {}, "Raw bytes"), el("p", { class: "more" }, "could not load: " + err)));
    return box;
  }
  function showTask(m, t, live) {
    const end = m.end(t, live);
    const ol = el("ol");
    for (const e of t.entries) {
      const b = el("button", { type: "button", "data-seq": e.seq }, describe(e));
      b.addEventListener("click", () => showEntry(m, e));
      const li = el("li"); li.append(b); ol.append(li);
    }
    const info = el("p", {}, `agent ${t.agent} · context ${t.contextId || "-"} · ${end.label}` +
      (t.divergedTo ? ` · its continuation was answered with new task ${t.divergedTo.id}` : "") +
      (t.divergedFrom ? ` · created by answering a continuation of ${t.divergedFrom.id}` : ""));
    openDetail("Task " + t.id, [info, ol]);
    const first = ol.querySelector("button"); if (first) first.focus();
  }
  function describe(e) {
    let s = `#${e.seq} ${e.kind}`;
    if (e.method) s += " " + e.method; else if (e.op) s += " " + e.op;
    if (e.dialect) s += ` [${e.dialect}${e.binding ? " " + e.binding : ""}]`;
    if (e.state) s += " → " + normState(e.state);
    if (e.refTaskId && e.refTaskId !== e.taskId) s += " (names task " + e.refTaskId + ")";
    if (e.errorCode) s += " error " + e.errorCode;
    if (e.http) s += " HTTP " + e.http;
    if (e.behaviors && e.behaviors.length) s += " ◆ fault: " + e.behaviors.join(", ");
    if (e.detail) s += " — " + e.detail;
    return s;
  }

  // Rendering: a lane per agent, a row per task, marks along time.
  function visibleTasks(m, live) {
    const fa = filters.agent.value, ft = filters.task.value.trim(), fc = filters.context.value.trim(), fk = filters.kind.value;
    const out = new Map();
    for (const [name, a] of m.agents) {
      if (fa && name !== fa) continue;
      const ts = a.tasks.filter((t) => (!ft || t.id.includes(ft)) && (!fc || t.contextId.includes(fc)) &&
        (!fk || t.entries.some((e) => e.kind === fk)) && (!filters.faults.checked || t.faults > 0) &&
        (!filters.left.checked || m.end(t, live).left));
      if (ts.length || (!ft && !fc && !filters.left.checked && !filters.faults.checked)) out.set(name, ts);
    }
    return out;
  }
  function sample(entries, fk) {
    let es = fk ? entries.filter((e) => e.kind === fk) : entries;
    if (es.length <= MAX_MARKS) return es;
    const keep = es.filter((e) => (e.behaviors && e.behaviors.length) || e._checks);
    const step = es.length / (MAX_MARKS - Math.min(keep.length, MAX_MARKS / 2));
    const picked = new Set(keep.slice(0, MAX_MARKS / 2));
    for (let i = 0; i < es.length; i += step) picked.add(es[Math.floor(i)]);
    picked.add(es[es.length - 1]);
    return es.filter((e) => picked.has(e));
  }
  // Labels of a lane (a fault's name, a failed check, a divergence) are
  // placed, not just drawn: each takes the first of its candidate lines
  // (above or below its task's line) where it overlaps no label placed
  // before it, cut to the room left before the end column, and is left out
  // when no line has room (the mark's title still says it all). Widths are
  // estimated a little over the label font's average character, since the
  // lane is built before it is laid out.
  const TAG_PX = 6.8, FAULT_PX = 6.4;
  function labeller(limit) {
    const placed = [];
    const free = (b) => placed.every((p) => b.x1 <= p.x0 || b.x0 >= p.x1 || b.y1 <= p.y0 || b.y0 >= p.y1);
    // place returns the text element for text starting at x (ending at x,
    // anchorEnd) on the first free baseline of ys, or null.
    return function place(text, x, ys, cls, px, size, anchorEnd) {
      const room = anchorEnd ? x - (LABEL_W + 10) : limit - x;
      const n = Math.floor(room / px);
      if (n < text.length) text = n > 3 ? text.slice(0, n - 1) + "…" : "";
      if (!text) return null;
      const w = text.length * px;
      const x0 = anchorEnd ? x - w : x;
      for (const y of ys) {
        const b = { x0, x1: x0 + w, y0: y - size, y1: y + size * 0.3 };
        if (!free(b)) continue;
        placed.push(b);
        return el("svg:text", { x, y, class: cls, "text-anchor": anchorEnd ? "end" : "start" }, text);
      }
      return null;
    };
  }
  function markShape(e, x, y) {
    const k = e.kind;
    if (e.behaviors && e.behaviors.length) return el("svg:path", { d: `M${x} ${y - 8} L${x + 8} ${y} L${x} ${y + 8} L${x - 8} ${y} Z`, class: "m-fault" });
    if (k === "request") return el("svg:path", { d: `M${x - 5} ${y - 6} L${x + 6} ${y} L${x - 5} ${y + 6} Z`, class: "m-request" });
    if (k === "response") return el("svg:path", { d: `M${x + 5} ${y - 6} L${x - 6} ${y} L${x + 5} ${y + 6} Z`, class: "m-response" });
    if (k === "push") return el("svg:rect", { x: x - 4, y: y - 4, width: 8, height: 8, class: "m-push" });
    if (k === "stream-close") return el("svg:line", { x1: x, y1: y - 8, x2: x, y2: y + 8, class: "m-close" });
    if (k === "dropped") return el("svg:path", { d: `M${x - 5} ${y - 5} L${x + 5} ${y + 5} M${x + 5} ${y - 5} L${x - 5} ${y + 5}`, class: "m-close" });
    if (k === "event" && TERMINAL.has(normState(e.state))) return el("svg:circle", { cx: x, cy: y, r: 6, class: "m-terminal" });
    return el("svg:circle", { cx: x, cy: y, r: 4, class: "m-" + (k === "event" ? "event" : k) });
  }
  function renderModel(m, container, live) {
    const fk = filters.kind.value;
    const vis = visibleTasks(m, live);
    let t0 = Infinity, t1 = -Infinity;
    for (const ts of vis.values()) for (const t of ts) { t0 = Math.min(t0, t.first); t1 = Math.max(t1, t.last); }
    if (!isFinite(t0)) { t0 = 0; t1 = 1; }
    const span = Math.max(t1 - t0, 1);
    const width = Math.max((container.clientWidth || 900) - 8, 600);
    const plotW = width - LABEL_W - END_W - 20;
    const endX = width - END_W; // where the end column (a task's last state) starts
    // The x axis is time, or the order of the entries (a sequence diagram:
    // every entry its own column, however close in time).
    let X;
    if (filters.axis.value === "time") X = (e) => LABEL_W + 10 + ((e._t - t0) / span) * plotW;
    else {
      const seqs = [];
      for (const ts of vis.values()) for (const t of ts.slice(-MAX_ROWS)) for (const e of t.entries) seqs.push(e.seq);
      seqs.sort((a, b) => a - b);
      const rank = new Map();
      for (const q of seqs) if (!rank.has(q)) rank.set(q, rank.size);
      const n = Math.max(rank.size - 1, 1);
      X = (e) => LABEL_W + 10 + ((rank.get(e.seq) ?? 0) / n) * plotW;
    }
    const frag = document.createDocumentFragment();
    let left = 0, shown = 0, total = 0;
    for (const [name, all] of vis) {
      total += all.length;
      const ts = all.slice(-MAX_ROWS);
      const sec = el("section", { class: "agent", "data-agent": name, "aria-label": "agent " + name });
      const leftHere = all.filter((t) => m.end(t, live).left).length;
      left += leftHere;
      const h = el("h2", {}, name);
      h.append(el("span", {}, ` — ${all.length} task${all.length === 1 ? "" : "s"}` + (leftHere ? `, ${leftHere} left behind` : "") +
        (ts.length < all.length ? ` (showing the newest ${ts.length})` : "") + (m.agents.get(name).misc.length ? `, ${m.agents.get(name).misc.length} card/other requests` : "")));
      sec.append(h);
      const svg = el("svg:svg", { class: "lanes", width, height: Math.max(ts.length, 1) * ROW_H + 4, role: "group", "aria-label": "tasks of " + name });
      const defs = el("svg:defs");
      const mk = el("svg:marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
      mk.append(el("svg:path", { d: "M0 0 L10 5 L0 10 z", style: "fill:var(--left)" })); defs.append(mk); svg.append(defs);
      const rowY = new Map();
      const place = labeller(endX - 6);
      ts.forEach((t, i) => {
        const y = i * ROW_H + ROW_H / 2 + 2;
        rowY.set(t, y);
        const end = m.end(t, live);
        const g = el("svg:g", { class: "row" + (end.left ? " left" : ""), "data-task": t.id, tabindex: 0, role: "button",
          "aria-label": `task ${t.id}, ${end.label}${t.faults ? ", " + t.faults + " faulted entries" : ""}${t.divergedTo ? ", continuation answered with new task " + t.divergedTo.id : ""}` });
        g.append(el("svg:rect", { x: 0, y: y - ROW_H / 2 + 1, width: width - 2, height: ROW_H - 2, rx: 3, class: "row-bg" }));
        g.append(el("svg:text", { x: 6, y: y + 4, class: "row-label" }, (t.id.length > 22 ? t.id.slice(0, 21) + "…" : t.id)));
        let xa = Infinity, xb = -Infinity;
        for (const e of t.entries) { const x = X(e); xa = Math.min(xa, x); xb = Math.max(xb, x); }
        g.append(el("svg:line", { x1: xa, y1: y, x2: xb, y2: y, class: "span" }));
        let faultLabelled = false;
        for (const e of sample(t.entries, fk)) {
          const x = X(e);
          const mg = el("svg:g", { class: "mark" + (e.behaviors && e.behaviors.length ? " fault" : "") + (e._checks ? " failed-check" : ""), "data-seq": e.seq, "data-kind": e.kind });
          mg.append(el("svg:title", {}, describe(e)));
          mg.append(markShape(e, x, y));
          if (e.behaviors && e.behaviors.length && !faultLabelled) {
            faultLabelled = true;
            const label = place("◆ " + e.behaviors.map(behaviorName).join(", "), x + 10, [y - 8, y + 14], "tag fault", FAULT_PX, 10);
            if (label) mg.append(label);
          }
          if (e._checks) {
            const label = place("✗ " + e._checks.join(", "), x + 10, [y + 14, y - 8], "tag left", TAG_PX, 11);
            if (label) mg.append(label);
          }
          mg.addEventListener("click", (ev) => { ev.stopPropagation(); showEntry(m, e); });
          g.append(mg);
        }
        g.append(el("svg:text", { x: endX + 4, y: y + 4, class: "tag " + end.cls }, end.label));
        g.addEventListener("click", () => showTask(m, t, live));
        g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); showTask(m, t, live); } });
        svg.append(g);
        shown++;
      });
      for (const d of m.divergences) {
        if (d.from.agent !== name || !rowY.has(d.to)) continue;
        const x = X(d.entry), y2 = rowY.get(d.to);
        const y1 = rowY.has(d.from) ? rowY.get(d.from) : 0;
        const p = el("svg:path", { d: `M${x - 30} ${y1} C ${x} ${y1}, ${x - 30} ${y2}, ${x - 8} ${y2}`, class: "diverge", "data-from": d.from.id, "data-to": d.to.id });
        p.append(el("svg:title", {}, `the continuation of ${d.from.id} was answered with a new task ${d.to.id}`));
        // Below the new task's line, after the arrow when there is room
        // before the end column, else before it.
        const text = "↳ new task id (continuation of " + d.from.id.slice(0, 12) + ")";
        const after = endX - 6 - (x + 12) >= Math.min(text.length * TAG_PX, 160);
        const label = place(text, after ? x + 12 : x - 12, [y2 + 14, y2 - 8], "diverge-label", TAG_PX, 11, !after);
        svg.append(p);
        if (label) svg.append(label);
      }
      sec.append(svg);
      frag.append(sec);
    }
    const focused = document.activeElement;
    const keep = focused && container.contains(focused) && focused.dataset ? focused.dataset.task : null;
    container.replaceChildren(frag);
    if (keep) {
      const again = [...container.querySelectorAll("g.row")].find((r) => r.dataset.task === keep);
      if (again) again.focus();
    }
    return { left, shown, total };
  }

  // Scheduling: entries go into the model as they come; drawing is
  // coalesced, at most every max(200 ms, 4× the last draw's cost).
  let views = [], pending = false, lastDraw = 0, drawCost = 0, renders = 0;
  function schedule() {
    if (pending) return;
    pending = true;
    const wait = Math.max(0, lastDraw + Math.max(200, 4 * drawCost) - performance.now());
    setTimeout(() => requestAnimationFrame(draw), wait);
  }
  function draw() {
    pending = false;
    const start = performance.now();
    let entries = 0, tasks = 0, left = 0;
    for (const v of views) {
      const r = renderModel(v.model, v.container, cfg.mode === "live");
      entries += v.model.entries.length; tasks += r.total; left += r.left;
      for (const k of v.model.kinds) kinds.add(k);
      for (const a of v.model.agents.keys()) agents.add(a);
    }
    syncOptions(filters.agent, agents); syncOptions(filters.kind, kinds);
    drawCost = performance.now() - start; lastDraw = performance.now(); renders++;
    $("status").textContent = `${cfg.mode === "live" ? (connected ? "live" : "connecting…") : "report"} · ${entries} entries · ${tasks} tasks · ${left} left behind`;
    window.a2amock.renders = renders; window.a2amock.drawMs = drawCost;
    // The newest journal entry the page has drawn: a test waits for it
    // before clicking, since a later draw moves the marks.
    window.a2amock.drawnSeq = Math.max(0, ...views.map((v) => v.model.lastSeq));
  }
  const kinds = new Set(), agents = new Set();
  let connected = false;
  window.a2amock = { views, renders: 0, drawMs: 0, drawnSeq: 0 };

  // Live: the journal's event stream, read with fetch so a control token
  // (given as #token=… in the page address, never sent as a URL) can go in
  // the Authorization header.
  async function live() {
    const m = new Model("live");
    views.push({ model: m, container: $("main") });
    const token = new URLSearchParams(location.hash.slice(1)).get("token");
    const headers = token ? { Authorization: "Bearer " + token } : {};
    let since = 0;
    for (;;) {
      try {
        const res = await fetch(cfg.stream + "?since=" + since, { headers, cache: "no-store" });
        if (!res.ok) throw new Error("HTTP " + res.status);
        connected = true; schedule();
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i); buf = buf.slice(i + 2);
            let ev = "message", data = "", id = null;
            for (const line of block.split("\n")) {
              if (line.startsWith("event:")) ev = line.slice(6).trim();
              else if (line.startsWith("data:")) data += line.slice(5).trim();
              else if (line.startsWith("id:")) id = line.slice(3).trim();
            }
            if (ev === "reset") { m.reset(); since = 0; }
            else if (ev === "entries" && data) { for (const e of JSON.parse(data)) m.add(e); }
            if (id !== null) since = Number(id) || since;
            schedule();
          }
        }
      } catch (err) {
        $("status").textContent = "stream: " + err.message + "; retrying";
      }
      connected = false;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  // A failed check's evidence, collapsed: its wire records (the HTTP and
  // gRPC exchanges it judged, which the journal cannot show: headers,
  // status, timing) and its journal entries, a table row each in sequence
  // order, the fields as conform's Markdown report shows them. open(e)
  // shows a journal entry's raw view.
  const EVIDENCE_ROWS = 200;
  const bySeq = (xs) => {
    const seen = new Set();
    return [...(xs || [])].filter((x) => x && typeof x === "object").sort((a, b) => (a.seq || 0) - (b.seq || 0))
      .filter((x) => !seen.has(x.seq) && seen.add(x.seq));
  };
  const plural = (n, one, many) => n + " " + (n === 1 ? one : many);
  const wireAnswer = (w) => w.grpc
    ? (w.open ? "no grpc-status yet (left open)" : w.grpcNoStatus ? "no grpc-status (ended without trailers)" : "grpc-status " + (w.grpcStatus || 0))
    : !w.status ? (w.open ? "none yet (left open)" : "none (connection taken over)") : "HTTP " + w.status;
  const wireVersion = (w) => !w.versionSent ? "not sent" : w.a2aVersion || "sent empty";
  function wireNotes(w) {
    const n = [];
    if (w.grpc) { n.push("gRPC"); if (w.tenant) n.push("tenant " + JSON.stringify(w.tenant)); }
    if (w.retryAfter) n.push(w.grpc ? "retry pushback " + w.retryAfter + "s" : "Retry-After: " + w.retryAfter);
    if (w.hijacked) n.push("connection taken over");
    if (w.faulted) n.push("answer not delivered whole");
    if (w.open) n.push("left open by the client (its exit, or a connection it closed)");
    if (w.request) n.push("journal request " + w.request);
    else if (w.journalSeq) n.push("journal #" + w.journalSeq);
    return n.join("; ");
  }
  function entryCall(e) {
    let s = e.method || e.op || "";
    if (e.dialect) s += ` [${e.dialect}${e.binding ? " " + e.binding : ""}]`;
    return s.trim() || e.path || "";
  }
  function entryNotes(e) {
    const n = [];
    if (e.request) n.push("request " + e.request);
    if (e.refTaskId && e.refTaskId !== e.taskId) n.push("names task " + e.refTaskId);
    if (e.contextId && e.kind === "request") n.push("context " + e.contextId);
    if (e.errorCode) n.push("error " + e.errorCode);
    if (e.http) n.push("HTTP " + e.http);
    if (e.behaviors && e.behaviors.length) n.push("fault: " + e.behaviors.join(", "));
    if (e.detail) n.push(e.detail);
    return n.join("; ");
  }
  function evidenceTable(cls, heads, rows, total) {
    const head = el("tr"), body = el("tbody");
    for (const h of heads) head.append(el("th", { scope: "col" }, h));
    for (const r of rows) {
      const tr = el("tr");
      for (const c of r) { const td = el("td"); td.append(c == null ? "" : c); tr.append(td); }
      body.append(tr);
    }
    if (total > rows.length) {
      const tr = el("tr");
      tr.append(el("td", { colspan: heads.length, class: "more" }, `… ${total - rows.length} more in the JSON report`));
      body.append(tr);
    }
    const thead = el("thead"); thead.append(head);
    const t = el("table", { class: "evidence " + cls }); t.append(thead, body);
    return t;
  }
  function evidenceView(ev, open) {
    const wire = bySeq(ev.wire), journal = bySeq(ev.journal);
    if (!wire.length && !journal.length) return null;
    const parts = [];
    if (wire.length) parts.push(plural(wire.length, "wire record", "wire records"));
    if (journal.length) parts.push(plural(journal.length, "journal entry", "journal entries"));
    const d = el("details", { class: "evidence" });
    d.append(el("summary", {}, "evidence: " + parts.join(", ")));
    const code = (s) => s ? el("code", {}, String(s)) : "";
    if (wire.length) {
      const t0 = Math.min(...wire.map((w) => Date.parse(w.start)).filter((t) => !isNaN(t)));
      const when = (w) => { const a = Date.parse(w.start), b = Date.parse(w.end); return isNaN(a) || !isFinite(t0) ? "" : `+${Math.floor(a - t0)}ms … +${isNaN(b) ? "?" : Math.floor(b - t0) + "ms"}`; };
      d.append(evidenceTable("wire-records", ["wire #", "agent", "request", "RPC method", "answer", "A2A-Version", "time", "notes"],
        wire.slice(0, EVIDENCE_ROWS).map((w) => [String(w.seq), w.agent || "", code(`${w.method || ""} ${w.path || ""}`.trim()), code(w.rpcMethod),
          wireAnswer(w), wireVersion(w), when(w), wireNotes(w)]), wire.length));
    }
    if (journal.length) {
      d.append(evidenceTable("journal-entries", ["journal #", "agent", "kind", "call", "task", "state", "notes"],
        journal.slice(0, EVIDENCE_ROWS).map((e) => {
          const b = el("button", { type: "button", class: "badge", "aria-label": "journal entry " + e.seq + ": raw view" }, "#" + e.seq);
          b.addEventListener("click", () => open(e));
          return [b, e.agent || "", e.kind || "", code(entryCall(e)), code(e.taskId), normState(e.state), entryNotes(e)];
        }), journal.length));
    }
    return d;
  }

  // Report: a journal, or a conform run with one section per scenario.
  function report(data) {
    if (Array.isArray(data) || data.entries) {
      const m = new Model("journal");
      for (const e of Array.isArray(data) ? data : data.entries) m.add(e);
      views.push({ model: m, container: $("main") });
      return;
    }
    const main = $("main");
    const summary = data.summary || {};
    main.append(el("p", {}, `client: ${data.client || "?"} · suite: ${data.suite || "?"} · ${summary.scenariosPassed ?? "?"}/${summary.scenarios ?? "?"} scenarios passed · ${summary.checksFailed ?? "?"} failed checks`));
    for (const sc of data.scenarios || []) {
      const sec = el("section", { class: "scenario " + (sc.pass ? "pass" : "fail"), "data-scenario": sc.id });
      sec.append(el("h2", {}, (sc.pass ? "✓ " : "✗ ") + sc.id + (sc.title ? " — " + sc.title : "")));
      if (sc.error) sec.append(el("p", { class: "badge left" }, "runner error: " + sc.error));
      const m = new Model(sc.id);
      const byseq = new Map();
      const entries = Array.isArray(sc.journal) ? sc.journal : [];
      for (const e of entries) byseq.set(e.seq, e);
      const ul = el("ul", { class: "checks" });
      const checks = [...(sc.checks || [])].sort((a, b) => a.pass - b.pass);
      for (const c of checks) {
        const li = el("li", { class: c.pass ? "pass" : "fail" }, (c.pass ? "✓ " : "✗ ") + c.id + (c.expected ? " (expected failure)" : "") + ": " + c.reason);
        const ev = c.evidence || {};
        for (const e of ev.journal || []) {
          let x = byseq.get(e.seq);
          if (!x) { x = e; byseq.set(e.seq, x); }
          if (!c.pass) (x._checks = x._checks || []).includes(c.id) || x._checks.push(c.id);
          if (!c.pass) {
            const b = el("button", { type: "button", class: "badge" }, "#" + e.seq + " " + e.kind);
            b.addEventListener("click", () => showEntry(m, x)); li.append(" ", b);
          }
        }
        if (!c.pass) { const d = evidenceView(ev, (e) => showEntry(m, byseq.get(e.seq) || e)); if (d) li.append(d); }
        ul.append(li);
      }
      sec.append(ul);
      for (const e of [...byseq.values()].sort((a, b) => a.seq - b.seq)) m.add(e);
      if (!m.entries.length) sec.append(el("p", { class: "more" }, "no journal entries in this report for this scenario"));
      const c = el("div", { class: "lanes-of" });
      sec.append(c); main.append(sec);
      views.push({ model: m, container: c });
    }
  }

  legend(); glossary();
  if (cfg.mode === "live") { live(); setInterval(schedule, 1000); }
  else { report(cfg.data || {}); }
  schedule();
  window.addEventListener("resize", () => schedule());
})();
