package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every subcommand answers -h and --help with its usage on stdout and exit
// status 0, and does nothing else (validate opens no file named --help,
// behaviors prints no catalogue).
func TestHelpExitsZeroEverywhere(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"serve", "healthcheck", "record", "replay", "validate", "behaviors", "conform"} {
		for _, h := range []string{"-h", "--help"} {
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{cmd, h}, &out, &errb)
			assert.Equal(t, 0, code, "%s %s: %s", cmd, h, errb.String())
			assert.True(t, strings.HasPrefix(out.String(), "Usage: a2amock "+cmd), "%s %s: %q", cmd, h, out.String())
			assert.Empty(t, errb.String(), "%s %s", cmd, h)
		}
	}
	var out bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"--help"}, &out, io.Discard))
	assert.Contains(t, out.String(), "a2amock version")
}

// serve -h lists every flag serve reads, the replay ones included.
func TestServeHelpListsEveryFlag(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.Equal(t, 0, serve(context.Background(), []string{"-h"}, &out, io.Discard, nil))
	for _, f := range []string{"addr", "seed", "agents", "dialect", "step-delay", "behavior", "control-token", "push",
		"scenario", "gateway", "replay", "speed", "splice"} {
		assert.Regexp(t, `(?m)^  -`+f+`\b`, out.String(), f)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"version", "--version"} {
		var out bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{arg}, &out, io.Discard))
		assert.True(t, strings.HasPrefix(out.String(), "a2amock "), out.String())
		assert.Contains(t, out.String(), "go1.", "the toolchain from the build info")
	}
}

func TestParseFlagsInterleaved(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	speed := fs.Float64("speed", 1, "")
	pos, code, ok := parseFlags(fs, "x", []string{"a.json", "--speed", "2", "b", "--", "--speed", "3"}, io.Discard)
	require.True(t, ok)
	assert.Zero(t, code)
	assert.Equal(t, 2.0, *speed)
	assert.Equal(t, []string{"a.json", "b", "--speed", "3"}, pos, "after -- everything is an argument")
	_, code, ok = parseFlags(fs, "x", []string{"--nope"}, io.Discard)
	assert.False(t, ok)
	assert.Equal(t, 2, code)
}

// Serve's configuration errors name where the bad value came from.
func TestServeConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"A2AMOCK_PUSH": "yes"}, nil, "A2AMOCK_PUSH=yes: not a boolean"},
		{map[string]string{"A2AMOCK_STEP_DELAY": "soon"}, nil, "A2AMOCK_STEP_DELAY=soon: not a duration"},
		{map[string]string{"A2AMOCK_SEED": "x"}, nil, "A2AMOCK_SEED=x: not a whole number"},
		{map[string]string{"A2AMOCK_SEED": "99999999999999999999999"}, nil, "A2AMOCK_SEED=99999999999999999999999: out of range: a seed is 0 to 18446744073709551615"},
		{nil, []string{"--seed", "99999999999999999999999"}, `invalid value "99999999999999999999999" for flag -seed: out of range: a seed is 0 to 18446744073709551615`},
		{nil, []string{"--seed", "-1"}, "-seed: out of range: a seed is 0 to 18446744073709551615"},
		{nil, []string{"--behavior", "skip-working:agent=gamma"}, `no agent named "gamma" is served (agents: agent)`},
		{map[string]string{"A2AMOCK_BEHAVIOR": "never-terminal:agent=gamma"}, []string{"--agents", "alpha,beta"}, `"never-terminal:agent=gamma": no agent named "gamma" is served (agents: alpha, beta)`},
		{nil, []string{"--behavior", "never-termnal"}, `did you mean "never-terminal"?`},
		{nil, []string{"--speed", "2"}, "--speed (or A2AMOCK_SPEED) needs --replay FILE"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var errb bytes.Buffer
			assert.Equal(t, 2, serve(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, tc.args...), io.Discard, &errb, nil))
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}

// Unknown A2AMOCK_* variables are warned about, once each, with the likely
// intended one; variables other parts read are not.
func TestUnknownEnvWarned(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Bool("push", false, "")
	fs.String("control-token", "", "")
	got := unknownEnv(fs, []string{"A2AMOCK_PSUH=1", "A2AMOCK_PUSH=1", "A2AMOCK_URL=x", "HOME=/", "A2AMOCK_BOGUS=2"}, otherEnv...)
	assert.Equal(t, []string{"A2AMOCK_BOGUS", "A2AMOCK_PSUH"}, got)
	assert.Equal(t, "A2AMOCK_PUSH", closest("A2AMOCK_PSUH", []string{"A2AMOCK_PUSH", "A2AMOCK_CONTROL_TOKEN"}))
	assert.Empty(t, closest("A2AMOCK_BOGUS", []string{"A2AMOCK_PUSH", "A2AMOCK_CONTROL_TOKEN"}))

	t.Setenv("A2AMOCK_PSUH", "true")
	var errb bytes.Buffer
	assert.Equal(t, 2, serve(context.Background(), []string{"--addr", "127.0.0.1:0", "--dialect", "9"}, io.Discard, &errb, nil))
	assert.Equal(t, 1, strings.Count(errb.String(), "unknown environment variable A2AMOCK_PSUH ignored (did you mean A2AMOCK_PUSH?)"), errb.String())
}

// The start-up line is printed once (stdout), not again by the logger.
func TestStartupLineOnce(t *testing.T) {
	t.Parallel()
	var out, errb syncbuf.Buffer
	_, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--addr", "127.0.0.1:0"}, &out, &errb, ready)
	})
	require.Equal(t, 0, stop())
	all := out.String() + errb.String()
	assert.Equal(t, 1, strings.Count(all, "serving"), all)
}
