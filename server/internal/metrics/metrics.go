// Package metrics counts what an a2amock server did, from its journal as
// it is written and from its agents' state at scrape time, and writes the
// counts in the Prometheus text exposition format (version 0.0.4): a few
// counters, gauges and one histogram do not need a client library.
// Latencies are measured on the server's clock, from a request's journal
// entry to its response's, so a virtual clock gives repeatable figures.
//
// It serves nothing itself: the server's control API answers
// GET /_a2amock/metrics with Store.Write.
package metrics

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/wire"
)

// latencyBuckets are the upper bounds of the request-duration histogram, in
// seconds.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// maxPending bounds the requests waiting for their response entry (a
// request that never gets one, e.g. a client gone during a latency
// behavior, would otherwise stay).
const maxPending = 10_000

type requestKey struct{ agent, method, dialect, binding, outcome, code string }

type latencyKey struct{ agent, method, binding string }

type histogram struct {
	counts []int64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      int64
}

type pendingRequest struct {
	at                     int64 // unix nanoseconds on the server clock
	agent, method, binding string
}

// Store is the zero-value-ready count behind GET /_a2amock/metrics. It is
// safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	requests map[requestKey]*int64
	cards    map[string]int64
	latency  map[latencyKey]*histogram
	pending  map[int64]pendingRequest
	acted    map[[2]string]int64 // agent, behavior
	skipped  map[[3]string]int64 // agent, behavior, scope key
	push     map[[2]string]int64 // agent, result
	// lastKey and lastCount are the series the last response counted,
	// lastLat and lastHist its latency's: a run of like requests compares
	// the keys' strings (the same strings, mostly) instead of hashing them
	// twice per request. Forget drops them with the series.
	lastKey   requestKey
	lastCount *int64
	lastLat   latencyKey
	lastHist  *histogram
}

func (m *Store) init() {
	if m.requests == nil {
		m.requests = map[requestKey]*int64{}
		m.cards = map[string]int64{}
		m.latency = map[latencyKey]*histogram{}
		m.pending = map[int64]pendingRequest{}
		m.acted = map[[2]string]int64{}
		m.skipped = map[[3]string]int64{}
		m.push = map[[2]string]int64{}
	}
}

// Observe counts one journal entry.
func (m *Store) Observe(e *journal.Entry) {
	switch e.Kind {
	case journal.EntryRequest, journal.EntryResponse, journal.EntryCard, journal.EntryPush:
	default:
		return // the other kinds count for nothing here: no lock taken
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	method := e.Method
	switch {
	case method == "":
		method = string(e.Op)
	case e.Op == "":
		// A request refused before its method was understood names one
		// the client chose: as a label it would make a series per name.
		if _, _, known := wire.LookupMethod(method); !known {
			method = ""
		}
	}
	switch e.Kind {
	case journal.EntryRequest:
		if len(m.pending) >= maxPending {
			clear(m.pending)
		}
		m.pending[e.Request] = pendingRequest{at: e.Time.UnixNano(), agent: e.Agent, method: method, binding: string(e.Binding)}
	case journal.EntryResponse:
		outcome, code := "ok", ""
		if e.ErrorCode != 0 || e.Detail != "" {
			outcome, code = "error", strconv.Itoa(e.ErrorCode)
		}
		if k := (requestKey{e.Agent, method, string(e.Dialect), string(e.Binding), outcome, code}); m.lastCount == nil || k != m.lastKey {
			c := m.requests[k]
			if c == nil {
				c = new(int64)
				m.requests[k] = c
			}
			m.lastKey, m.lastCount = k, c
		}
		*m.lastCount++
		if p, ok := m.pending[e.Request]; ok && p.agent == e.Agent {
			delete(m.pending, e.Request)
			k := latencyKey{p.agent, p.method, p.binding}
			h := m.lastHist
			if h == nil || k != m.lastLat {
				if h = m.latency[k]; h == nil {
					h = &histogram{counts: make([]int64, len(latencyBuckets)+1)}
					m.latency[k] = h
				}
				m.lastLat, m.lastHist = k, h
			}
			d := float64(e.Time.UnixNano()-p.at) / 1e9
			i, _ := slices.BinarySearch(latencyBuckets, d)
			h.counts[i]++
			h.sum += d
			h.n++
		}
	case journal.EntryCard:
		m.cards[e.Agent]++
	case journal.EntryPush:
		result := "failed"
		switch {
		case e.HTTP >= 200 && e.HTTP <= 299:
			result = "delivered"
		case e.HTTP != 0:
			result = "http_error"
		}
		m.push[[2]string{e.Agent, result}]++
	}
}

// Behaviors counts what the behaviors of one request did: the names of
// those that acted and the ones skipped as out of scope.
func (m *Store) Behaviors(agent string, acted []string, skipped []journal.SkippedBehavior) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	for _, name := range acted {
		m.acted[[2]string{agent, name}]++
	}
	for _, sk := range skipped {
		m.skipped[[3]string{agent, sk.Behavior, sk.Key}]++
	}
}

// Forget drops the series of a removed agent, so agents created per test
// do not grow the metrics without end.
func (m *Store) Forget(agent string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.init()
	m.lastCount, m.lastHist = nil, nil
	for k := range m.requests {
		if k.agent == agent {
			delete(m.requests, k)
		}
	}
	for k := range m.latency {
		if k.agent == agent {
			delete(m.latency, k)
		}
	}
	for k := range m.acted {
		if k[0] == agent {
			delete(m.acted, k)
		}
	}
	for k := range m.skipped {
		if k[0] == agent {
			delete(m.skipped, k)
		}
	}
	for k := range m.push {
		if k[0] == agent {
			delete(m.push, k)
		}
	}
	delete(m.cards, agent)
}

// ResetPending forgets requests waiting for a response: request numbers
// start over after a reset.
func (m *Store) ResetPending() {
	m.mu.Lock()
	clear(m.pending)
	m.mu.Unlock()
}

// series is one line of the exposition: label pairs and a value.
type series struct {
	labels []string // name, value, name, value...
	value  string
}

func labelText(pairs []string) string {
	if len(pairs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pairs[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(pairs[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func writeFamily(w *bufio.Writer, name, typ, help string, ss []series) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	lines := make([]string, len(ss))
	for i, s := range ss {
		lines[i] = name + labelText(s.labels) + " " + s.value + "\n"
	}
	slices.Sort(lines) // the label text comes first, so this orders by labels
	for _, l := range lines {
		_, _ = w.WriteString(l)
	}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Agent is the state of one hosted agent at scrape time.
type Agent struct {
	Name    string
	States  map[wire.TaskState]int // tasks held, by state
	Streams int                    // streams open now
	Runtime bool                   // created through the control API
}

// ContentType is the media type of what Write writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Write writes every metric family: the counts of m, the agents' live
// state and the size of the journal j.
func (m *Store) Write(out io.Writer, live []Agent, j *journal.Journal) error {
	m.mu.Lock()
	m.init()
	var reqs, cards, acted, skipped, push []series
	for k, v := range m.requests {
		reqs = append(reqs, series{[]string{"agent", k.agent, "method", k.method, "dialect", k.dialect, "binding", k.binding, "outcome", k.outcome, "code", k.code}, strconv.FormatInt(*v, 10)})
	}
	for k, v := range m.cards {
		cards = append(cards, series{[]string{"agent", k}, strconv.FormatInt(v, 10)})
	}
	for k, v := range m.acted {
		acted = append(acted, series{[]string{"agent", k[0], "behavior", k[1]}, strconv.FormatInt(v, 10)})
	}
	for k, v := range m.skipped {
		skipped = append(skipped, series{[]string{"agent", k[0], "behavior", k[1], "key", k[2]}, strconv.FormatInt(v, 10)})
	}
	for k, v := range m.push {
		push = append(push, series{[]string{"agent", k[0], "result", k[1]}, strconv.FormatInt(v, 10)})
	}
	type latLine struct {
		k latencyKey
		h histogram
	}
	lats := make([]latLine, 0, len(m.latency))
	for k, h := range m.latency {
		lats = append(lats, latLine{k, histogram{counts: slices.Clone(h.counts), sum: h.sum, n: h.n}})
	}
	m.mu.Unlock()

	var tasks, streams, agentCount []series
	dynamic := 0
	for _, st := range live {
		for state, n := range st.States {
			tasks = append(tasks, series{[]string{"agent", st.Name, "state", string(state)}, strconv.Itoa(n)})
		}
		streams = append(streams, series{[]string{"agent", st.Name}, strconv.Itoa(st.Streams)})
		if st.Runtime {
			dynamic++
		}
	}
	agentCount = append(agentCount, series{[]string{"kind", "configured"}, strconv.Itoa(len(live) - dynamic)},
		series{[]string{"kind", "runtime"}, strconv.Itoa(dynamic)})

	w := bufio.NewWriter(out)
	writeFamily(w, "a2amock_requests_total", "counter", "A2A requests answered, by agent, method, dialect, binding and outcome (ok, or error with the A2A error code).", reqs)
	writeFamily(w, "a2amock_card_requests_total", "counter", "Agent Card fetches, by agent.", cards)
	fmt.Fprintf(w, "# HELP a2amock_request_duration_seconds Time from a request to its answer (unary) or to the start of its stream, on the server clock.\n# TYPE a2amock_request_duration_seconds histogram\n")
	slices.SortFunc(lats, func(a, b latLine) int {
		return strings.Compare(a.k.agent+"\xff"+a.k.method+"\xff"+a.k.binding, b.k.agent+"\xff"+b.k.method+"\xff"+b.k.binding)
	})
	for _, l := range lats {
		base := labelText([]string{"agent", l.k.agent, "method", l.k.method, "binding", l.k.binding})
		open := base[:len(base)-1] // without the closing brace, to add le
		var cum int64
		for i, le := range latencyBuckets {
			cum += l.h.counts[i]
			_, _ = w.WriteString("a2amock_request_duration_seconds_bucket" + open + `,le="` + formatFloat(le) + `"} ` + strconv.FormatInt(cum, 10) + "\n")
		}
		cum += l.h.counts[len(latencyBuckets)]
		_, _ = w.WriteString("a2amock_request_duration_seconds_bucket" + open + `,le="+Inf"} ` + strconv.FormatInt(cum, 10) + "\n")
		_, _ = w.WriteString("a2amock_request_duration_seconds_sum" + base + " " + formatFloat(l.h.sum) + "\n")
		_, _ = w.WriteString("a2amock_request_duration_seconds_count" + base + " " + strconv.FormatInt(l.h.n, 10) + "\n")
	}
	writeFamily(w, "a2amock_behavior_applied_total", "counter", "Requests a behavior acted on (faults applied), by agent and behavior name.", acted)
	writeFamily(w, "a2amock_behavior_skipped_total", "counter", "Requests a configured behavior skipped as out of scope, by agent, behavior spec and the scope key that excluded them.", skipped)
	writeFamily(w, "a2amock_open_streams", "gauge", "Streams open now, by agent.", streams)
	writeFamily(w, "a2amock_tasks", "gauge", "Tasks the agents hold now, by agent and state.", tasks)
	writeFamily(w, "a2amock_push_deliveries_total", "counter", "Push-notification delivery attempts, by agent and result (delivered, http_error, failed).", push)
	writeFamily(w, "a2amock_journal_entries", "gauge", "Journal entries retained.", []series{{nil, strconv.Itoa(j.Len())}})
	writeFamily(w, "a2amock_journal_appended_total", "counter", "Journal entries written since start or the last reset.", []series{{nil, strconv.FormatInt(j.LastSeq(), 10)}})
	writeFamily(w, "a2amock_agents", "gauge", "Hosted agents: configured at start, or created at run time through the control API.", agentCount)
	return w.Flush()
}
