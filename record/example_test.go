package record_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
	"github.com/a2amock/a2amock/server"
)

// Record a session with an agent through the proxy, then replay it with
// the agent gone: the replay answers with the recorded task.
func ExampleNewProxy() {
	agent, _ := server.New(server.Config{Seed: 7, StepDelay: -1})
	_ = agent.Start("127.0.0.1:0")
	upstream, _ := url.Parse(agent.URL())

	proxy := record.NewProxy(upstream, record.ProxyOptions{})
	defer proxy.Close()
	front := httptest.NewUnstartedServer(proxy)
	record.ServeH2C(front.Config) // gRPC clients reach the proxy too
	front.Start()
	send := func(base string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		return resp.Status
	}
	fmt.Println("through the proxy:", send(front.URL))
	front.Close()
	_ = agent.Close()

	rec := proxy.Recording()
	for _, x := range rec.Exchanges {
		fmt.Println("recorded:", x.Kind, x.Method, x.States())
	}

	var answered struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	_ = json.Unmarshal(rec.Exchanges[0].Response, &answered)

	rp, _ := replay.New(rec, replay.Options{})
	replayed := httptest.NewServer(rp)
	defer func() { rp.Close(); replayed.Close() }()
	fmt.Println("replayed:", send(replayed.URL))
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryResponse {
			fmt.Println("journal:", e.Method, e.State, "the recorded task:", e.TaskID == answered.Result.Task.ID)
		}
	}
	// Output:
	// through the proxy: 200 OK
	// recorded: jsonrpc SendMessage [TASK_STATE_COMPLETED]
	// replayed: 200 OK
	// journal: SendMessage completed the recorded task: true
}
