package server

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// Before the fix Close sat for the 5s http.Server.Shutdown gives a
// connection that never sent a request, and returned its deadline error.
func TestCloseDoesNotWaitForIdleNewConnections(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	addr := s.listener.Addr().String()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The server accepts connections in the order they were dialed, and
	// tracks each before serving it: once a later connection is answered,
	// the silent one is held by the server (a sleep only made that likely).
	answered(t, addr)
	if err := s.Close(); err != nil {
		t.Fatalf("Close with a dialed but silent connection open: %v (Shutdown waited for it until its deadline)", err)
	}
}

// answered sends one request on a new connection to addr and waits for the
// status line of its answer (failing after 10s instead of hanging).
func answered(t *testing.T, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 ") {
		t.Fatalf("no answer on a second connection: %q, %v", line, err)
	}
}
