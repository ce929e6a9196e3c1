package httpserve

import (
	"net/http/httptest"
	"testing"
)

// The remote address decides, never a header the client wrote.
func TestLoopbackRemote(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:5000":    true,
		"127.8.9.10:1":      true,
		"[::1]:443":         true,
		"::1":               true,
		"198.51.100.9:5000": false,
		"[2001:db8::1]:80":  false,
		"localhost:80":      false, // a name is not an address
		"":                  false,
	} {
		r := httptest.NewRequest("GET", "http://127.0.0.1/_a2amock/journal", nil)
		r.RemoteAddr = addr
		r.Header.Set("X-Forwarded-For", "127.0.0.1")
		if got := LoopbackRemote(r); got != want {
			t.Errorf("LoopbackRemote(RemoteAddr %q) = %v, want %v", addr, got, want)
		}
	}
}
