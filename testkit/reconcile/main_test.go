package reconcile

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a driver leaves a stream reader behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
