package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/internal/redact"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/record/replay"
)

// recordCmd runs `a2amock record`: a recording proxy until ctx ends,
// SIGINT/SIGTERM arrives or, with --exit-on-stdin-close, stdin closes, then
// writes the recording. ready, when not nil,
// receives the proxy's URL once it listens (for tests).
func recordCmd(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	upstream := fs.String("upstream", "", "base URL of the A2A agent to record, e.g. http://127.0.0.1:9999 (required)")
	out := fs.String("out", "", "recording file to write when stopped (Ctrl-C); .yaml or .yml writes YAML, anything else JSON (required)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address of the proxy; point the client at the URL it prints")
	exitOnStdinClose := addExitOnStdinClose(fs)
	keepCred := fs.Bool("keep-credentials", false, "keep credentials in the recording (query-string values, push tokens and credentials, webhook URL queries); by default they are written as REDACTED, so the file can be committed")
	pos, code, ok := parseFlags(fs, "record --upstream URL --out FILE [flags]", args, stdout)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "a2amock record: unexpected arguments %q\n", pos)
		return 2
	}
	if *upstream == "" || *out == "" {
		fmt.Fprintln(stderr, "a2amock record: --upstream and --out are required")
		return 2
	}
	up, err := url.Parse(*upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		shown, _ := redact.URL(*upstream, redact.URLMark)
		fmt.Fprintf(stderr, "a2amock record: --upstream %q: use an http(s) URL such as http://127.0.0.1:9999\n", shown)
		return 2
	}
	// Fail before recording anything when the file cannot be written.
	if err := checkWritable(*out); err != nil {
		fmt.Fprintf(stderr, "a2amock record: --out: %v\n", err)
		return 2
	}
	ctx, release := shutdownContext(ctx, *exitOnStdinClose, os.Stdin, stderr, "record")
	defer release()
	proxy := record.NewProxy(up, record.ProxyOptions{KeepCredentials: *keepCred})
	defer proxy.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock record: listen %s: %v\n", *addr, err)
		return 1
	}
	srv := httpserve.New(proxy, httpserve.Timeouts{}, nil, nil)
	record.ServeH2C(srv.Server) // gRPC clients reach the proxy on its port
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + httpserve.DialAddr(ln.Addr().String())
	// The upstream as the recording names it: credentials in its user
	// information or query would otherwise land in the CI log.
	shown, _ := redact.URL(up.String(), redact.URLMark)
	fmt.Fprintf(stdout, "a2amock: recording %s through %s (card: %s/.well-known/agent-card.json); Ctrl-C writes %s\n", shown, base, base, *out)
	if ready != nil {
		ready <- base
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "a2amock record: serve: %v\n", err)
		return 1
	}
	// A stream still open now (an agent that never ends its stream, often
	// the very incident being recorded) is recorded as it stands, ending
	// "open", as the shutdown cuts it.
	proxy.Stop()
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_ = srv.Shutdown(sctx)
	cancel()
	<-served
	rec := proxy.Recording()
	if err := writeRecording(*out, rec); err != nil {
		fmt.Fprintf(stderr, "a2amock record: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "a2amock: wrote %d exchange(s) to %s\n", len(rec.Exchanges), *out)
	return 0
}

func isYAML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

func checkWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// writeRecording writes through a temporary file so an interrupted write
// never leaves half a recording behind.
func writeRecording(path string, rec *record.Recording) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".a2amock-recording-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if isYAML(path) {
		err = rec.SaveYAML(tmp)
	} else {
		err = rec.Save(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// replayRequested reports whether serve's arguments ask for a replay
// (serve --replay FILE), which replayCmd handles.
func replayRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--replay" || a == "-replay" || strings.HasPrefix(a, "--replay=") || strings.HasPrefix(a, "-replay=") {
			return true
		}
	}
	return false
}

// replayCmd runs `a2amock replay FILE` and `a2amock serve --replay FILE`.
func replayCmd(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("replay", "", "recording written by a2amock record (or give it as the argument)")
	addr := fs.String("addr", defaultAddr, "listen address (or $A2AMOCK_ADDR, which the container image sets to 0.0.0.0:8080); 0.0.0.0:8080 listens on every interface")
	speed := fs.Float64("speed", 1, "divides the recorded delays: 1 is recorded time, 2 twice as fast, 0 no waiting")
	spliceSpec := fs.String("splice", "", "fault injected into every replayed stream at event N (from 0): N:end-stream, N:drop or N:hang")
	token := fs.String("control-token", "", "bearer token that opens the control API (/_a2amock/...) to non-loopback clients (or $A2AMOCK_CONTROL_TOKEN)")
	exitOnStdinClose := addExitOnStdinClose(fs)
	var behaviorSpecs stringList
	fs.Var(&behaviorSpecs, "behavior", "behavior of the catalogue applied to every request the engine replays, e.g. stream-drop-events:rate=0.5 (repeatable)")
	pos, code, ok := parseFlags(fs, "replay FILE [--addr A] [--speed S] [--splice N:fault] [--behavior SPEC]", args, stdout)
	if !ok {
		return code
	}
	// The container image sets its address, and CI its token, in the
	// environment serve reads: a replay run in their place reads the same.
	if err := flagsFromEnv(fs, func(k string) (string, bool) {
		if k != envName("addr") && k != envName("control-token") {
			return "", false
		}
		return os.LookupEnv(k)
	}); err != nil {
		fmt.Fprintf(stderr, "a2amock replay: %v\n", err)
		return 2
	}
	switch {
	case *file == "" && len(pos) == 1:
		*file = pos[0]
	case len(pos) > 0:
		fmt.Fprintf(stderr, "a2amock replay: unexpected arguments %q\n", pos)
		return 2
	case *file == "":
		fmt.Fprintln(stderr, "a2amock replay: which recording? a2amock replay FILE")
		return 2
	}
	if *speed < 0 {
		fmt.Fprintf(stderr, "a2amock replay: --speed %v: use 0 or more\n", *speed)
		return 2
	}
	opts := replay.Options{Speed: *speed, ControlToken: *token}
	if *spliceSpec != "" {
		sp, err := replay.ParseSplice(*spliceSpec)
		if err != nil {
			fmt.Fprintf(stderr, "a2amock replay: --splice: %v\n", err)
			return 2
		}
		opts.Splice = sp
	}
	reg := behaviors.Catalogue()
	for _, spec := range behaviorSpecs {
		b, err := reg.Parse(spec)
		if err != nil {
			fmt.Fprintf(stderr, "a2amock replay: --behavior: %v\n", err)
			return 2
		}
		opts.Behaviors = append(opts.Behaviors, b)
	}
	rec, err := record.LoadFile(*file)
	if err != nil {
		// One problem a line, each at file:line:col.
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintf(stderr, "a2amock replay: %s\n", line)
		}
		return 2
	}
	rp, err := replay.New(rec, opts)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock replay: %v\n", err)
		return 2
	}
	ctx, release := shutdownContext(ctx, *exitOnStdinClose, os.Stdin, stderr, "replay")
	defer release()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock replay: listen %s: %v\n", *addr, err)
		return 1
	}
	srv := httpserve.New(rp, httpserve.Timeouts{}, nil, nil)
	rp.Server().ServeGRPCWith(srv.Server)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + httpserve.DialAddr(ln.Addr().String())
	from, _ := redact.URL(rec.Upstream, redact.URLMark) // kept whole by record --keep-credentials
	fmt.Fprintf(stdout, "a2amock: replaying %s (%d exchange(s) recorded from %s) at %s\n", *file, len(rec.Exchanges), from, base)
	if ready != nil {
		ready <- base
	}
	code = 0
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "a2amock replay: serve: %v\n", err)
		code = 1
	}
	rp.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = srv.Shutdown(sctx)
	cancel()
	return code
}
