package testkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
)

// StartReplay serves the recording at path (written by a2amock record) on
// 127.0.0.1 as a2amock replay does, over HTTP and gRPC, and registers its
// Close with t.Cleanup. It fails the test when the recording cannot be
// read (the error says file:line:col) or served. opts as in replay.New;
// its zero value replays with no waiting (Speed 0).
//
// The Mock reads as a mock's: its Journal and every assertion, Client,
// SetBehavior (the replay stays the agent's first behavior), Reset
// (rewinds the recording). It has one agent, at the root.
func StartReplay(t testing.TB, path string, opts replay.Options) *Mock {
	t.Helper()
	m, err := NewReplay(path, opts)
	if err != nil {
		t.Fatalf("testkit.StartReplay: %v", err)
		return nil
	}
	m.t = t
	t.Cleanup(m.Close)
	return m
}

// NewReplay starts a replay like StartReplay, for code that has no
// testing.TB; the caller must Close it.
func NewReplay(path string, opts replay.Options) (*Mock, error) {
	rec, err := record.LoadFile(path)
	if err != nil {
		return nil, err
	}
	rp, err := replay.New(rec, opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		rp.Close()
		return nil, err
	}
	hs := httpserve.New(rp, httpserve.Timeouts{}, nil, nil)
	rp.Server().ServeGRPCWith(hs.Server)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	tr := &http.Transport{Proxy: nil}
	m := &Mock{URL: "http://" + ln.Addr().String(), srv: rp.Server(), client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
	m.stop = func() error {
		// The replay ends its held streams first, so the shutdown has
		// nothing to wait for but requests in flight.
		rp.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := hs.Shutdown(ctx)
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return err
	}
	m.set = func(agentName string, specs []string) error {
		if agentName != "" && agentName != replay.AgentName {
			return fmt.Errorf("a replay has one agent, %q, not %q", replay.AgentName, agentName)
		}
		return rp.SetBehaviors(specs...)
	}
	return m, nil
}
