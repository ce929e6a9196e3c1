package excerpt

import (
	"strings"
	"testing"
)

func TestOfTrimsAndCuts(t *testing.T) {
	t.Parallel()
	if got := Of([]byte("  short \n")); got != "short" {
		t.Errorf("Of = %q, want %q", got, "short")
	}
	long := strings.Repeat("x", 400)
	if got := Of([]byte(long)); got != long[:300]+"…" {
		t.Errorf("Of of 400 bytes = %d bytes, want 300 and a mark", len(got))
	}
}
