package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
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
