package testkit_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/testkit"
)

// rawClient speaks JSON-RPC to a mock's default agent by hand, so each test
// can make exactly the client mistake under test.
type rawClient struct {
	t       *testing.T
	url     string
	version string
	n       int
	// failOK makes send return nil for an answer that is not a task.
	failOK bool
}

func (c *rawClient) call(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.n++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.n, "method": method, "params": params})
	require.NoError(c.t, err)
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	if c.version != "" {
		req.Header.Set("A2A-Version", c.version)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	var env struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(b, &env); err != nil && c.failOK {
		return nil
	}
	require.NoError(c.t, json.Unmarshal(b, &env), "%s", b)
	return env.Result
}

func (c *rawClient) send(msgID, text, taskID, contextID string) map[string]any {
	c.t.Helper()
	m := map[string]any{"messageId": msgID, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	if contextID != "" {
		m["contextId"] = contextID
	}
	res := c.call("SendMessage", map[string]any{"message": m})
	task, _ := res["task"].(map[string]any)
	if !c.failOK {
		require.NotNil(c.t, task, "%v", res)
	}
	return task
}

func inputMock(t *testing.T) *testkit.Mock {
	t.Helper()
	return testkit.Start(t, testkit.WithSeed(5), testkit.WithStepDelay(-1), testkit.WithCardChange("agent", func(c *cards.Card) {
		for i := range c.Skills {
			c.Skills[i].NeedsInput = true
		}
	}))
}

func TestAssertContinuationCarriesTaskID(t *testing.T) {
	t.Parallel()
	m := inputMock(t)
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	first := c.send("m1", "book it", "", "")
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", first["status"].(map[string]any)["state"])
	id, ctx := first["id"].(string), first["contextId"].(string)
	c.send("m2", "the blue one", id, ctx)
	passes(t, func(rt *recT) bool { return testkit.AssertContinuationCarriesTaskID(rt, m.Journal()) })

	// The next task, answered with its contextId only.
	second := c.send("m3", "book another", "", "")
	id2, ctx2 := second["id"].(string), second["contextId"].(string)
	c.send("m4", "the red one", "", ctx2)
	fails(t, func(rt *recT) bool { return testkit.AssertContinuationCarriesTaskID(rt, m.Journal()) },
		`task "`+id2+`": its input-required was answered without its taskId`,
		"client did: SendMessage", "message m4", "with contextId "+ctx2+" only",
		"declared:   a continuation of a task in input-required", "carries taskId "+id2,
		"observed:   no taskId")

	// A third, answered with its taskId but another task's contextId.
	third := c.send("m5", "book a third", "", "")
	id3 := third["id"].(string)
	c.failOK = true
	c.send("m6", "the green one", id3, ctx2)
	fails(t, func(rt *recT) bool { return testkit.AssertContinuationCarriesTaskID(rt, m.Journal()) },
		"2 continuation(s) without the task's ids", `task "`+id3+`": continued with another contextId`,
		"client did: SendMessage (entry", "message m6)", "declared:   a continuation carries the task's contextId "+third["contextId"].(string)+" (or none)",
		"observed:   contextId "+ctx2)
}

func TestAssertSentVersionHeader(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(6), testkit.WithStepDelay(-1))
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	c.send("m1", "hi", "", "")
	passes(t, func(rt *recT) bool { return testkit.AssertSentVersionHeader(rt, m.Journal()) })
	c.version = ""
	c.send("m2", "hi again", "", "")
	fails(t, func(rt *recT) bool { return testkit.AssertSentVersionHeader(rt, m.Journal()) },
		"1 of 2 v1.0 request(s) without A2A-Version: 1.0", "SendMessage over JSONRPC", "A2A-Version none",
		"declared:   every v1.0 request carries A2A-Version: 1.0")
}

func TestAssertNoPageTokenLoop(t *testing.T) {
	t.Parallel()
	for _, looping := range []bool{false, true} {
		opts := []testkit.Option{testkit.WithSeed(7), testkit.WithStepDelay(-1)}
		if looping {
			opts = append(opts, testkit.WithBehavior("agent", "list-pagination-loop"))
		}
		m := testkit.Start(t, opts...)
		c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
		for _, id := range []string{"m1", "m2", "m3"} {
			c.send(id, "hi "+id, "", "")
		}
		// A naive client: follow nextPageToken, at most 5 pages.
		token := ""
		for range 5 {
			page := c.call("ListTasks", map[string]any{"pageSize": 1, "pageToken": token})
			token, _ = page["nextPageToken"].(string)
			if token == "" {
				break
			}
		}
		if !looping {
			passes(t, func(rt *recT) bool { return testkit.AssertNoPageTokenLoop(rt, m.Journal()) })
			continue
		}
		fails(t, func(rt *recT) bool { return testkit.AssertNoPageTokenLoop(rt, m.Journal()) },
			"agent agent: ListTasks followed a nextPageToken that repeated", `sent pageToken "`+token+`" again`,
			"declared:   a client stops", "as its nextPageToken")
	}
}

func TestAssertRetryReusedMessageID(t *testing.T) {
	t.Parallel()
	// Sends 1 and 3 fail (the server answers 503 instead of the agent).
	m := testkit.Start(t, testkit.WithSeed(8), testkit.WithStepDelay(-1),
		testkit.WithBehavior("agent", "http-error:status=503,op=send,call=1", "http-error:status=503,op=send,call=3"))
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	c.failOK = true
	c.send("m1", "charge the card", "", "ctx-1") // fails
	c.send("m1", "charge the card", "", "ctx-1") // a retry that reuses the id
	c.send("m2", "charge the card", "", "ctx-1") // fails: the same text, on purpose, after a success
	passes(t, func(rt *recT) bool { return testkit.AssertRetryReusedMessageID(rt, m.Journal()) })
	c.send("m4", "charge the card", "", "ctx-1") // the retry of m2, with a new id
	fails(t, func(rt *recT) bool { return testkit.AssertRetryReusedMessageID(rt, m.Journal()) },
		"agent agent: a failed message was resent with a new messageId", "failed (http-error",
		"declared:   a retry reuses the messageId m2", "observed:   messageId m4")
}

func TestAssertCardRefetchedOnChange(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(9), testkit.WithStepDelay(-1))
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	fetch := func() {
		resp, err := http.Get(m.CardURL("agent"))
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	last := func() int64 { j := m.Journal(); return j[len(j)-1].Seq }
	fetch()
	c.send("m1", "hi", "", "")
	require.NoError(t, m.SetBehavior("agent", "card-underclaims"))
	changed := last()
	fetch()
	c.send("m2", "hi", "", "")
	passes(t, func(rt *recT) bool { return testkit.AssertCardRefetchedOnChange(rt, m.Journal(), "agent", changed) })

	require.NoError(t, m.SetBehavior("agent"))
	changed = last()
	c.send("m3", "hi", "", "")
	fails(t, func(rt *recT) bool { return testkit.AssertCardRefetchedOnChange(rt, m.Journal(), "agent", changed) },
		"agent agent: card changed but not fetched again", "SendMessage over JSONRPC",
		"refetch it before using the agent", "observed:   no card fetch")
}
