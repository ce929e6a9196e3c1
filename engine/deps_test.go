package engine_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoHTTPStack keeps the engine transport-free: neither it nor anything it
// imports may pull in net/http (the bindings in package server do the HTTP;
// a dependency creeping in through wire or the behaviors' catalogue once
// did).
func TestNoHTTPStack(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{"net/http", "google.golang.org/grpc"} {
		if slices.Contains(deps, banned) {
			t.Errorf("the engine depends on %s (go list -deps ./engine); find the import with go list -f '{{.ImportPath}} {{.Imports}}'", banned)
		}
	}
}
