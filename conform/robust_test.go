package conform

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// buildRobust builds the robust reference client once per test binary.
func buildRobust(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "go-robust")
	cmd := exec.Command("go", "build", "-o", bin, "../conformance/clients/go-robust")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build go-robust: %v\n%s", err, out)
	}
	return bin
}

// TestRobustClientPassesEveryCheck is the proof that no check of the
// default suite asks for the impossible: the reference client built on
// testkit/reconcile passes every check of every scenario.
func TestRobustClientPassesEveryCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the reference client over the whole default suite")
	}
	bin := buildRobust(t)
	start := time.Now()
	lt := &listenerLog{}
	rep, err := Run(context.Background(), Options{Client: bin, Grace: 3 * time.Second, hooks: lt.hooks(nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default suite (%d scenarios) in %s", len(rep.Scenarios), time.Since(start))
	for _, res := range rep.Scenarios {
		for _, c := range res.Failed() {
			t.Errorf("%s/%s: %s", res.ID, c.ID, c.Reason)
		}
	}
	if !rep.Summary.OK {
		t.Error("summary is not OK")
	}
	lt.assertClosed(t, rep)
}
