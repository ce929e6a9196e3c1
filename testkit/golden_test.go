package testkit_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// The Python and JS clients mirror the journal assertions with the same
// messages. testdata/assertions.json holds journals of real runs, calls of
// the assertions on them and the Go testkit's messages; this test keeps the
// messages in step with the Go code, and the clients' tests
// (clients/python/tests, clients/js/test) check theirs against the same file.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/assertions.json from fresh runs")

const goldenPath = "testdata/assertions.json"

type goldenCall struct {
	Assert   string `json:"assert"`
	Task     string `json:"task,omitempty"`
	N        int    `json:"n,omitempty"`
	WithinMS int64  `json:"withinMs,omitempty"`
	// Card is the wire card AssertUsedDeclaredInterface is given.
	Card json.RawMessage `json:"card,omitempty"`
	// Agent is the agent the card assertions are about.
	Agent string `json:"agent,omitempty"`
	// ChangedAt is the journal seq AssertCardRefetchedOnChange is given.
	ChangedAt int64  `json:"changedAt,omitempty"`
	Want      string `json:"want"`
}

type goldenCase struct {
	Name    string         `json:"name"`
	Journal []server.Entry `json:"journal"`
	Calls   []goldenCall   `json:"calls"`
}

// failureText captures the message an assertion passed to assert.Fail,
// out of testify's labelled output.
type failureText struct{ out string }

func (f *failureText) Errorf(format string, args ...any) { f.out += fmt.Sprintf(format, args...) }

func (f *failureText) message() string {
	const cont = "\t            \t" // testify's indent under the longest label, "Error Trace"
	var msg []string
	in := false
	for _, line := range strings.Split(f.out, "\n") {
		switch {
		case strings.HasPrefix(line, "\tError:"):
			in = true
			msg = append(msg, strings.TrimPrefix(line, "\tError:      \t"))
		case in && strings.HasPrefix(line, cont):
			msg = append(msg, strings.TrimPrefix(line, cont))
		default:
			in = false
		}
	}
	return strings.Join(msg, "\n")
}

func runCall(journal []server.Entry, c goldenCall) string {
	ft := &failureText{}
	switch c.Assert {
	case "AssertNoOrphans":
		testkit.AssertNoOrphans(ft, journal)
	case "AssertPolledAtMost":
		testkit.AssertPolledAtMost(ft, journal, c.Task, c.N)
	case "AssertStoppedPollingWithin":
		testkit.AssertStoppedPollingWithin(ft, journal, c.Task, time.Duration(c.WithinMS)*time.Millisecond)
	case "AssertCanceled":
		testkit.AssertCanceled(ft, journal, c.Task)
	case "AssertNoContinuationTo":
		testkit.AssertNoContinuationTo(ft, journal, c.Task)
	case "AssertNoIgnoredFields":
		testkit.AssertNoIgnoredFields(ft, journal)
	case "AssertUsedDeclaredInterface":
		card, err := cards.Parse(c.Card)
		if err != nil {
			panic(err)
		}
		testkit.AssertUsedDeclaredInterface(ft, journal, card)
	case "AssertContinuationCarriesTaskID":
		testkit.AssertContinuationCarriesTaskID(ft, journal)
	case "AssertSentVersionHeader":
		testkit.AssertSentVersionHeader(ft, journal)
	case "AssertNoPageTokenLoop":
		testkit.AssertNoPageTokenLoop(ft, journal)
	case "AssertRetryReusedMessageID":
		testkit.AssertRetryReusedMessageID(ft, journal)
	case "AssertCardRefetchedOnChange":
		testkit.AssertCardRefetchedOnChange(ft, journal, c.Agent, c.ChangedAt)
	case "AssertCardSignatureChecked":
		testkit.AssertCardSignatureChecked(ft, journal, c.Agent)
	case "AssertNoRequestAfterBadCardSignature":
		testkit.AssertNoRequestAfterBadCardSignature(ft, journal, c.Agent)
	case "AssertFellBackToPollingFromJournal":
		testkit.AssertFellBackToPollingFromJournal(ft, journal, c.Task)
	default:
		panic("unknown assertion " + c.Assert)
	}
	return ft.message()
}

func rpcTo(t *testing.T, url, method string, params any) map[string]any {
	t.Helper()
	p, err := json.Marshal(params)
	require.NoError(t, err)
	b := postRaw(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p))
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	return out
}

// postRaw posts body as JSON to url, as a v1.0 client, and returns the
// answer's body; the requests the mock refuses are sent with it as is.
func postRaw(t *testing.T, url, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

func msg(text, taskID, contextID string, meta map[string]any) map[string]any {
	m := map[string]any{"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if taskID != "" {
		m["taskId"], m["contextId"] = taskID, contextID
	}
	if meta != nil {
		m["metadata"] = meta
	}
	return map[string]any{"message": m}
}

func taskOf(t *testing.T, res map[string]any) (string, string) {
	t.Helper()
	r, ok := res["result"].(map[string]any)
	require.True(t, ok, "%v", res)
	task := r["task"].(map[string]any)
	return task["id"].(string), task["contextId"].(string)
}

// freshGoldenCases drives a real server through the situations the
// assertions judge.
func freshGoldenCases(t *testing.T) []goldenCase {
	var cases []goldenCase
	cardCalls := map[string][]goldenCall{}
	extraCalls := map[string][]goldenCall{}
	runWith := func(name string, opts []testkit.Option, drive func(m *testkit.Mock, url string) []goldenCall) {
		m := testkit.Start(t, append([]testkit.Option{testkit.WithStepDelay(-1)}, opts...)...)
		extraCalls[name] = drive(m, m.URL+"/")
		cases = append(cases, goldenCase{Name: name, Journal: m.Journal()})
		http.DefaultClient.CloseIdleConnections()
	}
	run := func(name string, opts []testkit.Option, drive func(url string)) {
		runWith(name, opts, func(_ *testkit.Mock, u string) []goldenCall { drive(u); return nil })
	}
	// interfaceCalls checks the journal against the card the client read, and
	// against that card changed to declare only HTTP+JSON.
	interfaceCalls := func(name, cardURL string) {
		resp, err := http.Get(cardURL)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var card map[string]any
		require.NoError(t, json.Unmarshal(raw, &card))
		if ins, ok := card["supportedInterfaces"].([]any); ok {
			card["supportedInterfaces"] = slices.DeleteFunc(ins, func(i any) bool { return i.(map[string]any)["protocolBinding"] == "JSONRPC" })
		} else {
			card["preferredTransport"], card["additionalInterfaces"] = "HTTP+JSON", []any{}
		}
		changed, err := json.Marshal(card)
		require.NoError(t, err)
		cardCalls[name] = []goldenCall{{Assert: "AssertUsedDeclaredInterface", Card: raw}, {Assert: "AssertUsedDeclaredInterface", Card: changed}}
	}
	run("honest task, polled once", nil, func(u string) {
		id, _ := taskOf(t, rpcTo(t, u, "SendMessage", msg("hi", "", "", nil)))
		rpcTo(t, u, "GetTask", map[string]any{"id": id})
		interfaceCalls("honest task, polled once", u+".well-known/agent-card.json")
	})
	run("working for ever, polled three times, never canceled", []testkit.Option{testkit.WithBehavior("", "never-terminal")}, func(u string) {
		id, _ := taskOf(t, rpcTo(t, u, "SendMessage", msg("hi", "", "", nil)))
		for range 3 {
			time.Sleep(2 * time.Millisecond)
			rpcTo(t, u, "GetTask", map[string]any{"id": id})
		}
	})
	run("canceled, then continued", []testkit.Option{testkit.WithBehavior("", "never-terminal")}, func(u string) {
		id, ctx := taskOf(t, rpcTo(t, u, "SendMessage", msg("hi", "", "", nil)))
		rpcTo(t, u, "CancelTask", map[string]any{"id": id})
		rpcTo(t, u, "SendMessage", msg("more", id, ctx, nil))
	})
	run("cancel refused", []testkit.Option{testkit.WithBehavior("", "never-terminal", "ignore-cancel")}, func(u string) {
		id, _ := taskOf(t, rpcTo(t, u, "SendMessage", msg("hi", "", "", nil)))
		rpcTo(t, u, "CancelTask", map[string]any{"id": id})
	})
	run("continuation answered with a new task", []testkit.Option{testkit.WithScenario("../examples/incidents/three-worker-incident.yaml")}, func(u string) {
		w3 := strings.TrimSuffix(u, "/") + "/agents/worker-3/"
		intake := map[string]any{"skillId": "intake"}
		body := msg("monthly report", "", "", intake)
		res := rpcToV03(t, w3, body)
		id, ctx := res["id"].(string), res["contextId"].(string)
		rpcToV03(t, w3, msg("account 42", id, ctx, intake))
		rpcToV03(t, w3, msg("account 42, again", id, ctx, intake))
		interfaceCalls("continuation answered with a new task", w3+".well-known/agent-card.json")
	})
	run("malformed request to the declared endpoint", nil, func(u string) {
		postRaw(t, u, `{"jsonrpc":"2.0","id":1,"method":`)
		postRaw(t, u, `{"jsonrpc":"2.0","id":2,"method":"message/sendd","params":{}}`)
		interfaceCalls("malformed request to the declared endpoint", u+".well-known/agent-card.json")
	})
	run("post to no route", nil, func(u string) {
		postRaw(t, u+"nowhere/at/all", `{}`)
		interfaceCalls("post to no route", u+".well-known/agent-card.json")
	})
	run("v0.3 fields sent to a v1.0 agent", nil, func(u string) {
		// Every v0.3 field v1.0 has a hint for: the golden file holds each
		// hint's text for the Python and JS mirrors.
		body := msg("hi", "", "", nil)
		m := body["message"].(map[string]any)
		m["kind"] = "message"
		m["parts"] = []any{map[string]any{"kind": "text", "text": "hi", "file": map[string]any{"uri": "https://example.example/f"}}}
		body["configuration"] = map[string]any{"blocking": true, "pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:1/hook"}}
		rpcTo(t, u, "SendMessage", body)
		rpcTo(t, u, "SendMessage", msg("and one of v1.0 fields only", "", "", nil))
		// Not only sends: the proto's name where v1.0's JSON reads pageSize.
		rpcTo(t, u, "ListTasks", map[string]any{"page_size": 1})
	})
	run("v1.0 fields sent to a v0.3 agent", []testkit.Option{testkit.WithDialect(wire.V03)}, func(u string) {
		body := msg("hi", "", "", nil)
		body["configuration"] = map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": "http://127.0.0.1:1/hook"}}
		rpcToV03(t, u, body, map[string]any{"url": "https://example.example/f", "raw": "aGk=", "mediaType": "text/plain", "filename": "f.txt"})
	})
	run("v0.3 agent over its gRPC service", []testkit.Option{testkit.WithDialect(wire.V03), testkit.WithGRPC()}, func(u string) {
		conn, err := grpc.NewClient(strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/"), grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		defer conn.Close()
		c := a2apb03.NewA2AServiceClient(conn)
		res, err := c.SendMessage(t.Context(), &a2apb03.SendMessageRequest{Request: &a2apb03.Message{MessageId: "m1", Role: a2apb03.Role_ROLE_USER,
			Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}}})
		require.NoError(t, err)
		_, err = c.GetTask(t.Context(), &a2apb03.GetTaskRequest{Name: "tasks/" + res.GetTask().GetId()})
		require.NoError(t, err)
		// The card declares GRPC at host:port in additionalInterfaces; the
		// changed one declares HTTP+JSON only, which the calls did not use.
		interfaceCalls("v0.3 agent over its gRPC service", u+".well-known/agent-card.json")
	})
	run("unknown task continued", nil, func(u string) {
		rpcTo(t, u, "GetTask", map[string]any{"id": "no-such-task"})
		rpcTo(t, u, "SendMessage", msg("hello?", "no-such-task", "", nil))
	})
	clientHabitCases(t, runWith)
	for i := range cases {
		c := &cases[i]
		ids := []string{"no-such-task"}
		for _, e := range c.Journal {
			for _, id := range []string{e.TaskID, e.RefTaskID} {
				if id != "" && !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		c.Calls = append(c.Calls, goldenCall{Assert: "AssertNoOrphans"}, goldenCall{Assert: "AssertNoIgnoredFields"},
			goldenCall{Assert: "AssertContinuationCarriesTaskID"}, goldenCall{Assert: "AssertSentVersionHeader"},
			goldenCall{Assert: "AssertNoPageTokenLoop"}, goldenCall{Assert: "AssertRetryReusedMessageID"})
		var agents []string
		for _, e := range c.Journal {
			if e.Agent != "" && !slices.Contains(agents, e.Agent) {
				agents = append(agents, e.Agent)
			}
		}
		for _, a := range agents {
			c.Calls = append(c.Calls, goldenCall{Assert: "AssertCardSignatureChecked", Agent: a},
				goldenCall{Assert: "AssertNoRequestAfterBadCardSignature", Agent: a})
		}
		c.Calls = append(c.Calls, cardCalls[c.Name]...)
		c.Calls = append(c.Calls, extraCalls[c.Name]...)
		for _, id := range ids {
			c.Calls = append(c.Calls,
				goldenCall{Assert: "AssertPolledAtMost", Task: id, N: 1},
				goldenCall{Assert: "AssertStoppedPollingWithin", Task: id, WithinMS: 0},
				goldenCall{Assert: "AssertStoppedPollingWithin", Task: id, WithinMS: 3_600_000},
				goldenCall{Assert: "AssertCanceled", Task: id},
				goldenCall{Assert: "AssertNoContinuationTo", Task: id},
				goldenCall{Assert: "AssertFellBackToPollingFromJournal", Task: id})
		}
		for j := range c.Calls {
			c.Calls[j].Want = runCall(c.Journal, c.Calls[j])
		}
	}
	return cases
}

// rpcToV03 sends a v0.3 message/send (worker-3's card is 0.3) and returns
// the task.
func rpcToV03(t *testing.T, url string, params map[string]any, partExtra ...map[string]any) map[string]any {
	t.Helper()
	m := params["message"].(map[string]any)
	m["role"], m["kind"] = "user", "message"
	part := map[string]any{"kind": "text", "text": m["parts"].([]any)[0].(map[string]any)["text"]}
	for _, extra := range partExtra {
		maps.Copy(part, extra)
	}
	m["parts"] = []any{part}
	p, err := json.Marshal(params)
	require.NoError(t, err)
	resp, err := http.Post(url, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":`+string(p)+`}`)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Result map[string]any `json:"result"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.NotNil(t, out.Result)
	return out.Result
}

func TestAssertionMessagesGolden(t *testing.T) {
	if *updateGolden {
		b, err := json.MarshalIndent(map[string]any{"cases": freshGoldenCases(t)}, "", " ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(goldenPath, append(b, '\n'), 0o644))
	}
	raw, err := os.ReadFile(goldenPath)
	require.NoError(t, err, "go test ./testkit -run TestAssertionMessagesGolden -update-golden writes it")
	var g struct{ Cases []goldenCase }
	require.NoError(t, json.Unmarshal(raw, &g))
	require.NotEmpty(t, g.Cases)
	failures := 0
	for _, c := range g.Cases {
		for _, call := range c.Calls {
			got := runCall(c.Journal, call)
			if call.Want != "" {
				failures++
			}
			assert.Equal(t, call.Want, got, "%s: %s(%q)", c.Name, call.Assert, call.Task)
		}
	}
	assert.Greater(t, failures, 10, "the golden calls must include failing assertions")
}

// The golden file holds every hint AssertNoIgnoredFields gives (each
// dialect's ForeignFields), so the Python and JS copies of the hints are
// checked word for word.
func TestGoldenHoldsEveryIgnoredFieldHint(t *testing.T) {
	raw, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	for _, d := range wire.Dialects {
		for path, hint := range wire.Describe(d).ForeignFields {
			assert.Contains(t, string(raw), strings.ReplaceAll(hint, `"`, `\"`), "dialect %s: the hint for %s", d, path)
		}
	}
}
