package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2amock/a2amock/conform/clientrun"
	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/conform/internal/report"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
)

// Options configure Run.
type Options struct {
	// Client is the client command, split by SplitCommand.
	Client string
	// Suite is the suite to run; nil is the default suite.
	Suite *Suite
	// Scenarios restricts the run to these ids (in suite order).
	Scenarios []string
	// Grace is how long after a scenario's deadline the client is killed;
	// 0 means DefaultGrace.
	Grace time.Duration
	// Startup is the most start-up time not charged to the client: the
	// scenario's deadline (and the kill at deadline plus Grace) counts from
	// the client's first request to the mock, or from Startup after its
	// start when it has made none by then; 0 means DefaultStartup.
	Startup time.Duration
	// Parallel bounds the scenarios run at once; 0 means the number of
	// CPUs.
	Parallel int
	// Seed, when set, replaces every scenario's seed.
	Seed *uint64
	// GRPC serves the gRPC binding in every scenario, as a scenario's
	// server.grpc does: each v1.0 card then declares a GRPC interface (the
	// server's host:port, the agent's name as tenant) beside the others.
	GRPC bool
	// Progress receives one line per scenario as it finishes; nil for
	// none.
	Progress io.Writer
	// Baseline is compared with the results, if not nil.
	Baseline *Baseline
	// Env is the environment the client starts with (before the contract's
	// variables); nil means os.Environ().
	Env []string
	// KeepJournal keeps each scenario's journal, up to the client's exit,
	// in its result (ScenarioResult.Journal), for a report that shows every
	// exchange and not only the entries a check gave as evidence (conform
	// --html).
	KeepJournal bool

	// hooks reach into every scenario's run, for tests; nil in use.
	hooks *runHooks
}

// runHooks let a test decide what timing decides in use: the mock's clock,
// and what happens between the client's exit and the mock's shutdown.
type runHooks struct {
	// clock, if set, is the mock's clock instead of the wall clock.
	clock timeline.Clock
	// exited, if set, runs once the client has exited, as soon as the
	// runner learns of it (after the journal and the wire records are cut
	// there, before the strays are killed and the mock is shut down).
	exited func(m *mock)
	// wire, if set, is given the wire records the run is judged on.
	wire func([]WireRecord)
	// listen, if set, opens the mocks' listeners instead of net.Listen, so
	// that a test can tell each was closed without dialing its port (which
	// another process may have taken since).
	listen func(network, address string) (net.Listener, error)
}

// DefaultGrace is the default time between a scenario's deadline and the
// kill of its client.
const DefaultGrace = 3 * time.Second

// DefaultStartup is the default start-up allowance: an interpreted client
// loading its SDK on a loaded 2-core machine takes a few seconds before its
// first request, and that is not counted against its deadline.
const DefaultStartup = 10 * time.Second

// CheckClient says why the client command cannot be run at all (it does
// not split, or its program is not found or not executable), so that a
// mistyped --client is a usage error rather than every scenario failing.
func CheckClient(client string) error {
	argv, err := clientrun.SplitCommand(client)
	if err != nil {
		return err
	}
	return clientrun.CheckStartable(argv)
}

// Run runs the client once per scenario and judges every run. The error is
// for problems that prevent the run as a whole (an empty client command, an
// unknown scenario id); a client that crashes or hangs is a result.
func Run(ctx context.Context, opts Options) (*Report, error) {
	argv, err := clientrun.SplitCommand(opts.Client)
	if err != nil {
		return nil, err
	}
	suite := opts.Suite
	if suite == nil {
		suite = DefaultSuite()
	}
	scs := suite.Scenarios
	if len(opts.Scenarios) > 0 {
		scs = nil
		for _, id := range opts.Scenarios {
			sc, ok := suite.Scenario(id)
			if !ok {
				return nil, fmt.Errorf("no scenario %q in suite %s; scenarios: %s", id, suite.Name, strings.Join(suite.IDs(), ", "))
			}
			if !slices.Contains(scs, sc) {
				scs = append(scs, sc)
			}
		}
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Startup <= 0 {
		opts.Startup = DefaultStartup
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	rep := &Report{Schema: ReportSchema, Version: ReportVersion, Suite: suite.Name, Client: opts.Client, Seed: opts.Seed, GRPC: opts.GRPC, StartedAt: time.Now().UTC()}
	rep.Scenarios = make([]*ScenarioResult, len(scs))
	var (
		wg       sync.WaitGroup
		progress sync.Mutex
		sem      = make(chan struct{}, opts.Parallel)
	)
	for i, sc := range scs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				rep.Scenarios[i] = aborted(sc, ctx.Err())
				return
			}
			defer func() { <-sem }()
			res := runScenario(ctx, sc, argv, opts)
			rep.Scenarios[i] = res
			if opts.Baseline != nil {
				opts.Baseline.mark(res)
			}
			if opts.Progress != nil {
				progress.Lock()
				fmt.Fprint(opts.Progress, progressLine(res))
				progress.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.DurationMS = time.Since(rep.StartedAt).Milliseconds()
	summarize(rep, opts.Baseline)
	return rep, nil
}

func aborted(sc *Scenario, err error) *ScenarioResult {
	return unjudged(newResult(sc), sc, "not run: "+err.Error())
}

// unjudged fails every check of res with why the scenario was not judged.
func unjudged(res *ScenarioResult, sc *Scenario, why string) *ScenarioResult {
	res.Error = why
	for _, id := range sc.Checks {
		res.Checks = append(res.Checks, &CheckResult{ID: id, Reason: why})
	}
	return res
}

func newResult(sc *Scenario) *ScenarioResult {
	return &ScenarioResult{ID: sc.ID, Title: sc.Title, Prompt: sc.Prompt, Input: sc.Input, Mode: sc.Mode,
		DeadlineMS: sc.Deadline.Milliseconds(), Outcomes: sc.Outcomes}
}

// runScenario starts the scenario's mock, runs the client against it and
// judges the run.
func runScenario(ctx context.Context, sc *Scenario, argv []string, opts Options) *ScenarioResult {
	res := newResult(sc)
	start := time.Now()
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	file := *sc.File
	if opts.Seed != nil {
		file.Server.Seed = *opts.Seed
	}
	file.Server.GRPC = file.Server.GRPC || opts.GRPC
	cfg, err := file.Config(nil)
	if opts.hooks != nil && opts.hooks.clock != nil {
		cfg.Clock = opts.hooks.clock
	}
	var m *mock
	if err == nil {
		listen := net.Listen
		if opts.hooks != nil && opts.hooks.listen != nil {
			listen = opts.hooks.listen
		}
		m, err = startMock(cfg, sc.CardChange, listen)
	}
	if err != nil {
		res.Error = "cannot start the mock: " + err.Error()
		for _, id := range sc.Checks {
			res.Checks = append(res.Checks, &CheckResult{ID: id, Reason: res.Error})
		}
		return res
	}
	var urls []string
	for _, name := range sc.Agents {
		u := m.agentURL(name)
		urls = append(urls, u)
		res.Agents = append(res.Agents, AgentRef{Name: name, URL: u})
	}
	env := contractEnv(opts.Env, sc, urls)
	// The run is judged and reported on what the client lived to see: the
	// journal and the wire up to its exit. The agents go on until the mock
	// is shut down, and how much of that gets journaled and written
	// depends on how fast that is.
	var exitSeq int64
	exited := func() {
		exitSeq = m.srv.Journal().LastSeq()
		m.wire.Exit()
		if opts.hooks != nil && opts.hooks.exited != nil {
			opts.hooks.exited(m)
		}
	}
	cr := clientrun.Command{Argv: clientrun.Substitute(argv, urls[0], sc.Prompt, sc.Input), Env: env, Deadline: sc.Deadline, Grace: opts.Grace,
		Startup: opts.Startup, Ready: m.ready, ReadyAt: m.firstRequest, Marker: clientrun.NewMarker(), Exited: exited}
	proc := cr.Run(ctx)
	res.Process = proc
	closeErr := m.close()
	if ctx.Err() != nil && proc.Killed {
		// The run was stopped (Ctrl-C, a canceled CI job), not the
		// client: what it did until then is no verdict.
		return unjudged(res, sc, "interrupted: the run was stopped ("+ctx.Err().Error()+") before the client finished; not judged")
	}
	whole := m.srv.Journal().Entries()
	cut := sort.Search(len(whole), func(i int) bool { return whole[i].Seq > exitSeq })
	r := &judge.Run{Agents: sc.Agents, Deadline: sc.Deadline, MaxPolls: sc.MaxPolls, Outcomes: sc.Outcomes,
		Journal: whole[:cut:cut], AfterExit: whole[cut:], Wire: m.wire.Records(), Proc: proc, Exit: proc.Exited, Origin: m.url, SignsCards: cfg.SignCards}
	if closeErr != nil {
		res.Error = closeErr.Error()
	}
	if opts.hooks != nil && opts.hooks.wire != nil {
		opts.hooks.wire(r.Wire)
	}
	r.Declared = declaredCards(cfg, m.url, sc.Agents)
	r.Analyse()
	res.JournalEntries = len(r.Journal)
	if opts.KeepJournal {
		res.Journal = r.Journal
	}
	res.Pass = true
	for _, id := range sc.Checks {
		c, _ := CheckByID(id)
		v := c.Apply(r)
		res.Checks = append(res.Checks, &CheckResult{ID: id, Pass: v.Pass, Reason: v.Reason, Evidence: v.Evidence})
		if !v.Pass {
			res.Pass = false
		}
	}
	return res
}

// contractEnv is the client's environment: the runner's, without any
// inherited contract variable, plus the contract's.
func contractEnv(base []string, sc *Scenario, urls []string) []string {
	env := make([]string, 0, len(base)+8)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "A2A_AGENT_URL" || k == "A2A_AGENT_URLS" || strings.HasPrefix(k, "A2AMOCK_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"A2A_AGENT_URL="+urls[0],
		"A2AMOCK_PROMPT="+sc.Prompt,
		"A2AMOCK_INPUT="+sc.Input,
		"A2AMOCK_DEADLINE_MS="+strconv.FormatInt(sc.Deadline.Milliseconds(), 10),
		"A2AMOCK_SCENARIO="+sc.ID,
		"A2AMOCK_MODE="+sc.Mode,
		"A2AMOCK_BEARER_TOKEN="+server.TestBearerToken,
	)
	if len(urls) > 1 {
		env = append(env, "A2A_AGENT_URLS="+strings.Join(urls, ","))
	}
	return env
}

// declaredCards renders each agent's card as the client was served it, on
// a fresh server built from the same configuration (so nothing is added to
// the run's journal): the current path, else the legacy one.
func declaredCards(cfg server.Config, origin string, agents []string) map[string]*cards.Card {
	out := map[string]*cards.Card{}
	srv, err := server.New(cfg)
	if err != nil {
		return out
	}
	defer srv.Close()
	host := strings.TrimPrefix(origin, "http://")
	for _, name := range agents {
		for _, p := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
			req := httptest.NewRequest(http.MethodGet, origin+srv.AgentPath(name)+p, nil)
			req.Host = host
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				continue
			}
			if c, err := cards.Parse(rec.Body.Bytes()); err == nil {
				out[name] = c
				break
			}
		}
	}
	return out
}

// progressLine is the terminal line of a finished scenario.
func progressLine(res *ScenarioResult) string {
	var b strings.Builder
	verdict := "PASS"
	if !res.Pass {
		verdict = "FAIL"
		if res.AllExpected() {
			verdict = "XFAIL"
		}
	}
	fmt.Fprintf(&b, "%-5s %-34s %6dms", verdict, res.ID, res.DurationMS)
	if res.Process != nil && res.Process.Outcome != nil {
		fmt.Fprintf(&b, "  outcome=%s", res.Process.Outcome.Outcome)
	}
	b.WriteString("\n")
	for _, c := range res.Failed() {
		mark := "✗"
		if c.Expected {
			mark = "~"
		}
		fmt.Fprintf(&b, "      %s %s: %s\n", mark, c.ID, report.Indented(c.Reason, "          "))
	}
	return b.String()
}

func summarize(rep *Report, b *Baseline) {
	s := Summary{Scenarios: len(rep.Scenarios)}
	for _, res := range rep.Scenarios {
		if res.Pass {
			s.ScenariosPassed++
		}
		for _, c := range res.Checks {
			s.Checks++
			if !c.Pass {
				s.ChecksFailed++
				if !c.Expected {
					s.Unexpected++
				}
			}
		}
	}
	if b != nil {
		rep.Baseline = b.compare(rep)
		s.Stale = len(rep.Baseline.Stale)
	}
	s.OK = s.Unexpected == 0 && s.Stale == 0
	rep.Summary = s
}

// ErrFailed is returned by callers that turn a report into an exit status.
var ErrFailed = errors.New("conform: unexpected failures or stale baseline entries")
