package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The image's HEALTHCHECK runs "a2amock healthcheck" inside the container;
// in CI the server always has a control token, which /healthz requires even
// from loopback, so the check has to present it.
func TestHealthcheckWithControlToken(t *testing.T) {
	t.Parallel()
	for _, gw := range []bool{false, true} {
		args := []string{"--addr", "127.0.0.1:0", "--log-level", "error", "--control-token", "s3cret"}
		if gw {
			args = append(args, "--gateway")
		}
		var sout, serr bytes.Buffer
		u, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
			return serve(ctx, args, &sout, &serr, ready)
		})
		var out, errb bytes.Buffer
		assert.Equal(t, 1, healthcheck([]string{"--url", u}, &out, &errb), "gateway=%v: no token", gw)
		assert.Contains(t, errb.String(), "401")
		out.Reset()
		errb.Reset()
		assert.Equal(t, 0, healthcheck([]string{"--url", u, "--control-token", "s3cret"}, &out, &errb), "gateway=%v: %s", gw, errb.String())
		assert.Equal(t, "healthy\n", out.String())
		assert.Equal(t, 0, stop(), serr.String())
	}
}

// The image sets A2AMOCK_ADDR for serve, and a user moves the port by
// setting it: the HEALTHCHECK, which has no --url, follows it. (Not
// parallel: it sets the environment.)
func TestHealthcheckFollowsA2AMOCKADDR(t *testing.T) {
	var sout, serr bytes.Buffer
	u, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--addr", "127.0.0.1:0", "--log-level", "error"}, &sout, &serr, ready)
	})
	t.Setenv("A2AMOCK_ADDR", strings.TrimPrefix(u, "http://"))
	var out, errb bytes.Buffer
	assert.Equal(t, 0, healthcheck(nil, &out, &errb), errb.String())
	assert.Equal(t, "healthy\n", out.String())
	assert.Equal(t, 0, stop(), serr.String())

	// Once the server is gone, the same check fails on that address.
	errb.Reset()
	assert.Equal(t, 1, healthcheck(nil, &out, &errb))
	assert.Contains(t, errb.String(), strings.TrimPrefix(u, "http://"))
}

// A replay run in the container's place (docker run IMAGE replay FILE)
// listens where the image's A2AMOCK_ADDR says and takes CI's
// A2AMOCK_CONTROL_TOKEN, as serve does; without them it would listen on
// loopback inside the container, which nothing outside reaches. (Not
// parallel: it sets the environment.)
func TestReplayReadsAddrAndTokenFromTheEnvironment(t *testing.T) {
	up := startUpstream(t)
	out := filepath.Join(t.TempDir(), "rec.json")
	_, stopRec := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return recordCmd(ctx, []string{"--upstream", up.URL(), "--out", out, "--addr", "127.0.0.1:0"}, io.Discard, io.Discard, ready)
	})
	require.Equal(t, 0, stopRec())

	t.Setenv("A2AMOCK_ADDR", "127.0.0.1:0")
	t.Setenv("A2AMOCK_CONTROL_TOKEN", "s3cret")
	var serr bytes.Buffer
	u, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return replayCmd(ctx, []string{out}, io.Discard, &serr, ready)
	})
	assert.NotContains(t, u, ":8080", "the address came from A2AMOCK_ADDR, not the default")
	var o, e bytes.Buffer
	assert.Equal(t, 1, healthcheck([]string{"--url", u, "--control-token", "wrong"}, &o, &e), "the token came from A2AMOCK_CONTROL_TOKEN")
	assert.Contains(t, e.String(), "401")
	assert.Equal(t, 0, healthcheck([]string{"--url", u}, &o, &e), "healthcheck reads the same token: %s", e.String())
	assert.Equal(t, 0, stop(), serr.String())
}
