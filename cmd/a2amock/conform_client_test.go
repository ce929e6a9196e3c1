package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformClientThatCannotStart: a --client whose program is not found
// or not executable is a usage error (exit 2, one line saying so) before
// any scenario runs, not 33 failed scenarios; a program known only once
// substituted, and one that starts and fails, still run the suite.
func TestConformClientThatCannotStart(t *testing.T) {
	t.Parallel()
	noexec := filepath.Join(t.TempDir(), "client.sh")
	require.NoError(t, os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o600))
	for client, want := range map[string]string{
		"/nonexistent/a2a-client --flag": `cannot start the client: "/nonexistent/a2a-client" not found (is it installed and on PATH?`,
		"no-such-a2a-client {agent_url}": `cannot start the client: "no-such-a2a-client" not found`,
		noexec:                           "permission denied",
		"'unclosed":                      "unterminated single quote",
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"conform", "--quiet", "--client", client, "--scenario", "honest-v10-jsonrpc"}, &stdout, &stderr)
		assert.Equal(t, 2, code, client)
		assert.Empty(t, stdout.String(), client)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%s: %s", client, stderr.String())
		assert.True(t, strings.HasPrefix(stderr.String(), "a2amock conform: --client: "), stderr.String())
		assert.Contains(t, stderr.String(), want, client)
	}

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"conform", "--quiet", "--client", "false", "--scenario", "honest-v10-jsonrpc"}, &stdout, &stderr)
	assert.Equal(t, 1, code, "a client that starts and fails is graded: %s", stderr.String())
	assert.Contains(t, stdout.String(), "0/1 scenarios passed")
}
