package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2amock/a2amock/ui"
)

// TestConformHTML: --html writes the run as the report page, whatever the
// verdict (here a client that does nothing fails its checks).
func TestConformHTML(t *testing.T) {
	out := filepath.Join(t.TempDir(), "conform.html")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"conform", "--quiet", "--client", "true", "--scenario", "three-workers", "--html", out}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (checks fail): %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"mode":"report"`, ui.ConformSchema, `"three-workers"`, "<!doctype html>"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the page lacks %s", want)
		}
	}
}
