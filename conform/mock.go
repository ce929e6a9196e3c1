package conform

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/conform/internal/wirerec"
	"github.com/a2amock/a2amock/server"
)

// WireRecord is one HTTP exchange the client had with the mock, as the
// checks judge it (judge.WireRecord).
type WireRecord = judge.WireRecord

// mock is one scenario's server, served behind the wire recorder on its own
// listener.
type mock struct {
	srv    *server.Server
	hs     *http.Server
	url    string
	cancel context.CancelFunc
	served chan struct{}

	// changer makes the scenario's card change, if it has one.
	changer *cardChanger
	// ready is closed at the first request; firstAt is when.
	ready     chan struct{}
	readyOnce sync.Once
	firstAt   time.Time

	handlers sync.WaitGroup
	mu       sync.Mutex
	// wire holds the records of the exchanges; the runner marks the
	// client's exit on it (Exit), where the records end.
	wire *wirerec.Log
}

// maxWireRecords bounds the exchanges kept per scenario (a client that
// floods the mock is judged on the first ones; Seq keeps counting).
const maxWireRecords = 50_000

func startMock(cfg server.Config, change *CardChange, listen func(network, address string) (net.Listener, error)) (*mock, error) {
	srv, err := server.New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &mock{srv: srv, url: "http://" + ln.Addr().String(), cancel: cancel, served: make(chan struct{}), ready: make(chan struct{}),
		wire: wirerec.NewLog(maxWireRecords)}
	if change != nil {
		m.changer = &cardChanger{change: change, srv: srv}
	}
	m.hs = &http.Server{
		Handler:           http.HandlerFunc(m.record),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	srv.ServeGRPCWith(m.hs)
	go func() {
		defer close(m.served)
		_ = m.hs.Serve(ln)
	}()
	return m, nil
}

// agentURL is the base URL of the named agent.
func (m *mock) agentURL(name string) string { return m.url + m.srv.AgentPath(name) }

// close stops the server: open streams end, players stop, every
// connection is closed, and it returns when every handler has returned (or
// after 5s, reported as an error: a handler that outlives its server is a
// bug of a2amock, not of the client).
func (m *mock) close() error {
	m.cancel()
	err := m.srv.Close()
	_ = m.hs.Close()
	<-m.served
	done := make(chan struct{})
	go func() { m.handlers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		err = errors.Join(err, errors.New("conform: a mock handler did not return within 5s of shutdown"))
	}
	return err
}

// firstRequest returns when the first request arrived (zero before).
func (m *mock) firstRequest() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.firstAt
}

func (m *mock) record(w http.ResponseWriter, r *http.Request) {
	m.handlers.Add(1)
	defer m.handlers.Done()
	m.readyOnce.Do(func() {
		m.mu.Lock()
		m.firstAt = time.Now()
		m.mu.Unlock()
		close(m.ready)
	})
	// The server names the agent (AgentOf) as it routes the request, and
	// a gRPC call's agent, method and tenant (GRPCCall) as its binding
	// reads the call, before it is journaled: the card change counts a
	// message when it arrives.
	rec := wirerec.Begin(r, m.srv)
	m.changer.observe(rec)
	rw := wirerec.NewWriter(w)
	x := m.wire.Start(rec, rw)
	// A handler that resets the call (RST_STREAM over HTTP/2) panics with
	// http.ErrAbortHandler: the exchange is still recorded, as faulted,
	// and the panic goes on to the server. One that returns after the
	// request's context ended returns because the client closed the
	// connection (or reset the call) first: net/http ends the context
	// only then, or when the mock shuts down (after the exit, when no
	// record is made any more), or after the handler returned. The
	// client left that answer unfinished.
	aborted := true
	defer func() {
		if !aborted && r.Context().Err() != nil {
			m.wire.Left(x)
			return
		}
		m.wire.Finish(x, aborted)
	}()
	m.srv.Handler().ServeHTTP(rw, r)
	aborted = false
}
