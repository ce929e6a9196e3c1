package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"report"}, &out, &errb); code != 2 {
		t.Fatalf("no file: exit %d, want 2", code)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"entries":[{"seq":1,"kind":"card"`), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run(context.Background(), []string{"report", bad, "-o", filepath.Join(dir, "r.html")}, &out, &errb); code != 1 {
		t.Fatalf("truncated journal: exit %d, want 1", code)
	}
	if want := "a2amock report: " + bad + ":1:35: not JSON: the JSON ends early (truncated?)\n"; errb.String() != want {
		t.Errorf("the error names the file, the place and the problem:\n got  %q\n want %q", errb.String(), want)
	}
	good := filepath.Join(dir, "j.json")
	if err := os.WriteFile(good, []byte(`{"entries":[{"seq":1,"time":"2026-01-01T00:00:00Z","agent":"a","kind":"card"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "r.html")
	if code := run(context.Background(), []string{"report", good, "-o", rep}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(rep)
	if err != nil || !bytes.Contains(b, []byte(`"mode":"report"`)) {
		t.Fatalf("report not written: %v", err)
	}
	out.Reset()
	if code := run(context.Background(), []string{"report", good, "-o", "-"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "<!doctype html>") {
		t.Fatalf("-o -: exit %d, %.40q", code, out.String())
	}
}
