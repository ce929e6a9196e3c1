package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
)

// wrkOutput is what wrk 4.1 prints with --latency.
const wrkOutput = `Running 5s test @ http://127.0.0.1:1/
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.10ms    1.93ms  40.36ms   89.41%
    Req/Sec     8.44k     1.16k   10.86k    69.00%
  Latency Distribution
     50%    1.58ms
     75%    2.34ms
     90%    3.74ms
     99%   10.65ms
  83987 requests in 5.00s, 64.06MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  16789.11
Transfer/sec:     12.80MB
`

func TestParseWrk(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "wrk")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\ncat <<'EOF'\n"+wrkOutput+"EOF\n"), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	m, err := runWrk("http://127.0.0.1:1/", "x.lua", 2, 32, time.Second)
	require.NoError(t, err)
	assert.InDelta(t, 16789.11, m.rps, 0.01)
	assert.Equal(t, 10650*time.Microsecond, m.p99)
	assert.Equal(t, 3, m.errs)
	assert.Equal(t, 83987, m.requests)

	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho nothing useful\n"), 0o755))
	_, err = runWrk("http://127.0.0.1:1/", "x.lua", 2, 32, time.Second)
	assert.ErrorContains(t, err, "not understood")
}

// TestWrkScript checks the generated Lua gives every request a messageId
// of its own: by its text, and by running it in wrk against a recording
// server when wrk is installed (make perf needs it; CI need not have it).
func TestWrkScript(t *testing.T) {
	for _, b := range httpBindings {
		s := wrkScript(b)
		assert.Contains(t, s, `"m-" .. tid .. "-" .. n`)
		assert.Contains(t, s, `"`+b.path+`"`)
	}
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Log("wrk is not installed: the script's text was checked only")
		return
	}
	for _, b := range httpBindings {
		var mu sync.Mutex
		ids := map[string]int{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Params  sendParams `json:"params"`
				Message struct {
					MessageID string `json:"messageId"`
				} `json:"message"`
			}
			if r.URL.Path != b.path || json.NewDecoder(r.Body).Decode(&body) != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			mu.Lock()
			ids[body.Params.Message.MessageID+body.Message.MessageID]++
			mu.Unlock()
		}))
		script := filepath.Join(t.TempDir(), "s.lua")
		require.NoError(t, os.WriteFile(script, []byte(wrkScript(b)), 0o644))
		out, err := exec.Command(wrk, "-t2", "-c2", "-d1s", "-s", script, srv.URL).CombinedOutput()
		srv.Close()
		require.NoError(t, err, "%s", out)
		assert.NotContains(t, string(out), "Non-2xx", b.name)
		mu.Lock()
		assert.Greater(t, len(ids), 10, b.name)
		for id, n := range ids {
			assert.Equal(t, 1, n, "%s: messageId %q sent %d times", b.name, id, n)
			assert.True(t, strings.HasPrefix(id, "m-"), id)
		}
		mu.Unlock()
	}
}

// sendParams is the params of a JSON-RPC send.
type sendParams struct {
	Message struct {
		MessageID string `json:"messageId"`
	} `json:"message"`
}

func TestMedian(t *testing.T) {
	m, ok := median([]measure{{rps: 3, p99: 30, cpuReq: 3, errs: 1}, {rps: 1, p99: 10, cpuReq: 1}, {rps: 2, p99: 20, cpuReq: 2}})
	require.True(t, ok)
	assert.Equal(t, measure{rps: 2, p99: 20, cpuReq: 2, errs: 1}, m)
	_, ok = median(nil)
	assert.False(t, ok)
}

// TestGRPCLoad drives a mock's gRPC binding briefly: every call answers a
// completed task.
func TestGRPCLoad(t *testing.T) {
	s, err := server.New(server.Config{GRPC: true, StepDelay: -1})
	require.NoError(t, err)
	require.NoError(t, s.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = s.Close() })
	r, err := grpcLoad(strings.TrimPrefix(s.URL(), "http://"), 2, 4, 300*time.Millisecond)
	require.NoError(t, err)
	assert.Positive(t, r.Requests)
	assert.Zero(t, r.Errors)
	assert.LessOrEqual(t, r.P50, r.P99)
}

// TestReadStream checks the streams client's judgement: an honest stream
// passes, one that never sends its terminal event does not.
func TestReadStream(t *testing.T) {
	honest, err := server.New(server.Config{StepDelay: 5 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, honest.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = honest.Close() })
	firsts := 0
	require.NoError(t, readStream(http.DefaultClient, honest.URL(), 1, func() { firsts++ }))
	assert.Equal(t, 1, firsts)

	b, err := behaviors.Parse("stream-no-final")
	require.NoError(t, err)
	faulty, err := server.New(server.Config{StepDelay: 5 * time.Millisecond, Agents: []server.AgentConfig{{Name: "agent", Behaviors: []behaviors.Behavior{b}}}})
	require.NoError(t, err)
	require.NoError(t, faulty.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = faulty.Close() })
	err = readStream(http.DefaultClient, faulty.URL(), 2, func() {})
	assert.ErrorContains(t, err, "carried")
}

// TestRotateRunsEveryServerInEverySlot: over len(ts) rounds each server
// runs once in each position, and every round runs them all.
func TestRotateRunsEveryServerInEverySlot(t *testing.T) {
	ts := []string{"mock", "before", "bare", "sdk"}
	seen := map[string]map[int]bool{}
	for round := 1; round <= len(ts); round++ {
		got := rotate(ts, round)
		assert.ElementsMatch(t, ts, got, "round %d", round)
		for i, name := range got {
			if seen[name] == nil {
				seen[name] = map[int]bool{}
			}
			seen[name][i] = true
		}
	}
	for _, name := range ts {
		assert.Len(t, seen[name], len(ts), "%s ran in every position", name)
	}
	assert.Equal(t, []string{"mock", "before", "bare", "sdk"}, ts, "the list itself is left as it was")
}
