// Command sdkserver is a2a-go v2's server for make perf: a2asrv's default
// request handler (in-memory task store) over its JSON-RPC handler (POST /)
// and HTTP+JSON handler (POST /message:send), with an executor that plays
// the honest lifecycle a2amock plays at step delay 0 — submitted task,
// working, one text artifact, completed — so its SendMessage is compared
// with the mock's doing the same work.
//
//	go run ./perf/sdkserver -addr 127.0.0.1:8092
//
// It prints "http://ADDR" on stdout once listening.
package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// honest plays submitted → working → artifact → completed.
type honest struct{}

// Execute emits the honest lifecycle's events.
func (honest) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		if !yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("done")), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel moves the task to canceled.
func (honest) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (JSON-RPC at /, HTTP+JSON at /message:send)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdkserver:", err)
		os.Exit(1)
	}
	h := a2asrv.NewHandler(honest{})
	mux := http.NewServeMux()
	mux.Handle("/{$}", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/", a2asrv.NewRESTHandler(h))
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("http://" + ln.Addr().String())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	_ = srv.Close()
}
