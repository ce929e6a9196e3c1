package behaviors_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: the
// stream and transport faults hold connections open and sleep, and must all
// end when the client leaves or the server closes.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
