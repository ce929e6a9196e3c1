package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConformInterruptedLeavesBaseline: a run stopped by a signal (its
// context canceled) exits 1, says so, and does not rewrite the baseline
// with the scenarios it cut short.
func TestConformInterruptedLeavesBaseline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expected.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"conform", "--quiet", "--client", "sleep 30", "--scenario", "honest-v10-jsonrpc",
		"--expected-failures", path, "--update-baseline"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want 1 and a word that the run was interrupted", code, stderr.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		b, _ := os.ReadFile(path)
		t.Errorf("an interrupted run wrote the baseline:\n%s", b)
	}
}
