package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformLayeredBaselines: --expected-failures repeats. With
// --update-baseline the last file is written (made when missing) with the
// failures the files before it do not list; a failure listed in two files
// is a usage error (exit 2) at the second file's line and column.
func TestConformLayeredBaselines(t *testing.T) {
	dir := t.TempDir()
	shared, grpcOnly := filepath.Join(dir, "expected.yaml"), filepath.Join(dir, "expected-grpc.yaml")
	conform := func(extra ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		// A client that does nothing: no-crash and truthful-outcome fail.
		args := append([]string{"conform", "--quiet", "--client", "true", "--scenario", "honest-v10-jsonrpc", "--scenario", "skip-working"}, extra...)
		code := run(context.Background(), args, &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	if code, out := conform("--expected-failures", shared, "--update-baseline"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	// Move one scenario's entries to the second layer.
	text, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	head, moved, ok := strings.Cut(string(text), "skip-working:\n")
	if !ok {
		t.Fatalf("no skip-working entry in\n%s", text)
	}
	if err := os.WriteFile(shared, []byte(head), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := conform("--expected-failures", shared); code != 1 || !strings.Contains(out, "2 unexpected") {
		t.Fatalf("one layer: exit %d: %s", code, out)
	}
	if err := os.WriteFile(grpcOnly, []byte("skip-working:\n"+moved), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := conform("--expected-failures", shared, "--expected-failures", grpcOnly); code != 0 || !strings.Contains(out, "4 expected by "+shared+", "+grpcOnly) {
		t.Fatalf("two layers: exit %d: %s", code, out)
	}

	// The second layer rewritten from scratch gets only its own entries.
	if err := os.Remove(grpcOnly); err != nil {
		t.Fatal(err)
	}
	code, out := conform("--expected-failures", shared, "--expected-failures", grpcOnly, "--update-baseline")
	if code != 0 || !strings.Contains(out, "wrote "+grpcOnly+" (4 failures; those the 1 file(s) before it list are left to them)") {
		t.Fatalf("update: exit %d: %s", code, out)
	}
	got, err := os.ReadFile(grpcOnly)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "skip-working:\n  no-crash:") || strings.Contains(string(got), "honest-v10-jsonrpc") {
		t.Errorf("the rewritten layer:\n%s", got)
	}

	// Listed twice.
	if err := os.WriteFile(grpcOnly, []byte("honest-v10-jsonrpc:\n  no-crash: again\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := conform("--expected-failures", shared, "--expected-failures", grpcOnly); code != 2 || !strings.Contains(out, grpcOnly+":2:3: honest-v10-jsonrpc/no-crash is listed in "+shared+" already") {
		t.Errorf("an entry in two layers: exit %d: %s", code, out)
	}
}
