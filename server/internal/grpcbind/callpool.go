package grpcbind

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2amock/a2amock/server/internal/binding"
)

// callPool runs unary gRPC calls on goroutines kept from one call to the
// next. net/http starts a new goroutine for every HTTP/2 stream, with a
// small stack that the request path then grows several times, each growth
// copying the stack and walking every frame (a tenth of a loaded gRPC
// server's CPU); a kept goroutine has grown its stack already. A call finds
// an idle worker or starts one; a worker idle for callPoolIdle, or any
// worker once the server's context ends, exits. Streaming calls stay on
// net/http's goroutine: they would hold a worker for as long as they last.
type callPool struct {
	work chan func()
	// idle is how long a worker waits for a call before it exits
	// (callPoolIdle; tests lengthen it so that a worker cannot leave while
	// they hand it work).
	idle time.Duration
	// started counts the workers ever started.
	started atomic.Int64
}

// callPoolIdle is how long a worker waits for a call before it exits.
const callPoolIdle = 2 * time.Second

func newCallPool() *callPool { return &callPool{work: make(chan func()), idle: callPoolIdle} }

// run calls f on a worker and waits for it to return; a panic in f is
// raised again on the caller's goroutine, where the server's recovery
// handles it. When ctx has ended f runs on the caller's goroutine. wg
// counts the workers, so the server's Close waits for them.
func (p *callPool) run(ctx context.Context, wg *sync.WaitGroup, f func()) {
	if ctx.Err() != nil {
		f()
		return
	}
	done := make(chan struct{})
	var panicked bool
	var pv any
	task := func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				panicked, pv = true, v
			}
		}()
		f()
	}
	select {
	case p.work <- task:
	default:
		wg.Add(1)
		p.started.Add(1)
		go p.worker(ctx, wg, task)
	}
	<-done
	if panicked {
		panic(pv)
	}
}

func (p *callPool) worker(ctx context.Context, wg *sync.WaitGroup, task func()) {
	defer wg.Done()
	task()
	idle := time.NewTimer(p.idle)
	defer idle.Stop()
	for {
		select {
		case task := <-p.work:
			task()
			idle.Reset(p.idle)
		case <-idle.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Binding serves the gRPC calls of one server.
type Binding struct {
	host binding.Host
	// calls runs unary calls on kept goroutines until ctx ends; wg counts
	// them, so that the server's Close waits for them.
	calls *callPool
	ctx   context.Context
	wg    *sync.WaitGroup
}

// New is the gRPC binding over host; its kept goroutines end with ctx
// and are counted in wg.
func New(host binding.Host, ctx context.Context, wg *sync.WaitGroup) *Binding {
	return &Binding{host: host, calls: newCallPool(), ctx: ctx, wg: wg}
}

// Serve answers a gRPC call to agent a at path (below the agent's base):
// a unary call on a kept goroutine, a streaming one on the caller's.
func (b *Binding) Serve(w http.ResponseWriter, r *http.Request, a binding.Agent, base, path string) error {
	switch strings.TrimPrefix(path, grpcService) {
	case "SendStreamingMessage", "SubscribeToTask":
		return b.serve(w, r, a, base, path)
	}
	var err error
	b.calls.run(b.ctx, b.wg, func() { err = b.serve(w, r, a, base, path) })
	return err
}
