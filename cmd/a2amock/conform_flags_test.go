package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestConformRefusesNonPositiveDurations: --timeout 0 used to run with the
// default 3s grace period (Options takes zero for the default), --startup 0
// with 10s and --parallel -1 with the number of CPUs; each is now a usage
// error (exit 2) naming the flag, before any scenario runs.
func TestConformRefusesNonPositiveDurations(t *testing.T) {
	for _, args := range [][]string{{"--timeout", "0"}, {"--timeout", "-1s"}, {"--startup", "0"}, {"--parallel", "-1"}} {
		var stdout, stderr bytes.Buffer
		all := append([]string{"conform", "--quiet", "--client", "true", "--scenario", "honest-v10-jsonrpc"}, args...)
		if code := run(context.Background(), all, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), args[0]+" ") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message naming %s", args, code, stderr.String(), args[0])
		}
		if stdout.Len() > 0 {
			t.Errorf("%q: a scenario ran: %s", args, stdout.String())
		}
	}
}

// TestConformSeedOutOfRange: a seed past 64 bits is refused with the range
// a seed takes, not flag's bare "value out of range".
func TestConformSeedOutOfRange(t *testing.T) {
	var stdout, stderr bytes.Buffer
	all := []string{"conform", "--quiet", "--client", "true", "--scenario", "honest-v10-jsonrpc", "--seed", "99999999999999999999999"}
	if code := run(context.Background(), all, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-seed: out of range: a seed is 0 to 18446744073709551615") {
		t.Errorf("exit %d, stderr %q; want 2 and the range of a seed", code, stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("a scenario ran: %s", stdout.String())
	}
}
