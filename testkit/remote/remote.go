// Package remote gives a test its own agents on a shared a2amock server
// (one container for a whole parallel suite): agents with names unique on
// the server, created through the control API and removed when the test
// ends, with their own journal views.
//
// Package testkit exports it as testkit.Connect and testkit.Remote.
package remote

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/internal/excerpt"
)

// Remote is a test's own set of agents on a shared a2amock server (one
// container for a whole parallel suite, given by A2AMOCK_URL): each agent
// has a name unique on the server ({name}-{random}), its own task store,
// behaviors and journal view, and is removed when the test ends. The
// assertions of package testkit apply to Journal().
type Remote struct {
	// URL is the server's base URL.
	URL string

	t      testing.TB
	client *http.Client
	token  string
	suffix string

	mu     sync.Mutex
	agents map[string]RemoteAgent
	order  []string
}

// RemoteAgent is an agent Connect or AddAgent created.
type RemoteAgent struct {
	// Name is the name the test uses; ServerName the agent's name on the
	// server, the path segment of its URL (/agents/{ServerName}/).
	Name, ServerName string
	// URL is its JSON-RPC endpoint; CardURL its Agent Card.
	URL, CardURL string
}

// AgentSpec describes an agent created on a shared server, in the
// scenario file format (docs/scenario.schema.json). The zero value is an
// honest agent with a generated card.
type AgentSpec struct {
	// Card is the declared card (a scenario file's agents[].card).
	Card map[string]any
	// Behaviors are specs ("name:key=value,...").
	Behaviors []string
	// Timelines are scripted timelines (a scenario file's
	// agents[].timelines).
	Timelines []map[string]any
	// Scenario is a scenario file's text; the agent is its first agent, or
	// ScenarioAgent. Behaviors are added to the scenario agent's.
	Scenario      string
	ScenarioAgent string
}

// Connect gives the test its own agents on the running a2amock server at
// baseURL, e.g. os.Getenv("A2AMOCK_URL"): a default agent named "agent" at
// once, more with AddAgent; all are removed at cleanup. The control token,
// when the server needs one, comes from A2AMOCK_CONTROL_TOKEN (the variable
// a2amock serve reads it from).
func Connect(t testing.TB, baseURL string) *Remote {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	tr := http.DefaultTransport.(*http.Transport).Clone()
	r := &Remote{URL: strings.TrimRight(baseURL, "/"), t: t, client: &http.Client{Transport: tr, Timeout: 30 * time.Second},
		token: os.Getenv("A2AMOCK_CONTROL_TOKEN"), suffix: hex.EncodeToString(b[:]), agents: map[string]RemoteAgent{}}
	t.Cleanup(func() {
		r.mu.Lock()
		names := slices.Clone(r.order)
		r.mu.Unlock()
		for _, n := range names {
			if status, body, err := r.call(http.MethodDelete, "/agents/"+url.PathEscape(r.agents[n].ServerName), nil, nil); err != nil || status != http.StatusNoContent && status != http.StatusNotFound {
				t.Errorf("testkit: removing agent %s: HTTP %d %s %v", n, status, excerpt.Of(body), err)
			}
		}
		tr.CloseIdleConnections()
	})
	r.AddAgent("agent", AgentSpec{})
	return r
}

func (r *Remote) call(method, path string, query url.Values, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := r.URL + "/_a2amock" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	return resp.StatusCode, b, err
}

// AddAgent creates an agent for the test; a refusal (the server names the
// field at fault) fails the test.
func (r *Remote) AddAgent(name string, spec AgentSpec) RemoteAgent {
	r.t.Helper()
	body := map[string]any{"name": fmt.Sprintf("%.55s-%s", name, r.suffix)}
	if spec.Card != nil {
		body["card"] = spec.Card
	}
	if spec.Behaviors != nil {
		body["behaviors"] = spec.Behaviors
	}
	if spec.Timelines != nil {
		body["timelines"] = spec.Timelines
	}
	if spec.Scenario != "" {
		body["scenario"] = spec.Scenario
	}
	if spec.ScenarioAgent != "" {
		body["scenarioAgent"] = spec.ScenarioAgent
	}
	status, b, err := r.call(http.MethodPost, "/agents", nil, body)
	if err != nil || status != http.StatusCreated {
		r.t.Fatalf("testkit: creating agent %s on %s: HTTP %d %s %v", name, r.URL, status, excerpt.Of(b), err)
	}
	var d struct{ Name, URL, CardURL string }
	if err := json.Unmarshal(b, &d); err != nil {
		r.t.Fatalf("testkit: creating agent %s: %v", name, err)
	}
	a := RemoteAgent{Name: name, ServerName: d.Name, URL: d.URL, CardURL: d.CardURL}
	r.mu.Lock()
	if _, dup := r.agents[name]; !dup {
		r.order = append(r.order, name)
	}
	r.agents[name] = a
	r.mu.Unlock()
	return a
}

// Agent returns the test's agent of that name ("" for the default agent).
func (r *Remote) Agent(name string) RemoteAgent {
	r.t.Helper()
	if name == "" {
		name = "agent"
	}
	r.mu.Lock()
	a, ok := r.agents[name]
	r.mu.Unlock()
	if !ok {
		r.t.Fatalf("testkit: no agent %q in this test", name)
	}
	return a
}

// AgentURL is the base URL of the test's agent ("" for the default
// agent), as testkit.Mock's AgentURL is, so a test moves between Start and
// Connect unchanged: its JSON-RPC endpoint is AgentURL + "/" (the agent's
// URL field), its HTTP+JSON routes AgentURL + "/message:send" and so on.
func (r *Remote) AgentURL(name string) string {
	r.t.Helper()
	return strings.TrimSuffix(r.Agent(name).URL, "/")
}

// CardURL is the card URL of the test's agent ("" for the default agent).
func (r *Remote) CardURL(name string) string { return r.Agent(name).CardURL }

// SetBehavior replaces the behaviors of the test's agent.
func (r *Remote) SetBehavior(name string, specs ...string) error {
	if specs == nil {
		specs = []string{}
	}
	status, b, err := r.call(http.MethodPut, "/behaviors", url.Values{"agent": {r.Agent(name).ServerName}}, map[string]any{"behaviors": specs})
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("testkit: set behaviors of %s: HTTP %d: %s", name, status, excerpt.Of(b))
	}
	return nil
}

// Reset forgets the tasks of the test's agents and starts their journal
// views afresh; other tests' agents are left alone.
func (r *Remote) Reset() {
	r.t.Helper()
	r.mu.Lock()
	names := slices.Clone(r.order)
	r.mu.Unlock()
	for _, n := range names {
		if status, b, err := r.call(http.MethodPost, "/reset", url.Values{"agent": {r.agents[n].ServerName}}, nil); err != nil || status != http.StatusNoContent {
			r.t.Fatalf("testkit: reset %s: HTTP %d %s %v", n, status, excerpt.Of(b), err)
		}
	}
}

// Journal returns the journal of the test's agents (or of the named ones),
// oldest first.
func (r *Remote) Journal(names ...string) []server.Entry {
	r.t.Helper()
	if len(names) == 0 {
		r.mu.Lock()
		names = slices.Clone(r.order)
		r.mu.Unlock()
	}
	var out []server.Entry
	for _, n := range names {
		status, b, err := r.call(http.MethodGet, "/journal", url.Values{"agent": {r.Agent(n).ServerName}}, nil)
		if err != nil || status != http.StatusOK {
			r.t.Fatalf("testkit: journal of %s: HTTP %d %s %v", n, status, excerpt.Of(b), err)
		}
		var j struct {
			Entries []server.Entry `json:"entries"`
		}
		if err := json.Unmarshal(b, &j); err != nil {
			r.t.Fatalf("testkit: journal of %s: %v", n, err)
		}
		out = append(out, j.Entries...)
	}
	slices.SortFunc(out, func(a, b server.Entry) int { return int(a.Seq - b.Seq) })
	return out
}
