package main

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlagsFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"A2AMOCK_CONTROL_TOKEN": "s3cret",
		"A2AMOCK_ADDR":          "0.0.0.0:9999",
		"A2AMOCK_BEHAVIOR":      "skip-working; never-terminal:skill=x",
		"A2AMOCK_SEED":          "not-a-number",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "")
	token := fs.String("control-token", "", "")
	seed := fs.Uint64("seed", 0, "")
	var bs stringList
	fs.Var(&bs, "behavior", "")
	require.NoError(t, fs.Parse([]string{"--addr", "127.0.0.1:1234"}))

	err := flagsFromEnv(fs, lookup)
	require.Error(t, err, "a bad value is reported, naming the variable")
	assert.Contains(t, err.Error(), "A2AMOCK_SEED")
	assert.Equal(t, "127.0.0.1:1234", *addr, "the command line wins over the environment")
	assert.Equal(t, "s3cret", *token)
	assert.Equal(t, uint64(0), *seed)
	assert.Equal(t, stringList{"skip-working", "never-terminal:skill=x"}, bs)
}
