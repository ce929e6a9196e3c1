package conform

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
)

// TestCutAnswerDelivered: an answer a transport fault cuts is recorded as
// faulted, with Delivered the body bytes the client got. Over HTTP/1.1 the
// fault takes the connection over after writing the start of the body
// through the response writer, so Delivered is exactly what a client
// reading the socket to its end receives (after the chunk framing of a
// stream), for a clean close and for a reset. Over HTTP/2 (a gRPC call)
// there is no connection to take: the call ends where it was cut, without
// trailers, and the record used to say the answer reached the client whole
// (not faulted, nothing delivered), so no-orphans took a task whose id
// came only in the cut message for one the client knew.
func TestCutAnswerDelivered(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		behavior, method string
		want             int
	}{
		{"truncated-body:bytes=10", "SendMessage", 10},
		{"connection-reset:after=10", "SendMessage", 10},
		{"connection-reset:after=0", "SendMessage", 0},
		{"truncated-body:bytes=300", "SendStreamingMessage", 300},
		{"connection-reset:after=300", "SendStreamingMessage", 300},
	} {
		t.Run(c.behavior+"/"+c.method, func(t *testing.T) {
			t.Parallel()
			b, err := behaviors.Parse(c.behavior)
			if err != nil {
				t.Fatal(err)
			}
			m, err := startMock(server.Config{Seed: 1, Agents: []server.AgentConfig{{Name: "a", Behaviors: []behaviors.Behavior{b}}}}, nil, net.Listen)
			if err != nil {
				t.Fatal(err)
			}
			got := rawPost(t, m, c.method)
			// The handler may still be returning when the client has
			// seen the cut: close waits for it.
			if err := m.close(); err != nil {
				t.Fatal(err)
			}
			ws := m.wire.Records()
			if len(ws) != 1 {
				t.Fatalf("%d wire records, want 1", len(ws))
			}
			w := ws[0]
			if !w.Faulted || !w.Hijacked || w.Open {
				t.Errorf("the cut answer recorded as faulted %v, hijacked %v, open %v; want true, true, false", w.Faulted, w.Hijacked, w.Open)
			}
			if string(w.Delivered) != string(got) || len(got) != c.want {
				t.Errorf("the client received %d body bytes %q; the record says %q (want %d bytes)", len(got), got, w.Delivered, c.want)
			}
		})
	}
	t.Run("gRPC", func(t *testing.T) {
		t.Parallel()
		var ws []WireRecord
		runOneWith(t, Options{Client: fakeCommand("grpc"), Scenarios: []string{"truncated-body"}, GRPC: true, Startup: 5 * time.Second,
			hooks: &runHooks{wire: func(w []WireRecord) { ws = w }}})
		var call *WireRecord
		for i := range ws {
			if ws[i].GRPC && ws[i].RPCMethod == "SendMessage" {
				call = &ws[i]
			}
		}
		if call == nil {
			t.Fatalf("no SendMessage call among the wire records:\n%s", lines(wireless(ws)))
		}
		_, _, _, whole := a2apb.NextMessage(call.Delivered)
		if !call.Faulted || call.Hijacked || len(call.Delivered) <= 5 || whole {
			t.Errorf("a gRPC answer cut mid-message recorded as faulted %v, hijacked %v, delivered %q (a whole message: %v); want faulted, not hijacked, the start of the message",
				call.Faulted, call.Hijacked, call.Delivered, whole)
		}
	})
}

// rawPost sends a v1.0 JSON-RPC call of method to agent a of m over a
// connection of its own and returns the body bytes it received before the
// connection ended, without the chunk framing of a streamed answer.
func rawPost(t *testing.T, m *mock, method string) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(m.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	fmt.Fprintf(conn, "POST /agents/a/ HTTP/1.1\r\nHost: mock\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	// A reset may come with bytes still unread: what was read by then is
	// what the client got.
	all, _ := io.ReadAll(conn)
	if len(all) == 0 {
		return nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), nil)
	if err != nil {
		t.Fatalf("the answer's head does not read: %v\n%q", err, all)
	}
	_, rest, _ := bytes.Cut(all, []byte("\r\n\r\n"))
	if resp.TransferEncoding == nil {
		return rest
	}
	return unchunk(rest)
}

// unchunk removes the chunk framing of a chunked body, which may end
// inside a chunk.
func unchunk(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte("\r\n"))
		if !ok {
			break
		}
		n, err := strconv.ParseInt(string(line), 16, 64)
		if err != nil || n == 0 {
			break
		}
		k := min(int(n), len(rest))
		out = append(out, rest[:k]...)
		b = bytes.TrimPrefix(rest[k:], []byte("\r\n"))
	}
	return out
}
