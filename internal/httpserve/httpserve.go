// Package httpserve holds what every HTTP server of a2amock (the mock, the
// gateway's front, record and replay) needs to stay up against slow or idle
// clients and still stop promptly: read and idle timeouts that leave
// long-lived responses (SSE streams, blocking sends) alone, and a shutdown
// that does not wait on a client trickling a request.
package httpserve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// The timeouts New sets.
const (
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds the reading of a whole request, body included.
	// It does not bound the response: net/http lifts the read deadline
	// once the body has been read to its end, so streams and blocking
	// sends may last (every handler here reads the body first).
	ReadTimeout = 30 * time.Second
	// IdleTimeout closes a kept-alive connection that carries no request.
	IdleTimeout = 60 * time.Second
)

// Timeouts overrides the defaults; a zero field keeps the default.
type Timeouts struct {
	ReadHeader, Read, Idle time.Duration
}

// Server is an http.Server with the timeouts set and its connections
// tracked for Shutdown.
type Server struct {
	*http.Server

	mu    sync.Mutex
	conns map[net.Conn]http.ConnState
}

// New returns a server for h with the timeouts set. ctx, when not nil, is
// the base context of every request. errLog, when not nil, receives
// net/http's own error lines (a failed TLS handshake, an accept error,
// HTTP/2 connection errors) as warnings instead of the process's standard
// logger.
func New(h http.Handler, t Timeouts, ctx context.Context, errLog *slog.Logger) *Server {
	s := &Server{conns: map[net.Conn]http.ConnState{}}
	s.Server = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: pick(t.ReadHeader, ReadHeaderTimeout),
		ReadTimeout:       pick(t.Read, ReadTimeout),
		IdleTimeout:       pick(t.Idle, IdleTimeout),
		ConnState:         s.track,
	}
	if ctx != nil {
		s.BaseContext = func(net.Listener) context.Context { return ctx }
	}
	if errLog != nil {
		s.ErrorLog = slog.NewLogLogger(errLog.Handler(), slog.LevelWarn)
	}
	return s
}

func pick(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s *Server) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(s.conns, c)
	default:
		s.conns[c] = st
	}
}

// Interrupt ends what Shutdown would otherwise wait for: connections that
// never carried a request are closed (clients dial ahead; nothing will come
// on them now), and the reads of active ones expire, so a handler reading a
// trickled body returns at once and a header that is still arriving is
// abandoned.
func (s *Server) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c, st := range s.conns {
		switch st {
		case http.StateNew:
			_ = c.Close()
		case http.StateActive:
			_ = c.SetReadDeadline(time.Now())
		}
	}
}

// Shutdown interrupts slow clients, then shuts the server down gracefully
// within ctx, closing it when ctx ends first. A server that was already
// closed is not an error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.Interrupt()
	err := s.Server.Shutdown(ctx)
	if err != nil {
		_ = s.Server.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
