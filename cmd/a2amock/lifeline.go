package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// A process that starts a2amock for its tests (the pytest plugin, the Vitest
// helper) stops it when it tears down, and at its own exit. Neither runs
// when that process is killed (SIGKILL, a CI step's timeout, a crashed test
// worker), and the server would then serve on forever. A pipe on stdin is a
// lifeline that needs no cooperation from the parent: the kernel closes its
// write end when the parent dies, however it dies, and the server, reading
// end of file, shuts down as it does on SIGTERM.

// addExitOnStdinClose declares --exit-on-stdin-close on fs.
func addExitOnStdinClose(fs *flag.FlagSet) *bool {
	return fs.Bool("exit-on-stdin-close", false,
		"shut down, as on SIGTERM, when stdin reaches end of file: started with a pipe on stdin, the server ends with the process that started it, even one killed by SIGKILL (the pytest and Vitest helpers pass it); what stdin carries is discarded, and stdin at /dev/null stops it at once")
}

// shutdownContext returns the context a long-running command (serve,
// record, replay) serves under: it ends with ctx, on SIGINT or SIGTERM and,
// when exitOnStdinClose, when stdin reaches end of file or fails (cmd names
// the command in the line written to stderr then). Commands take it before
// they listen, so a signal sent as soon as they print their address shuts
// them down gracefully instead of killing them by its default action. The
// goroutine reading stdin ends with it: on a shutdown for another reason it
// stays blocked in its read until the process exits, which comes next.
func shutdownContext(ctx context.Context, exitOnStdinClose bool, stdin io.Reader, stderr io.Writer, cmd string) (context.Context, context.CancelFunc) {
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(ctx)
	release := func() { cancel(); stopSignals() }
	if !exitOnStdinClose {
		return ctx, release
	}
	go func() {
		_, err := io.Copy(io.Discard, stdin)
		if ctx.Err() == nil {
			why := "end of file"
			if err != nil {
				why = err.Error()
			}
			fmt.Fprintf(stderr, "a2amock %s: stdin closed (%s) and --exit-on-stdin-close is set: shutting down\n", cmd, why)
		}
		cancel()
	}()
	return ctx, release
}
