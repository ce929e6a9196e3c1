package conform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// TestWireEndsAtClientExit: the wire records a run is judged and reported
// on end where the client's process ended, as its journal does, so that
// the same suite and seed give the same records however fast the mock
// shuts down. The client opens a stream, reads its first event and exits,
// leaving the connection to a child of its (killed after the exit, as
// strays are); the mock's timers are a fake clock's. In one run the mock
// is shut down at once; in the other, between the client's exit and the
// shutdown, the task runs on to completed (its stream writing the events
// to the connection nobody reads) and a stray request comes in. The
// stream's record must hold what was written up to the exit, marked open,
// the late request none at all, and the records and verdicts of both runs
// must be the same.
func TestWireEndsAtClientExit(t *testing.T) {
	t.Parallel()
	type run struct {
		name string
		res  *ScenarioResult
		ws   []WireRecord
		// hooked is when the runner called the exited hook, after the cut.
		hooked time.Time
	}
	do := func(late bool) run {
		clock := heldClock{timeline.NewFakeClock(time.Now())}
		r := run{name: "mock shut down at once"}
		if late {
			r.name = "mock shut down late"
		}
		hooks := &runHooks{clock: clock, wire: func(w []WireRecord) { r.ws = w }}
		hooks.exited = func(m *mock) {
			r.hooked = time.Now()
			if late {
				runToState(t, clock.FakeClock, m.srv, wire.StateCompleted)
				resp, err := http.Get(m.url + "/.well-known/agent-card.json")
				if err != nil {
					t.Errorf("a request after the exit: %v", err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		r.res = runOneWith(t, Options{Client: fakeCommand("stream-left"), Scenarios: []string{"honest-v10-jsonrpc"},
			Startup: 5 * time.Second, KeepJournal: true, hooks: hooks})
		return r
	}
	prompt, late := do(false), do(true)
	if prompt.res.Error != "" || late.res.Error != "" {
		t.Fatalf("runner errors: %q, %q", prompt.res.Error, late.res.Error)
	}
	for _, c := range []run{prompt, late} {
		if len(c.ws) < 2 {
			t.Errorf("%s: want the card fetch, then the stream; got\n%s", c.name, lines(wireless(c.ws)))
			continue
		}
		if len(c.ws) > 2 {
			t.Errorf("%s: %d wire records, but the client made 2 requests; the rest came after its exit:\n%s", c.name, len(c.ws), lines(wireless(c.ws[2:])))
		}
		s := c.ws[1]
		if c.ws[0].Open || s.RPCMethod != "SendStreamingMessage" || s.Status != http.StatusOK || s.Faulted || s.Seq != 2 || !s.Open {
			t.Errorf("%s: want the card fetch, then the stream open at the exit; got\n%s", c.name, lines(wireless(c.ws)))
		}
		// Each record names the journal entries of its exchange: the card
		// fetch its card entry, the stream its request's number.
		var cardSeq, streamReq int64
		for _, e := range c.res.Journal {
			if e.Kind == server.EntryCard && cardSeq == 0 {
				cardSeq = e.Seq
			}
			if e.Kind == server.EntryRequest && e.Op == wire.OpStream {
				streamReq = e.Request
			}
		}
		if streamReq == 0 || c.ws[0].JournalSeq != cardSeq || c.ws[0].Request != 0 || s.Request != streamReq || s.JournalSeq != 0 {
			t.Errorf("%s: the card fetch names journal #%d and request %d (want #%d), the stream request %d (want %d)",
				c.name, c.ws[0].JournalSeq, c.ws[0].Request, cardSeq, s.Request, streamReq)
		}
		if s.End.Before(c.res.Process.Exited) || s.End.After(c.hooked) {
			t.Errorf("%s: the stream's record ends at %v, not at the client's exit (%v, the hook ran at %v)", c.name, s.End, c.res.Process.Exited, c.hooked)
		}
		body := string(s.Delivered)
		if strings.Count(body, "\n\n") != 1 || !strings.Contains(body, "TASK_STATE_SUBMITTED") ||
			strings.Contains(body, "TASK_STATE_WORKING") || strings.Contains(body, "TASK_STATE_COMPLETED") {
			t.Errorf("%s: the stream delivered %q by the exit; want its first event only", c.name, body)
		}
	}
	if a, b := wireless(prompt.ws), wireless(late.ws); !slices.Equal(a, b) {
		t.Errorf("the same scenario and seed gave two sets of wire records:\nmock shut down at once:\n%s\nmock shut down late:\n%s", lines(a), lines(b))
	}
	if a, b := timeless(prompt.res.Journal), timeless(late.res.Journal); !slices.Equal(a, b) {
		t.Errorf("the same scenario and seed gave two journals:\n%s\nthen\n%s", lines(a), lines(b))
	}
	for i, c := range prompt.res.Checks {
		d := late.res.Checks[i]
		// exits-in-time's reason gives the client's time, which varies.
		sameReason := c.Reason == d.Reason || c.ID == "exits-in-time"
		if c.Pass != d.Pass || !sameReason || !slices.Equal(wireless(c.Evidence.Wire), wireless(d.Evidence.Wire)) ||
			!slices.Equal(timeless(c.Evidence.Journal), timeless(d.Evidence.Journal)) {
			t.Errorf("check %s: %v %q (wire %v) then %v %q (wire %v)", c.ID, c.Pass, c.Reason, wireless(c.Evidence.Wire), d.Pass, d.Reason, wireless(d.Evidence.Wire))
		}
	}
}

// stamp matches an RFC 3339 time in a body: a status's timestamp.
var stamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// wireless renders wire records without what varies from one run of a
// scenario to the next (times, the client's port), with the body they
// delivered (its times masked), one JSON object each.
func wireless(ws []WireRecord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		w.Start, w.End, w.Conn = time.Time{}, time.Time{}, ""
		b, _ := json.Marshal(struct {
			WireRecord
			Delivered string `json:"delivered"`
		}{w, stamp.ReplaceAllString(string(w.Delivered), "TIME")})
		out[i] = string(b)
	}
	return out
}

// streamLeftClient reads the card, opens a stream (SendStreamingMessage),
// reads its first event and exits, reporting an error, with the stream
// open: a child of its, asleep, holds the connection until the runner
// kills it with the client's strays, so the mock learns nothing of the
// exit until then.
func streamLeftClient() int {
	base := strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/")
	if resp, err := http.Get(base + "/.well-known/agent-card.json"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var conn atomic.Pointer[net.TCPConn]
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			conn.Store(tc)
		}
		return c, err
	}}
	msg := map[string]any{"messageId": "left-1", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": os.Getenv("A2AMOCK_PROMPT")}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": map[string]any{"message": msg}})
	req, _ := http.NewRequest(http.MethodPost, base+"/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		fmt.Printf(`{"outcome":"error","detail":%q}`+"\n", err.Error())
		return 0
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			fmt.Printf(`{"outcome":"error","detail":%q}`+"\n", "the stream ended before its first event: "+err.Error())
			return 0
		}
		if strings.TrimRight(line, "\r\n") == "" {
			break
		}
	}
	f, err := conn.Load().File()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fakeEnv+"=sleeper")
	cmd.ExtraFiles = []*os.File{f}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(`{"outcome":"error","detail":"left the stream open"}`)
	return 0
}

// TestStreamEndSeenBeforeExit: a client that reads a stream to its
// terminal event and exits at once, without reading on to the end of the
// HTTP answer, leaves the same records in every run: the stream's record
// finished (not open at the exit), and the journal holding the terminal
// event as written to the stream and the stream's end, complete. The mock
// writes the last event of a stream without flushing it, so it reaches the
// client with the answer's end, after the server journaled it and the
// recorder ended the exchange. Before, about one run in six recorded the
// stream open at the exit, with neither entry in the journal.
func TestStreamEndSeenBeforeExit(t *testing.T) {
	t.Parallel()
	var ws []WireRecord
	res := runOneWith(t, Options{Client: fakeCommand("stream-final"), Scenarios: []string{"honest-v10-jsonrpc"}, Startup: 5 * time.Second,
		KeepJournal: true, hooks: &runHooks{wire: func(w []WireRecord) { ws = w }}})
	if o := res.Process.Outcome; o == nil || o.Outcome != "completed" {
		t.Fatalf("the client reported %+v; want completed", o)
	}
	if len(ws) != 1 || ws[0].RPCMethod != "SendStreamingMessage" || ws[0].Open || ws[0].Faulted || ws[0].Status != http.StatusOK {
		t.Errorf("want the stream, finished before the exit; got\n%s", lines(wireless(ws)))
	}
	n := len(res.Journal)
	if n < 2 {
		t.Fatalf("the journal holds %d entries", n)
	}
	ev, end := res.Journal[n-2], res.Journal[n-1]
	if ev.Kind != server.EntryStreamEvent || ev.State != wire.StateCompleted || end.Kind != server.EntryStreamClose ||
		end.Detail != "complete: completed" || ev.Request != end.Request {
		t.Errorf("the journal ends with\n%s\nwant the completed event written to the stream, then the stream's end", lines(timeless(res.Journal[n-2:])))
	}
	for _, c := range res.Checks {
		if !c.Pass && c.ID != "discovers-via-card" {
			t.Errorf("%s failed: %s", c.ID, c.Reason)
		}
	}
}

// TestStreamClosedByExitIsOpen: a client that exits with a stream open
// closes its connection by exiting, and the mock may notice (its handler
// ending the stream, client gone) before the runner learns of the exit or
// after. The stream's record is open either way, with the event written
// by then: before, most runs recorded it as an answer that reached the
// client whole (not open, not faulted, nothing delivered), so a task whose
// id the stream had not yet named would have counted as one the client
// knew.
func TestStreamClosedByExitIsOpen(t *testing.T) {
	t.Parallel()
	var ws []WireRecord
	res := runOneWith(t, Options{Client: fakeCommand("stream-exit"), Scenarios: []string{"never-terminal"}, Startup: 5 * time.Second,
		hooks: &runHooks{wire: func(w []WireRecord) { ws = w }}})
	if res.Error != "" {
		t.Fatalf("runner error: %s", res.Error)
	}
	if len(ws) != 1 || ws[0].RPCMethod != "SendStreamingMessage" || !ws[0].Open || ws[0].Status != http.StatusOK ||
		!strings.Contains(string(ws[0].Delivered), "TASK_STATE_SUBMITTED") {
		t.Errorf("want the stream, left open by the exit, with its first event; got\n%s", lines(wireless(ws)))
	}
}

// TestStreamClosedByExitOneVerdict: the client exits with a stream open
// on a task still submitted (the mock's clock held); the mock journals the stream's close (client
// gone) before the runner's cut or after, as it happens to notice.
// recovers-after-stream-loss gives one reason and one evidence either way:
// the client left the stream open, citing the request alone. Before, most
// runs said the stream "ended (client gone)" and cited its close too.
func TestStreamClosedByExitOneVerdict(t *testing.T) {
	t.Parallel()
	// The mock's timers wait for a clock nobody moves: the task stays
	// submitted however slowly the client exits.
	clock := heldClock{timeline.NewFakeClock(time.Now())}
	res := runOneWith(t, Options{Client: fakeCommand("stream-exit"), Scenarios: []string{"honest-v10-jsonrpc"}, Startup: 5 * time.Second,
		hooks: &runHooks{clock: clock}})
	for _, c := range res.Checks {
		if c.ID != "recovers-after-stream-loss" {
			continue
		}
		if c.Pass || !strings.Contains(c.Reason, "the client left the stream of task") || !strings.Contains(c.Reason, "while the task was submitted") ||
			len(c.Evidence.Journal) != 1 || c.Evidence.Journal[0].Kind != server.EntryRequest {
			t.Errorf("recovers-after-stream-loss: %v %q, evidence %v", c.Pass, c.Reason, timeless(c.Evidence.Journal))
		}
		return
	}
	t.Error("no recovers-after-stream-loss verdict")
}

// openRawStream sends a v1.0 SendStreamingMessage whose message has id
// messageID to the agent at A2A_AGENT_URL and returns its answer's reader;
// on an error it reports it as the client's outcome and returns false.
func openRawStream(messageID string) (*bufio.Reader, bool) {
	base := strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/")
	msg := map[string]any{"messageId": messageID, "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": os.Getenv("A2AMOCK_PROMPT")}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": map[string]any{"message": msg}})
	req, _ := http.NewRequest(http.MethodPost, base+"/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Printf(`{"outcome":"error","detail":%q}`+"\n", err.Error())
		return nil, false
	}
	return bufio.NewReader(resp.Body), true
}

// streamFinalClient opens a stream (SendStreamingMessage) and reads it
// until the event that ends it (a terminal state), then reports and exits
// at once, without reading on to the end of the HTTP answer: the window
// between the last event reaching the client and the mock's handler
// returning.
func streamFinalClient() int {
	br, ok := openRawStream("final-1")
	if !ok {
		return 0
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			fmt.Printf(`{"outcome":"error","detail":%q}`+"\n", "the stream ended before its last event: "+err.Error())
			return 0
		}
		if id, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(id, "TASK_STATE_COMPLETED") {
			var ev struct {
				Result struct {
					StatusUpdate struct {
						TaskID string `json:"taskId"`
					} `json:"statusUpdate"`
				} `json:"result"`
			}
			_ = json.Unmarshal([]byte(id), &ev)
			fmt.Printf(`{"outcome":"completed","taskId":%q}`+"\n", ev.Result.StatusUpdate.TaskID)
			return 0
		}
	}
}

// streamExitClient opens a stream (SendStreamingMessage), reads its first
// event and exits, reporting an error, with the stream open: its exit
// closes the connection.
func streamExitClient() int {
	br, ok := openRawStream("exit-1")
	if !ok {
		return 0
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil || strings.TrimRight(line, "\r\n") == "" {
			break
		}
	}
	fmt.Println(`{"outcome":"error","detail":"left the stream open"}`)
	return 0
}
