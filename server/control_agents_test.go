package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
)

// frontDoor starts a server the way a2amock serve does: with the scenario
// loader, so POST /_a2amock/agents takes cards and timelines.
func frontDoor(t testing.TB, mutate ...func(*server.Config)) *harness {
	t.Helper()
	cfg := server.Config{StepDelay: -1, Scenarios: scenario.Loader(nil)}
	for _, m := range mutate {
		m(&cfg)
	}
	return start(t, cfg)
}

type agentDesc struct {
	Name      string   `json:"name"`
	URL       string   `json:"url"`
	CardURL   string   `json:"cardUrl"`
	Dynamic   bool     `json:"dynamic"`
	Dialect   string   `json:"dialect"`
	Skills    []string `json:"skills"`
	Behaviors []string `json:"behaviors"`
}

type controlErr struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
	Errors []json.RawMessage `json:"errors"`
}

func (h *harness) createAgent(body string) (int, []byte) {
	h.t.Helper()
	status, _, b := h.post("/_a2amock/agents", []byte(body), nil)
	return status, b
}

func (h *harness) mustCreate(body string) agentDesc {
	h.t.Helper()
	status, b := h.createAgent(body)
	require.Equal(h.t, http.StatusCreated, status, "body: %s", b)
	var d agentDesc
	require.NoError(h.t, json.Unmarshal(b, &d))
	return d
}

func (h *harness) agentNames() []string {
	h.t.Helper()
	status, _, b := h.do(http.MethodGet, "/_a2amock/agents", nil, nil)
	require.Equal(h.t, http.StatusOK, status)
	var out struct{ Agents []agentDesc }
	require.NoError(h.t, json.Unmarshal(b, &out))
	var names []string
	for _, a := range out.Agents {
		names = append(names, a.Name)
	}
	return names
}

type journalResp struct {
	Entries []server.Entry `json:"entries"`
}

func (h *harness) journalQuery(q string) ([]server.Entry, string) {
	h.t.Helper()
	status, hdr, b := h.do(http.MethodGet, "/_a2amock/journal"+q, nil, nil)
	require.Equal(h.t, http.StatusOK, status, "body: %s", b)
	var j journalResp
	require.NoError(h.t, json.Unmarshal(b, &j))
	return j.Entries, hdr.Get(server.TotalCountHeader)
}

func sendParams(text, skill string) map[string]any {
	m := map[string]any{"messageId": fmt.Sprintf("m-%d", rpcSeq.Add(1)), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if skill != "" {
		m["metadata"] = map[string]any{"skillId": skill}
	}
	return map[string]any{"message": m}
}

func TestAgentsCreateUseListDelete(t *testing.T) {
	h := frontDoor(t)
	d := h.mustCreate(`{"name":"t1","card":{"name":"Intake desk","skills":[{"id":"intake"},{"id":"report"}]},"behaviors":["skip-working:skill=report"]}`)
	assert.Equal(t, "t1", d.Name)
	assert.True(t, d.Dynamic)
	assert.Equal(t, []string{"intake", "report"}, d.Skills)
	assert.Equal(t, []string{"skip-working:skill=report"}, d.Behaviors)
	assert.Equal(t, h.url+"/agents/t1/", d.URL)
	assert.Equal(t, []string{"agent", "t1"}, h.agentNames())

	// The card is served at the agent's path, with the declared fields.
	status, _, card := h.do(http.MethodGet, "/agents/t1/.well-known/agent-card.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(card), `"Intake desk"`)

	r, _ := h.rpc("/agents/t1/", "SendMessage", sendParams("hi", "intake"), v1)
	require.Nil(t, r.Error)
	entries, total := h.journalQuery("?agent=t1&kind=request")
	require.Len(t, entries, 1)
	assert.Equal(t, "1", total)
	assert.Equal(t, "SendMessage", entries[0].Method)

	// A generated name when none is given.
	g := h.mustCreate(`{}`)
	assert.True(t, strings.HasPrefix(g.Name, "agent-"), g.Name)

	status, _, b := h.do(http.MethodDelete, "/_a2amock/agents/t1", nil, nil)
	require.Equal(t, http.StatusNoContent, status, "body: %s", b)
	assert.Equal(t, []string{"agent", g.Name}, h.agentNames())
	status, _, _ = h.post("/agents/t1/", rpcBody("SendMessage", sendParams("hi", "")), v1)
	assert.Equal(t, http.StatusNotFound, status)
	status, _, b = h.do(http.MethodDelete, "/_a2amock/agents/t1", nil, nil)
	assert.Equal(t, http.StatusNotFound, status, "body: %s", b)

	// A new agent of the same name starts with an empty journal view, but
	// the old entries stay in the whole journal.
	h.mustCreate(`{"name":"t1"}`)
	entries, total = h.journalQuery("?agent=t1")
	assert.Empty(t, entries)
	assert.Equal(t, "0", total)
	all, _ := h.journalQuery("?kind=request")
	assert.Len(t, all, 1)
}

func TestAgentsConfiguredAgentCannotBeRemoved(t *testing.T) {
	h := frontDoor(t)
	status, _, b := h.do(http.MethodDelete, "/_a2amock/agents/agent", nil, nil)
	require.Equal(t, http.StatusConflict, status)
	var e controlErr
	require.NoError(t, json.Unmarshal(b, &e))
	assert.Equal(t, "name", e.Error.Field)
	assert.Contains(t, e.Error.Message, "configured at start")
	assert.Equal(t, []string{"agent"}, h.agentNames())
}

func TestAgentsIsolation(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"a","behaviors":["stuck-submitted"]}`)
	h.mustCreate(`{"name":"b"}`)
	ra, _ := h.rpc("/agents/a/", "SendMessage", sendParams("x", ""), v1)
	require.Nil(t, ra.Error)
	var res struct {
		Task struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal(ra.Result, &res))
	assert.Equal(t, "TASK_STATE_SUBMITTED", res.Task.Status.State, "a's behavior acts on a")
	// b does not know a's task, and b's behaviors are its own.
	rb, _ := h.rpc("/agents/b/", "GetTask", map[string]any{"id": res.Task.ID}, v1)
	require.NotNil(t, rb.Error)
	assert.Equal(t, -32001, rb.Error.Code)
	rb, _ = h.rpc("/agents/b/", "SendMessage", sendParams("x", ""), v1)
	assert.Contains(t, string(rb.Result), "TASK_STATE_COMPLETED")
	// Each journal view holds its own agent's entries only.
	for _, name := range []string{"a", "b"} {
		entries, _ := h.journalQuery("?agent=" + name)
		require.NotEmpty(t, entries)
		for _, e := range entries {
			assert.Equal(t, name, e.Agent)
		}
	}
	// Resetting b leaves a's tasks and a's journal view alone.
	status, _, _ := h.post("/_a2amock/reset?agent=b", nil, nil)
	require.Equal(t, http.StatusNoContent, status)
	entries, _ := h.journalQuery("?agent=b")
	assert.Empty(t, entries)
	entries, _ = h.journalQuery("?agent=a")
	assert.NotEmpty(t, entries)
	ra, _ = h.rpc("/agents/a/", "GetTask", map[string]any{"id": res.Task.ID}, v1)
	assert.Nil(t, ra.Error)
}

func TestAgentsFromScenarioAndTimelines(t *testing.T) {
	h := frontDoor(t)
	yaml := `
agents:
  - name: first
  - name: scripted
    card:
      skills: [{id: report}]
    timelines:
      - steps:
          - state: working
          - state: failed
            message: scripted failure
`
	body, _ := json.Marshal(map[string]any{"name": "s1", "scenario": yaml, "scenarioAgent": "scripted", "behaviors": []string{"latency:delay=1ms"}})
	d := h.mustCreate(string(body))
	assert.Equal(t, []string{"report"}, d.Skills)
	assert.Equal(t, []string{"latency:delay=1ms"}, d.Behaviors)
	r, _ := h.rpc("/agents/s1/", "SendMessage", sendParams("go", ""), v1)
	require.Nil(t, r.Error)
	assert.Contains(t, string(r.Result), "TASK_STATE_FAILED")
	assert.Contains(t, string(r.Result), "scripted failure")

	d = h.mustCreate(`{"name":"t2","timelines":[{"steps":[{"state":"working"},{"state":"rejected"}]}]}`)
	r, _ = h.rpc("/agents/t2/", "SendMessage", sendParams("go", ""), v1)
	assert.Contains(t, string(r.Result), "TASK_STATE_REJECTED")
}

func TestAgentsBadInput(t *testing.T) {
	h := frontDoor(t, func(c *server.Config) { c.MaxBodyBytes = 2048 })
	h.mustCreate(`{"name":"taken"}`)
	cases := []struct {
		name, body string
		status     int
		field      string
		says       string
	}{
		{"malformed", `{"name":`, 400, "body", "JSON object"},
		{"not an object", `[1,2]`, 400, "body", "JSON object"},
		{"null", `null`, 400, "body", "not null"},
		{"two values", `{} {}`, 400, "body", "more than one"},
		{"unknown field", `{"nam":"x"}`, 400, "nam", "unknown field"},
		{"wrong type", `{"name":3}`, 400, "name", "JSON object"},
		{"bad name", `{"name":"a/b"}`, 400, "name", "not an agent name"},
		{"long name", `{"name":"` + strings.Repeat("x", 65) + `"}`, 400, "name", "not an agent name"},
		{"duplicate", `{"name":"taken"}`, 409, "name", "exists"},
		{"configured name", `{"name":"agent"}`, 409, "name", "exists"},
		{"unknown behavior", `{"name":"x","behaviors":["skip-working","nope"]}`, 400, "behaviors[1]", "unknown behavior"},
		{"bad behavior param", `{"name":"x","behaviors":["latency:delay=soon"]}`, 400, "behaviors[0]", "delay"},
		{"empty behavior", `{"name":"x","behaviors":[""]}`, 400, "behaviors[0]", "empty"},
		{"behaviors not a list", `{"name":"x","behaviors":"skip-working"}`, 400, "behaviors", "list"},
		{"unknown card key", `{"name":"x","card":{"skills":[{"idx":"a"}]}}`, 400, "card.skills[0]", "unknown key"},
		{"card dialect", `{"name":"x","card":{"dialect":"9.9"}}`, 400, "card.dialect", "9.9"},
		{"timeline for unknown skill", `{"name":"x","card":{"skills":[{"id":"a"}]},"timelines":[{"skill":"b","steps":[{"state":"working"}]}]}`, 400, "timelines[0].skill", "b"},
		{"scenario and card", `{"name":"x","scenario":"agents: [{name: y}]","card":{}}`, 400, "card", "either"},
		{"bad scenario", `{"name":"x","scenario":"agents: [{name: y, behaviors: [bogus]}]"}`, 400, "scenario.agents[0].behaviors[0]", "bogus"},
		{"scenario agent missing", `{"name":"x","scenario":"agents: [{name: y}]","scenarioAgent":"z"}`, 400, "scenarioAgent", "no agent"},
		{"scenarioAgent alone", `{"name":"x","scenarioAgent":"z"}`, 400, "scenarioAgent", "not given"},
		{"too large", `{"name":"x","card":{"description":"` + strings.Repeat("d", 4096) + `"}}`, 413, "body", "limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, b := h.createAgent(c.body)
			require.Equal(t, c.status, status, "body: %s", b)
			var e controlErr
			require.NoError(t, json.Unmarshal(b, &e), "body: %s", b)
			assert.Equal(t, c.status, e.Error.Code)
			assert.Equal(t, c.field, e.Error.Field, "message: %s", e.Error.Message)
			assert.Contains(t, e.Error.Message, c.says)
		})
	}
	// Nothing was half-created.
	assert.Equal(t, []string{"agent", "taken"}, h.agentNames())

	status, _, b := h.do(http.MethodPost, "/_a2amock/agents", []byte(`{}`), map[string]string{"Content-Type": "text/plain"})
	assert.Equal(t, http.StatusUnsupportedMediaType, status, "body: %s", b)
	for _, q := range []string{"?since=x", "?limit=-1", "?kind=nope", "?limit=y", "?limit=", "?since="} {
		status, _, b := h.do(http.MethodGet, "/_a2amock/journal"+q, nil, nil)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", q, b)
		var e controlErr
		require.NoError(t, json.Unmarshal(b, &e))
		assert.Contains(t, q, e.Error.Field)
	}
	status, _, _ = h.post("/_a2amock/reset?agent=ghost", nil, nil)
	assert.Equal(t, http.StatusNotFound, status)
	status, _, _ = h.do(http.MethodGet, "/_a2amock/agents/ghost", nil, nil)
	assert.Equal(t, http.StatusNotFound, status)
}

func TestAgentsWithoutLoaderTakeSpecsOnly(t *testing.T) {
	h := start(t, server.Config{StepDelay: -1})
	h.mustCreate(`{"name":"plain","behaviors":["skip-working"]}`)
	status, b := h.createAgent(`{"name":"x","card":{"name":"c"}}`)
	require.Equal(t, http.StatusBadRequest, status)
	var e controlErr
	require.NoError(t, json.Unmarshal(b, &e))
	assert.Equal(t, "card", e.Error.Field)
	assert.Contains(t, e.Error.Message, "scenario loader")
}

func TestJournalFilters(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"j"}`)
	r, _ := h.rpc("/agents/j/", "SendMessage", sendParams("one", ""), v1)
	var res struct {
		Task struct{ ID string } `json:"task"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	h.rpc("/agents/j/", "SendMessage", sendParams("two", ""), v1)
	h.rpc("/agents/j/", "GetTask", map[string]any{"id": res.Task.ID}, v1)

	byTask, total := h.journalQuery("?task=" + res.Task.ID)
	require.NotEmpty(t, byTask)
	assert.Equal(t, fmt.Sprint(len(byTask)), total)
	for _, e := range byTask {
		assert.True(t, e.TaskID == res.Task.ID || e.RefTaskID == res.Task.ID, "%+v", e)
	}
	reqs, total := h.journalQuery("?agent=j&kind=request,response")
	assert.Equal(t, "6", total)
	for _, e := range reqs {
		assert.Contains(t, []server.EntryKind{server.EntryRequest, server.EntryResponse}, e.Kind)
	}
	limited, total := h.journalQuery("?agent=j&kind=request&limit=2")
	assert.Len(t, limited, 2)
	assert.Equal(t, "3", total)
	after, _ := h.journalQuery(fmt.Sprintf("?agent=j&kind=request&since=%d", limited[1].Seq))
	require.Len(t, after, 1)
	assert.Equal(t, "GetTask", after[0].Method)
	// Filter (Go) and the endpoint agree.
	assert.Len(t, h.srv.Journal().Filter(0, "j", "", server.EntryRequest), 3)
}

// TestWhyDidntItFire: a behavior scoped to skill report never fires when
// every message goes to skill intake, and one call says so.
func TestWhyDidntItFire(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"w","card":{"skills":[{"id":"intake"},{"id":"report"}]},"behaviors":["skip-working:skill=report","stuck-submitted:op=cancel-task"]}`)
	for range 2 {
		h.rpc("/agents/w/", "SendMessage", sendParams("hi", "intake"), v1)
	}
	status, _, b := h.do(http.MethodGet, "/_a2amock/behaviors?agent=w", nil, nil)
	require.Equal(t, http.StatusOK, status)
	var out struct {
		Stats []struct {
			Behavior    string
			Acted       int64
			Skipped     int64
			SkippedBy   map[string]int64
			SkipReasons map[string]int64
			LastSkip    string
		}
	}
	require.NoError(t, json.Unmarshal(b, &out))
	require.Len(t, out.Stats, 2)
	assert.Equal(t, "skip-working:skill=report", out.Stats[0].Behavior)
	assert.Equal(t, int64(0), out.Stats[0].Acted)
	assert.Equal(t, int64(2), out.Stats[0].Skipped)
	assert.Equal(t, map[string]int64{"skill": 2}, out.Stats[0].SkippedBy)
	assert.Equal(t, `message went to skill "intake"; scope wants "report"`, out.Stats[0].LastSkip)
	assert.Equal(t, map[string]int64{`message went to skill "intake"; scope wants "report"`: 2}, out.Stats[0].SkipReasons)
	assert.Equal(t, map[string]int64{"op": 2}, out.Stats[1].SkippedBy)

	reqs, _ := h.journalQuery("?agent=w&kind=request")
	require.Len(t, reqs, 2)
	require.Len(t, reqs[0].Skipped, 2)
	assert.Equal(t, server.SkippedBehavior{Behavior: "skip-working:skill=report", Key: "skill",
		Detail: `message went to skill "intake"; scope wants "report"`}, reqs[0].Skipped[0])
	assert.Equal(t, "op", reqs[0].Skipped[1].Key)
	assert.Empty(t, reqs[0].Behaviors)

	// The same behavior acts on a message to report, and the entry says so.
	h.rpc("/agents/w/", "SendMessage", sendParams("hi", "report"), v1)
	reqs, _ = h.journalQuery("?agent=w&kind=request")
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"skip-working:skill=report"}, reqs[2].Behaviors)
	require.NoError(t, json.Unmarshal(func() []byte { _, _, b := h.do(http.MethodGet, "/_a2amock/behaviors?agent=w", nil, nil); return b }(), &out))
	assert.Equal(t, int64(1), out.Stats[0].Acted)

	// Card fetches list the behaviors too.
	h.do(http.MethodGet, "/agents/w/.well-known/agent-card.json", nil, nil)
	cardsSeen, _ := h.journalQuery("?agent=w&kind=card")
	require.Len(t, cardsSeen, 1)
	assert.Equal(t, "skill", cardsSeen[0].Skipped[0].Key)
}

// TestAgentsRemovalEndsStreamsAndSends removes an agent with an open stream
// and a blocking send in flight: both end, and goleak (TestMain) sees no
// goroutine left.
func TestAgentsRemovalEndsStreamsAndSends(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"gone","behaviors":["never-terminal:block=true"]}`)
	var wg sync.WaitGroup
	streamDone := make(chan [][]byte, 1)
	firstFrame := make(chan struct{})
	sendDone := make(chan int, 1)
	wg.Add(2)
	go func() {
		defer wg.Done()
		req, err := http.NewRequest(http.MethodPost, h.url+"/agents/gone/", bytes.NewReader(rpcBody("SendStreamingMessage", sendParams("s", ""))))
		if err != nil {
			t.Error(err)
			close(firstFrame)
			streamDone <- nil
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		st, err := sse.Do(ctx, h.client, req)
		if err != nil {
			t.Error(err)
			close(firstFrame)
			streamDone <- nil
			return
		}
		defer st.Close()
		var out [][]byte
		for ev, err := range st.Events() {
			if err != nil {
				t.Errorf("stream ended badly after %d events: %v", len(out), err)
				break
			}
			out = append(out, ev.Data)
			if len(out) == 1 {
				close(firstFrame)
			}
		}
		if len(out) == 0 {
			close(firstFrame)
		}
		streamDone <- out
	}()
	go func() {
		defer wg.Done()
		status, _, _ := h.post("/agents/gone/", rpcBody("SendMessage", sendParams("u", "")), v1)
		sendDone <- status
	}()
	// The stream is open once its first event arrived (its response entry
	// is journaled before it writes anything: waiting for that entry and a
	// 20ms sleep let the removal come first now and then); the send once
	// its request is journaled, which serveRequest does only after it
	// watches the agent's removal.
	select {
	case <-firstFrame:
	case <-time.After(10 * time.Second):
		t.Fatal("no event on the stream")
	}
	waitFor(t, "a stream and a send in flight", func() bool {
		return len(h.srv.Journal().Filter(0, "gone", "", server.EntryRequest)) == 2
	})
	status, _, _ := h.do(http.MethodDelete, "/_a2amock/agents/gone", nil, nil)
	require.Equal(t, http.StatusNoContent, status)
	select {
	case frames := <-streamDone:
		assert.NotEmpty(t, frames)
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived its agent")
	}
	select {
	case <-sendDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the send outlived its agent")
	}
	wg.Wait()
	closes := h.srv.Journal().Filter(0, "gone", "", server.EntryStreamClose)
	require.Len(t, closes, 1)
	assert.Equal(t, "agent removed", closes[0].Detail)
}

// TestAgentsConcurrentCreateDelete runs creates, requests, listings and
// deletes at once (run with -race).
func TestAgentsConcurrentCreateDelete(t *testing.T) {
	h := frontDoor(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				name := fmt.Sprintf("w%d-%d", w, i)
				status, b := h.createAgent(fmt.Sprintf(`{"name":%q,"behaviors":["skip-working"]}`, name))
				if !assert.Equal(t, http.StatusCreated, status, "%s", b) {
					return
				}
				st, _, b := h.post("/agents/"+name+"/", rpcBody("SendMessage", sendParams("x", "")), v1)
				assert.Equal(t, http.StatusOK, st, "%s", b)
				h.do(http.MethodGet, "/_a2amock/journal?agent="+name, nil, nil)
				h.do(http.MethodGet, "/_a2amock/metrics", nil, nil)
				st, _, _ = h.do(http.MethodDelete, "/_a2amock/agents/"+name, nil, nil)
				assert.Equal(t, http.StatusNoContent, st)
			}
		}()
	}
	for range 4 { // generated names under contention
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				status, b := h.createAgent(`{}`)
				assert.Equal(t, http.StatusCreated, status, "%s", b)
				h.agentNames()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, h.agentNames(), 1+40)
}

// TestSkipReasonsAreBounded: distinct skip reasons stop at 16, the rest
// are counted together.
func TestSkipReasonsAreBounded(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"r","behaviors":["skip-working:text=^never$"]}`)
	for i := range 20 {
		h.rpc("/agents/r/", "SendMessage", sendParams(fmt.Sprintf("message %d", i), ""), v1)
	}
	_, _, b := h.do(http.MethodGet, "/_a2amock/behaviors?agent=r", nil, nil)
	var out struct {
		Stats []struct{ SkipReasons map[string]int64 }
	}
	require.NoError(t, json.Unmarshal(b, &out))
	reasons := out.Stats[0].SkipReasons
	assert.Len(t, reasons, 17)
	assert.Equal(t, int64(4), reasons["(other reasons)"])
	assert.Equal(t, int64(1), reasons[`message text "message 0" does not match ^never$`])
}

// TestBehaviorsErrorsNameTheField: PUT /_a2amock/behaviors names the first
// bad spec and the unknown agent.
func TestBehaviorsErrorsNameTheField(t *testing.T) {
	h := frontDoor(t)
	cases := []struct{ path, body, field string }{
		{"/_a2amock/behaviors", `{"behaviors":["skip-working","nope"]}`, "behaviors[1]"},
		{"/_a2amock/behaviors", `{"behavior":[]}`, "behaviors"},
		{"/_a2amock/behaviors?agent=ghost", `{"behaviors":[]}`, "agent"},
	}
	for _, c := range cases {
		status, _, b := h.do(http.MethodPut, c.path, []byte(c.body), nil)
		assert.GreaterOrEqual(t, status, 400, "%s", b)
		var e controlErr
		require.NoError(t, json.Unmarshal(b, &e))
		assert.Equal(t, c.field, e.Error.Field, "%s", b)
	}
}

// TestFrontDoorFollowsTheControlRules: the agents, metrics and OpenAPI
// endpoints sit behind the same token and cross-site rules as the rest of
// the control API.
func TestFrontDoorFollowsTheControlRules(t *testing.T) {
	h := frontDoor(t, func(c *server.Config) { c.ControlToken = "s3cret" })
	for _, p := range []string{"/_a2amock/agents", "/_a2amock/metrics", "/_a2amock/openapi.json"} {
		status, _, _ := h.do(http.MethodGet, p, nil, nil)
		assert.Equal(t, http.StatusUnauthorized, status, p)
		status, _, _ = h.do(http.MethodGet, p, nil, map[string]string{"Authorization": "Bearer s3cret"})
		assert.Equal(t, http.StatusOK, status, p)
	}
	status, _, _ := h.do(http.MethodPost, "/_a2amock/agents", []byte(`{"name":"x"}`), nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	status, _, _ = h.do(http.MethodPost, "/_a2amock/agents", []byte(`{"name":"x"}`),
		map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://evil.example"})
	assert.Equal(t, http.StatusForbidden, status, "a cross-site page cannot create agents")
	status, _, _ = h.do(http.MethodDelete, "/_a2amock/agents/agent", nil,
		map[string]string{"Authorization": "Bearer s3cret", "Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, []string{"agent"}, h.srv.AgentNames())
}

// BenchmarkAgentCreateDelete is one test's agent lifecycle on a shared
// server over HTTP: create (generated card), fetch its card, delete.
func BenchmarkAgentCreateDelete(b *testing.B) {
	h := frontDoor(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		name := fmt.Sprintf("b%d", i)
		if status, body := h.createAgent(fmt.Sprintf(`{"name":%q,"behaviors":["skip-working"]}`, name)); status != http.StatusCreated {
			b.Fatalf("create: %d %s", status, body)
		}
		h.do(http.MethodGet, "/agents/"+name+"/.well-known/agent-card.json", nil, nil)
		if status, _, _ := h.do(http.MethodDelete, "/_a2amock/agents/"+name, nil, nil); status != http.StatusNoContent {
			b.Fatalf("delete: %d", status)
		}
	}
}

// BenchmarkMetricsScrape scrapes the metrics of a server with 100 agents
// that have each answered a request.
func BenchmarkMetricsScrape(b *testing.B) {
	h := frontDoor(b)
	for i := range 100 {
		name := fmt.Sprintf("m%d", i)
		h.mustCreate(fmt.Sprintf(`{"name":%q}`, name))
		h.post("/agents/"+name+"/", rpcBody("SendMessage", sendParams("x", "")), v1)
	}
	b.ReportAllocs()
	for b.Loop() {
		if status, _, _ := h.do(http.MethodGet, "/_a2amock/metrics", nil, nil); status != http.StatusOK {
			b.Fatal(status)
		}
	}
}
