// Command a2amock serves configurable fake A2A agents.
//
//	a2amock serve [flags]        serve agents (default: one honest agent on 127.0.0.1:8080)
//	a2amock behaviors            print the misbehavior catalogue
//	a2amock healthcheck [--url]  exit 0 when a server answers its health endpoint
//	a2amock validate FILE...     check scenario files, printing every problem with file:line:col
//	a2amock conform --client CMD grade an A2A client against the conformance suite
//
// Flags and subcommands only: everything they do is reachable from Go
// through packages server, behaviors and testkit.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `a2amock: a configurable fake A2A agent for testing A2A clients.

Usage:
  a2amock serve [flags]         serve fake agents (no flags: one honest agent on 127.0.0.1:8080)
  a2amock behaviors             print the misbehavior catalogue
  a2amock healthcheck [--url U] check that a server answers (exit 0) or not (exit 1)
  a2amock validate FILE...      check scenario files: every problem with file:line:col (exit 1), or ok
  a2amock record --upstream URL --out FILE   proxy a real agent and record what passes, with timing
  a2amock replay FILE [--speed S] [--splice N:fault]   serve a recording (also: serve --replay FILE)
  a2amock conform --client 'CMD' [flags]   grade an A2A client against misbehaving agents (docs/conformance.md)
  a2amock report JOURNAL.json -o report.html   the timeline of a saved journal or conform report as one offline HTML file
  a2amock version               print the module version and VCS revision (also --version)

Run "a2amock COMMAND -h" for a command's flags.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		if replayRequested(args[1:]) {
			return replayCmd(ctx, args[1:], stdout, stderr, nil)
		}
		return serve(ctx, args[1:], stdout, stderr, nil)
	case "record":
		return recordCmd(ctx, args[1:], stdout, stderr, nil)
	case "replay":
		return replayCmd(ctx, args[1:], stdout, stderr, nil)
	case "behaviors":
		if isHelp(args[1:]) {
			fmt.Fprint(stdout, "Usage: a2amock behaviors\n\nPrints the misbehavior catalogue: every behavior, what it reproduces and its parameters.\n")
			return 0
		}
		if len(args) > 1 {
			fmt.Fprintf(stderr, "a2amock behaviors: unexpected arguments %q\n", args[1:])
			return 2
		}
		fmt.Fprint(stdout, behaviors.Describe(behaviors.Catalogue()))
		return 0
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, version())
		return 0
	case "healthcheck":
		return healthcheck(args[1:], stdout, stderr)
	case "validate":
		return validate(args[1:], stdout, stderr)
	case "conform":
		return conformCmd(ctx, args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], os.Stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "a2amock: unknown command %q\n\n%s", args[0], usage)
	return 2
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// serve runs the server until ctx ends, SIGINT/SIGTERM arrives or, with
// --exit-on-stdin-close, stdin closes (shutdownContext). ready, when
// not nil, receives the server's URL once it listens (for tests).
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", defaultAddr, "listen address; use 0.0.0.0:8080 to listen on every interface (containers)")
	seed := seedFlag(fs, "seed for ids, generated cards, content and behaviors' random choices")
	agentsFlag := fs.String("agents", "agent", "agents to host: a count (3) or comma-separated names (planner,coder); the first is also served at /")
	dialect := fs.String("dialect", string(wire.Newest()), "card dialect of every agent: "+wire.DialectNames(", ", " or "))
	stepDelay := fs.Duration("step-delay", 20*time.Millisecond, "time between two states of the honest lifecycle (0 for none)")
	var behaviorSpecs stringList
	fs.Var(&behaviorSpecs, "behavior", "misbehavior spec applied to the first agent, e.g. skip-working or never-terminal:skill=x (repeatable; see a2amock behaviors)")
	controlToken := fs.String("control-token", "", "bearer token that opens the control API (/_a2amock/...) to non-loopback clients")
	strict := fs.Bool("strict-version", false, "reject v1.0 methods sent without an A2A-Version header (VersionNotSupportedError)")
	signCards := fs.Bool("sign-cards", false, "sign every Agent Card (JWS over its JCS form, v1.0 §8.4; keys from --seed, JWKS at each agent's /.well-known/jwks.json)")
	grpcFlag := fs.Bool("grpc", false, "also serve the gRPC binding (v1.0's lf.a2a.v1.A2AService and v0.3's a2a.v1.A2AService, h2c) on --addr and declare it as GRPC at host:port in every v1.0 card (below the root with the agent's name as tenant, which routes the calls) and in the v0.3 card of the agent v0.3's tenantless calls reach (the root when its card is v0.3, else the only v0.3 agent)")
	push := fs.Bool("push", false, "declare pushNotifications on every agent's card")
	logLevel := fs.String("log-level", "info", "debug logs one line per request; info, warn or error")
	exitOnStdinClose := addExitOnStdinClose(fs)
	gatewayFlag := fs.Bool("gateway", false, "serve the agents behind the id-rewriting gateway on --addr (task ids differ per channel, X-Correlation-Id and metadata correlationId added; the control API passes through)")
	limits := addLimitFlags(fs)
	scenarioFile := fs.String("scenario", "", "serve this scenario file (see a2amock validate); --addr, --seed, --step-delay and --behavior override it when given")
	// Read by `serve --replay FILE`, which replayCmd serves; declared here
	// so that serve -h lists them.
	fs.String("replay", "", "serve this recording (written by a2amock record) instead of agents; see a2amock replay -h")
	fs.Float64("speed", 1, "with --replay: divides the recorded delays (1 recorded time, 2 twice as fast, 0 no waiting)")
	fs.String("splice", "", "with --replay: fault injected into every replayed stream at event N: N:end-stream, N:drop or N:hang")
	pos, code, ok := parseFlags(fs, "serve [flags]", args, stdout)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "a2amock serve: unexpected arguments %q\n", pos)
		return 2
	}
	if err := flagsFromEnv(fs, os.LookupEnv); err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 2
	}
	for _, only := range []string{"replay", "speed", "splice"} {
		if f := fs.Lookup(only); f.Value.String() != f.DefValue {
			// Only reachable from the environment (or --speed without
			// --replay): a replay starts from serve's arguments.
			fmt.Fprintf(stderr, "a2amock serve: --%s (or %s) needs --replay FILE on the command line, or a2amock replay FILE\n", only, envName(only))
			return 2
		}
	}
	warnUnknownEnv(fs, stderr)
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "a2amock serve: --log-level %q: use debug, info, warn or error\n", *logLevel)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ctx, release := shutdownContext(ctx, *exitOnStdinClose, os.Stdin, stderr, "serve")
	defer release()

	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	listen := *addr
	runServer := runServer // shadowed: both calls below then start the gateway when asked
	if gatewayRequested(*gatewayFlag, explicit["gateway"], *scenarioFile) {
		runServer = runGateway
	}
	if *scenarioFile != "" || !explicit["agents"] && !explicit["dialect"] && !explicit["push"] {
		cfg, addrOut, names, err := scenarioServeConfig(*scenarioFile, explicit, *addr, *seed, *stepDelay, behaviorSpecs)
		if err != nil {
			fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
			return 2
		}
		cfg.Logger, cfg.ControlToken, cfg.StrictVersion = logger, *controlToken, cfg.StrictVersion || *strict
		cfg.SignCards = cfg.SignCards || *signCards
		cfg.GRPC = cfg.GRPC || *grpcFlag
		if err := limits.apply(&cfg, explicit); err != nil {
			fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
			return 2
		}
		return runServer(ctx, cfg, addrOut, names, stdout, stderr, logger, ready)
	}
	d := wire.Dialect(*dialect)
	if codecs.For(d) == nil {
		fmt.Fprintf(stderr, "a2amock serve: --dialect %q: use %s\n", *dialect, wire.DialectNames(", ", " or "))
		return 2
	}
	names, err := agentNames(*agentsFlag)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock serve: --agents: %v\n", err)
		return 2
	}
	cfg := server.Config{Seed: *seed, StepDelay: *stepDelay, Logger: logger, ControlToken: *controlToken, StrictVersion: *strict, SignCards: *signCards, GRPC: *grpcFlag}
	if err := limits.apply(&cfg, explicit); err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 2
	}
	if *stepDelay == 0 {
		cfg.StepDelay = -1
	}
	for _, n := range names {
		c := cards.Generate(n, *seed)
		c.Dialect = d
		c.Capabilities.PushNotifications = *push
		cfg.Agents = append(cfg.Agents, server.AgentConfig{Name: n, Card: c})
	}
	if err := attachBehaviors(&cfg, behaviorSpecs); err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 2
	}
	return runServer(ctx, cfg, listen, names, stdout, stderr, logger, ready)
}

// runServer serves cfg on addr until ctx ends (serve's shutdownContext: SIGINT,
// SIGTERM or, with --exit-on-stdin-close, stdin closing).
func runServer(ctx context.Context, cfg server.Config, addr string, names []string, stdout, stderr io.Writer, logger *slog.Logger, ready chan<- string) int {
	if cfg.Scenarios == nil {
		cfg.Scenarios = scenario.Loader(cfg.Registry) // POST /_a2amock/agents with cards and timelines
	}
	srv, err := server.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 2
	}
	if err := srv.Start(addr); err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 1
	}
	logger.Debug("a2amock serving", "url", srv.URL(), "agents", strings.Join(names, ","), "seed", cfg.Seed,
		"card", srv.URL()+"/.well-known/agent-card.json")
	grpcNote := ""
	if cfg.GRPC {
		grpcNote = "; gRPC at " + cards.GRPCTarget(srv.URL()) + ", tenant = agent name below the root"
	}
	fmt.Fprintf(stdout, "a2amock: serving %d agent(s) at %s (card: %s/.well-known/agent-card.json%s)\n", len(names), srv.URL(), srv.URL(), grpcNote)
	if ready != nil {
		ready <- srv.URL()
	}
	<-ctx.Done()
	logger.Info("a2amock shutting down: ending open streams")
	if err := srv.Close(); err != nil {
		logger.Error("shutdown", "err", err)
		return 1
	}
	return 0
}

// flagsFromEnv sets every flag not given on the command line from
// A2AMOCK_<NAME> (e.g. A2AMOCK_CONTROL_TOKEN, A2AMOCK_SCENARIO), because CI
// service containers take environment variables but no arguments. Repeatable
// flags take several values separated by ";".
func flagsFromEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		env := envName(f.Name)
		v, ok := lookup(env)
		if !ok {
			return
		}
		values := []string{v}
		if _, repeatable := f.Value.(*stringList); repeatable {
			values = strings.Split(v, ";")
		}
		for _, one := range values {
			if err := fs.Set(f.Name, strings.TrimSpace(one)); err != nil {
				errs = append(errs, fmt.Errorf("%s=%s: %w", env, v, valueError(f, err)))
			}
		}
	})
	return errors.Join(errs...)
}

func agentNames(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 || n > 1000 {
			return nil, fmt.Errorf("%d agents: use 1 to 1000", n)
		}
		names := make([]string, n)
		for i := range names {
			names[i] = "agent-" + strconv.Itoa(i+1)
		}
		if n == 1 {
			names[0] = "agent"
		}
		return names, nil
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no agent names in %q", v)
	}
	return names, nil
}

// defaultAddr is where serve and replay listen when not told, and so where
// healthcheck looks when not told.
const defaultAddr = "127.0.0.1:8080"

func healthcheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "base URL of the a2amock server; default http:// and $A2AMOCK_ADDR (a wildcard host made 127.0.0.1), else http://127.0.0.1:8080")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for an answer")
	token := fs.String("control-token", "", "bearer token of the control API; default $A2AMOCK_CONTROL_TOKEN, which the image's HEALTHCHECK inherits from the container")
	pos, code, ok := parseFlags(fs, "healthcheck [--url URL] [--timeout D]", args, stdout)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "a2amock healthcheck: unexpected arguments %q\n", pos)
		return 2
	}
	if *token == "" {
		// A server started with a control token answers /healthz only with
		// it, even on loopback; without this the container never turns
		// healthy in CI, where a token is always set.
		*token = os.Getenv("A2AMOCK_CONTROL_TOKEN")
	}
	if *url == "" {
		// The image sets A2AMOCK_ADDR for serve; reading it here keeps the
		// HEALTHCHECK on the port a user moved the server to.
		addr := cmp.Or(os.Getenv(envName("addr")), defaultAddr)
		*url = "http://" + httpserve.DialAddr(addr)
	}
	req, err := http.NewRequest(http.MethodGet, strings.TrimRight(*url, "/")+"/_a2amock/healthz", nil)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %v\n", err)
		return 2
	}
	if *token != "" {
		req.Header.Set("Authorization", "Bearer "+*token)
	}
	c := &http.Client{Timeout: *timeout}
	resp, err := c.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "unhealthy: %s\n", resp.Status)
		return 1
	}
	fmt.Fprintln(stdout, "healthy")
	return 0
}
