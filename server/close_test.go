package server

import (
	"net"
	"testing"
	"time"
)

// A bound on a hang, not a speed target: before the fix Close sat for the
// 5s http.Server.Shutdown gives a connection that never sent a request.
func TestCloseDoesNotWaitForIdleNewConnections(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", s.listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(20 * time.Millisecond) // let the server see the connection
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %v with a dialed but silent connection open", d)
	}
}
