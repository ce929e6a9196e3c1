package httpserve

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDialAddr: a wildcard listener's address becomes loopback (a test
// binds only to 127.0.0.1, so the connection itself is not tried here).
func TestDialAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0.0.0.0:8080":    "127.0.0.1:8080",
		"[::]:8080":       "127.0.0.1:8080",
		":8080":           "127.0.0.1:8080",
		"127.0.0.1:8080":  "127.0.0.1:8080",
		"[::1]:8080":      "[::1]:8080",
		"10.1.2.3:80":     "10.1.2.3:80",
		"example.test:80": "example.test:80",
		"not an address":  "not an address",
	} {
		assert.Equal(t, want, DialAddr(in), in)
	}
}
