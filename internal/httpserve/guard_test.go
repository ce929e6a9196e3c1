package httpserve

import (
	"net/http"
	"net/http/httptest"
	"strings"
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

// A loopback connection that a proxy made for another client is not a
// loopback client; a header naming loopback changes nothing.
func TestLoopbackRemoteBehindAProxy(t *testing.T) {
	for _, tc := range []struct {
		header, value string
		wantClient    string
	}{
		{"X-Forwarded-For", "203.0.113.7", "203.0.113.7"},
		{"X-Forwarded-For", "127.0.0.1, 203.0.113.7", "203.0.113.7"},
		{"X-Forwarded-For", "127.0.0.1", ""},
		{"X-Forwarded-For", "::1", ""},
		{"X-Forwarded-For", "[::1]:5000, 127.0.0.2:80", ""},
		{"X-Forwarded-For", "10.0.0.1:5000", "10.0.0.1:5000"},
		{"X-Forwarded-For", "", ""},
		{"X-Real-IP", "198.51.100.9", "198.51.100.9"},
		{"True-Client-IP", "2001:db8::1", "2001:db8::1"},
		{"CF-Connecting-IP", "198.51.100.9", "198.51.100.9"},
		{"Forwarded", `for=192.0.2.60;proto=http;by=203.0.113.43`, "192.0.2.60"},
		{"Forwarded", `For="[2001:db8:cafe::17]:4711"`, "[2001:db8:cafe::17]:4711"},
		{"Forwarded", `for=127.0.0.1, for=198.51.100.17`, "198.51.100.17"},
		{"Forwarded", `for="[::1]:4711";proto=https`, ""},
		{"Forwarded", `for=unknown`, "unknown"},
		{"Forwarded", `for=_hidden`, "_hidden"},
		{"Forwarded", `for=""`, "unknown"},
		{"Forwarded", `proto=https;host=example.com`, ""},
		{"X-Forwarded-Host", "example.com", ""}, // not a client
	} {
		r := httptest.NewRequest("GET", "http://127.0.0.1/_a2amock/journal", nil)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set(tc.header, tc.value)
		header, client := ForwardedClient(r)
		if client != tc.wantClient {
			t.Errorf("%s: %s: ForwardedClient = %q, want %q", tc.header, tc.value, client, tc.wantClient)
		}
		if client != "" && header != http.CanonicalHeaderKey(tc.header) {
			t.Errorf("%s: %s: ForwardedClient names header %q", tc.header, tc.value, header)
		}
		if want := tc.wantClient == ""; LoopbackRemote(r) != want {
			t.Errorf("%s: %s: LoopbackRemote = %v, want %v", tc.header, tc.value, !want, want)
		}
		if client != "" {
			if msg := LoopbackOnlyMessage(r); !strings.Contains(msg, client) || !strings.Contains(msg, http.CanonicalHeaderKey(tc.header)) {
				t.Errorf("%s: %s: the refusal %q names neither the client nor the header", tc.header, tc.value, msg)
			}
		}
	}
	// Every line of a repeated header counts.
	r := httptest.NewRequest("GET", "http://127.0.0.1/_a2amock/journal", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Add("X-Forwarded-For", "127.0.0.1")
	r.Header.Add("X-Forwarded-For", "203.0.113.8")
	if LoopbackRemote(r) {
		t.Error("a second X-Forwarded-For line naming 203.0.113.8 was not seen")
	}
}
