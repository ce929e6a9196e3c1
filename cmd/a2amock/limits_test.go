package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
)

// TestLimitFlagsFromEnv: the store and body bounds were settable from Go
// only; they are flags now, and so A2AMOCK_* variables too.
func TestLimitFlagsFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"A2AMOCK_MAX_RUNNING_TASKS": "7", "A2AMOCK_TASK_RETENTION_BYTES": "1000", "A2AMOCK_MAX_BODY_BYTES": "2048"}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	l := addLimitFlags(fs)
	require.NoError(t, fs.Parse([]string{"--task-retention", "5", "--max-body-bytes", "4096"}))
	require.NoError(t, flagsFromEnv(fs, func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	cfg := server.Config{MaxRunningTasks: 99, TaskRetention: 99}
	require.NoError(t, l.apply(&cfg, explicit))
	assert.Equal(t, 7, cfg.MaxRunningTasks)
	assert.Equal(t, int64(1000), cfg.TaskRetentionBytes)
	assert.Equal(t, 5, cfg.TaskRetention)
	assert.Equal(t, int64(4096), cfg.MaxBodyBytes, "the command line wins over the environment")

	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	l = addLimitFlags(fs)
	require.NoError(t, fs.Parse([]string{"--max-running-tasks", "0"}))
	err := l.apply(&server.Config{}, map[string]bool{"max-running-tasks": true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--max-running-tasks 0")
}

// TestServeLimitsFromScenarioAndFlags: a scenario's server.limits reach the
// server, and a flag overrides them.
func TestServeLimitsFromScenarioAndFlags(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "limits.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`server:
  stepDelay: 0s
  limits: {maxRunningTasks: 2, maxBodyBytes: 100000}
agents:
  - name: agent
    behaviors: [never-terminal]
`), 0o600))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	send := func(base string, n int) {
		for i := range n {
			body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m` + string(rune('a'+i)) +
				`","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":true}}}`
			req, _ := http.NewRequest(http.MethodPost, base+"/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			resp, err := c.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	dropped := func(base string) int {
		resp, err := c.Get(base + "/_a2amock/journal")
		require.NoError(t, err)
		defer resp.Body.Close()
		var j struct{ Entries []server.Entry }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&j))
		n := 0
		for _, e := range j.Entries {
			if e.Kind == server.EntryDropped {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--scenario", file}, 3},                             // 5 tasks, cap 2 from the file
		{[]string{"--scenario", file, "--max-running-tasks", "4"}, 1}, // the flag wins
	} {
		var stderr bytes.Buffer
		base, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
			return serve(ctx, append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, tc.args...), io.Discard, &stderr, ready)
		})
		send(base, 5)
		assert.Equal(t, tc.want, dropped(base), "%v", tc.args)
		big, _ := http.NewRequest(http.MethodPost, base+"/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+strings.Repeat("x", 200_000)+`"}}`))
		big.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(big)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Contains(t, string(b), "100000", "maxBodyBytes from the file bounds the body")
		tr.CloseIdleConnections()
		require.Equal(t, 0, stop(), stderr.String())
	}
}
