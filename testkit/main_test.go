package testkit_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every mock, client and webhook a test starts must be gone when it ends.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
