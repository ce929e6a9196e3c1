package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// jsProbeResult is what js/probe.mjs prints: what @a2a-js/sdk observed in
// one call.
type jsProbeResult struct {
	Card *struct {
		Streaming bool `json:"streaming"`
	} `json:"card"`
	Result *struct {
		ID    string `json:"id"`
		State string `json:"state"`
	} `json:"result"`
	Events []jsEvent  `json:"events"`
	Ended  bool       `json:"ended"`
	Pages  [][]string `json:"pages"`
	Error  *jsError   `json:"error"`
	Raw    string     `json:"-"`
}

// eventKinds renders the probe's events as "kind:STATE" strings.
func (r jsProbeResult) eventKinds() []string {
	var out []string
	for _, e := range r.Events {
		k := e.Kind
		if e.State != "" {
			k += ":" + e.State
		}
		out = append(out, k)
	}
	return out
}

// jsProbe runs one @a2a-js/sdk call (see js/probe.mjs) against the agent at
// base over transport ("JSONRPC" or "HTTP+JSON").
func jsProbe(t *testing.T, base, transport, action string, args ...string) jsProbeResult {
	t.Helper()
	return jsProbeEnv(t, nil, base, transport, action, args...)
}

// jsProbeEnv is jsProbe with extra environment variables for probe.mjs
// (PROBE_TIMEOUT_MS bounds the call, 5000 by default).
func jsProbeEnv(t *testing.T, env []string, base, transport, action string, args ...string) jsProbeResult {
	t.Helper()
	requireJSInstalled(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join("js", "probe.mjs"), base, transport, action}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "node js/probe.mjs failed:\n%s", stderr.String())
	var r jsProbeResult
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), "probe.mjs printed:\n%s", stdout.String())
	r.Raw = stdout.String()
	return r
}

// jsTransports are the two v1.0 transports of the JS SDK.
var jsTransports = []string{"JSONRPC", "HTTP+JSON"}
