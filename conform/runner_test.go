package conform

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2amock/a2amock/conform/clientrun"
)

// oneScenario is a suite of one honest scenario with a short deadline.
func oneScenario(t *testing.T, deadline string) *Suite {
	t.Helper()
	s, err := ParseSuite([]byte(`
server: {seed: 1, stepDelay: 5ms}
agents:
  - name: solo
    card: {dialect: "1.0", capabilities: {streaming: true}, skills: [{id: a, name: A}]}
conform:
  id: solo
  deadline: `+deadline+`
  outcomes: [completed]
  checks: [sends-a2a-version]
`), "solo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runOne(t *testing.T, client string, suite *Suite, grace time.Duration) *ScenarioResult {
	t.Helper()
	return runOneWith(t, Options{Client: client, Suite: suite, Grace: grace, Startup: time.Second})
}

func runOneWith(t *testing.T, opts Options) *ScenarioResult {
	t.Helper()
	lt := &listenerLog{}
	opts.hooks = lt.hooks(opts.hooks)
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 1 {
		t.Fatalf("%d results, want 1", len(rep.Scenarios))
	}
	lt.assertClosed(t, rep)
	return rep.Scenarios[0]
}

// listenerLog keeps the listeners a run's mocks opened (runHooks.listen),
// so that a test can tell each was closed without dialing its port, which
// another process may have taken since.
type listenerLog struct {
	mu  sync.Mutex
	lns []*loggedListener
}

type loggedListener struct {
	net.Listener
	closed atomic.Bool
}

func (l *loggedListener) Close() error {
	l.closed.Store(true)
	return l.Listener.Close()
}

// hooks returns h (or new hooks) with the mocks' listeners opened through l.
func (l *listenerLog) hooks(h *runHooks) *runHooks {
	var c runHooks
	if h != nil {
		c = *h
	}
	c.listen = func(network, address string) (net.Listener, error) {
		ln, err := net.Listen(network, address)
		if err != nil {
			return nil, err
		}
		ll := &loggedListener{Listener: ln}
		l.mu.Lock()
		l.lns = append(l.lns, ll)
		l.mu.Unlock()
		return ll, nil
	}
	return &c
}

// assertClosed checks that the listener behind every agent URL of the run
// was closed by its end: the runner leaves no port behind.
func (l *listenerLog) assertClosed(t *testing.T, rep *Report) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, res := range rep.Scenarios {
		for _, a := range res.Agents {
			u, err := url.Parse(a.URL)
			if err != nil {
				t.Fatal(err)
			}
			seen := false
			for _, ln := range l.lns {
				if ln.Addr().String() != u.Host {
					continue
				}
				seen = true
				if !ln.closed.Load() {
					t.Errorf("%s: the mock still listens on %s after the run", res.ID, u.Host)
				}
			}
			if !seen {
				t.Errorf("%s: no mock of the run listened on %s", res.ID, u.Host)
			}
		}
	}
}

func check(t *testing.T, res *ScenarioResult, id string) *CheckResult {
	t.Helper()
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("%s: no check %s", res.ID, id)
	return nil
}

func wantFail(t *testing.T, res *ScenarioResult, id, reasonHas string) {
	t.Helper()
	c := check(t, res, id)
	if c.Pass {
		t.Errorf("%s/%s passed (%s); want a failure", res.ID, id, c.Reason)
	} else if !strings.Contains(c.Reason, reasonHas) {
		t.Errorf("%s/%s reason %q does not say %q", res.ID, id, c.Reason, reasonHas)
	}
}

func TestClientNotFound(t *testing.T) {
	start := time.Now()
	res := runOne(t, "/nonexistent/a2a-client --flag", oneScenario(t, "500ms"), 300*time.Millisecond)
	if time.Since(start) > 3*time.Second {
		t.Errorf("a missing command took %s", time.Since(start))
	}
	wantFail(t, res, "no-crash", "not found")
	wantFail(t, res, "exits-in-time", "not found")
	wantFail(t, res, "truthful-outcome", "no outcome")
}

func TestClientExitsAtOnce(t *testing.T) {
	res := runOne(t, fakeCommand("exit3"), oneScenario(t, "500ms"), 300*time.Millisecond)
	wantFail(t, res, "no-crash", "exited 3")
	wantFail(t, res, "no-crash", "giving up at once")
	if c := check(t, res, "exits-in-time"); !c.Pass {
		t.Errorf("exits-in-time failed for a client that exited at once: %s", c.Reason)
	}
}

func TestClientHangsIsKilled(t *testing.T) {
	start := time.Now()
	res := runOne(t, fakeCommand("hang"), oneScenario(t, "300ms"), 200*time.Millisecond)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a hanging client held the run for %s (start-up allowance 1s + deadline 300ms + grace 200ms)", d)
	}
	if !res.Process.Killed {
		t.Error("the hanging client was not marked killed")
	}
	if !res.Process.NoRequest || res.Process.StartupMS < 1000 {
		t.Errorf("a client that made no request: NoRequest=%v StartupMS=%d, want true and the whole allowance (1000)", res.Process.NoRequest, res.Process.StartupMS)
	}
	wantFail(t, res, "exits-in-time", "hang")
	wantFail(t, res, "exits-in-time", "no request")
	wantFail(t, res, "no-crash", "hang")
}

// TestStartupIsNotCharged: the deadline counts from the client's first
// request, so a client that takes 2.2s to start (an interpreter loading an
// SDK) and then runs quickly is judged on its run, with a 1s deadline and
// a 1s grace; one that hangs after a slow start is killed at its
// first request plus deadline plus grace, not later.
func TestStartupIsNotCharged(t *testing.T) {
	t.Parallel()
	res := runOneWith(t, Options{Client: fakeCommand("slow-start"), Suite: oneScenario(t, "1s"), Grace: time.Second, Startup: 5 * time.Second})
	p := res.Process
	if c := check(t, res, "exits-in-time"); !c.Pass {
		t.Errorf("exits-in-time failed for a slow start and a quick run: %s", c.Reason)
	} else if !strings.Contains(c.Reason, "counted from its first request") {
		t.Errorf("exits-in-time reason %q does not say from when the deadline counted", c.Reason)
	}
	if c := check(t, res, "truthful-outcome"); !c.Pass {
		t.Errorf("truthful-outcome: %s", c.Reason)
	}
	if p.NoRequest || p.StartupMS < 2100 || p.StartupMS > p.DurationMS {
		t.Errorf("StartupMS = %d (NoRequest %v, DurationMS %d), want about 2200", p.StartupMS, p.NoRequest, p.DurationMS)
	}

	start := time.Now()
	res = runOneWith(t, Options{Client: fakeCommand("slow-start-hang"), Suite: oneScenario(t, "300ms"), Grace: 300 * time.Millisecond, Startup: 5 * time.Second})
	p = res.Process
	if !p.Killed {
		t.Fatal("the client hanging after its first request was not killed")
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("killed after %s; want the first request (~1.5s) + deadline + grace, not the start-up allowance (5s)", d)
	}
	if p.DurationMS-p.StartupMS < 550 {
		t.Errorf("killed %dms after the first request; want at least deadline + grace (600ms)", p.DurationMS-p.StartupMS)
	}
	wantFail(t, res, "exits-in-time", "counted from its first request")
}

// TestNoRequestMeansNone: process.noRequest says the client made no request
// to the agent at all, whatever the reason: it is set for a client that
// gave up at once, long before the start-up allowance ran out, and not for
// one whose first request came after the allowance, from whose end its
// deadline then counted.
func TestNoRequestMeansNone(t *testing.T) {
	t.Parallel()
	res := runOneWith(t, Options{Client: fakeCommand("exit3"), Suite: oneScenario(t, "1s"), Grace: time.Second, Startup: 5 * time.Second})
	if p := res.Process; !p.NoRequest || p.StartupMS > p.DurationMS {
		t.Errorf("a client that exited at once without a request: NoRequest %v, StartupMS %d (DurationMS %d), want true and its exit", p.NoRequest, p.StartupMS, p.DurationMS)
	}
	if c := check(t, res, "exits-in-time"); !strings.Contains(c.Reason, "it made no request to the agent)") {
		t.Errorf("exits-in-time reason %q does not say the client made no request", c.Reason)
	}

	res = runOneWith(t, Options{Client: fakeCommand("late-start"), Suite: oneScenario(t, "1s"), Grace: time.Second, Startup: 300 * time.Millisecond})
	p := res.Process
	if p.NoRequest || p.StartupMS < 300 || p.StartupMS >= 700 {
		t.Errorf("a client whose first request came after the allowance: NoRequest %v, StartupMS %d, want false and the allowance (300)", p.NoRequest, p.StartupMS)
	}
	if c := check(t, res, "exits-in-time"); !c.Pass || !strings.Contains(c.Reason, "counted from the end of the start-up allowance") {
		t.Errorf("exits-in-time: %v %q, want a pass counted from the end of the start-up allowance", c.Pass, c.Reason)
	}
	if res.JournalEntries == 0 {
		t.Error("the late client's requests were not journaled")
	}
}

// TestSetsidChildIsKilled: a child that leaves the client's process group
// and session (setsid) is out of reach of the group kill; the runner finds
// it by the run marker in its environment, kills it and reports it.
func TestSetsidChildIsKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	res := runOneWith(t, Options{Client: fakeCommand("setsid"), Suite: oneScenario(t, "3s"), Grace: time.Second,
		Env: append(os.Environ(), "CONFORM_FAKE_PIDFILE="+pidFile)})
	wantFail(t, res, "exits-in-time", "left 1 process")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if pid <= 0 {
		t.Fatalf("bad pid file %q", b)
	}
	if alive(pid) {
		t.Errorf("the client's setsid child %d is still running after the run", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if res.DurationMS > 2500 {
		t.Errorf("the scenario took %dms; the runner waited for the setsid child's pipes", res.DurationMS)
	}
}

func TestClientFloodsStdout(t *testing.T) {
	res := runOne(t, fakeCommand("flood"), oneScenario(t, "5s"), time.Second)
	p := res.Process
	if p.StdoutBytes < 24<<20 {
		t.Errorf("StdoutBytes = %d, want the whole flood counted", p.StdoutBytes)
	}
	if len(p.Stdout) > clientrun.StdoutKeep {
		t.Errorf("kept %d bytes of stdout, more than %d", len(p.Stdout), clientrun.StdoutKeep)
	}
	if p.Outcome == nil || p.Outcome.Outcome != "error" {
		t.Errorf("the outcome line after the flood was not read: %+v (%s)", p.Outcome, p.OutcomeProblem)
	}
	res = runOne(t, fakeCommand("flood-one-line"), oneScenario(t, "5s"), time.Second)
	wantFail(t, res, "no-crash", "no outcome line")
}

func TestClientPrintsGarbage(t *testing.T) {
	res := runOne(t, fakeCommand("garbage"), oneScenario(t, "2s"), time.Second)
	wantFail(t, res, "no-crash", `outcome "great" is not one of`)
	wantFail(t, res, "truthful-outcome", "no outcome")
}

// TestForkedChildIsKilled: a child that outlives the client is killed with
// its process group and reported; nothing of it is left.
func TestForkedChildIsKilled(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	suite := oneScenario(t, "3s")
	lt := &listenerLog{}
	rep, err := Run(context.Background(), Options{Client: fakeCommand("fork"), Suite: suite, Grace: time.Second,
		Env: append(os.Environ(), "CONFORM_FAKE_PIDFILE="+pidFile), hooks: lt.hooks(nil)})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Scenarios[0]
	wantFail(t, res, "exits-in-time", "left 1 process")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if alive(pid) {
		t.Errorf("the client's child %d is still running after the run", pid)
	}
	lt.assertClosed(t, rep)
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// TestTwoRunsAtOnce: runs on one machine do not share ports or processes.
func TestTwoRunsAtOnce(t *testing.T) {
	client := fakeCommand("naive")
	suite := oneScenario(t, "2s")
	reps := make([]*Report, 2)
	errs := make([]error, 2)
	lts := []*listenerLog{{}, {}}
	done := make(chan int)
	for i := range reps {
		go func() {
			reps[i], errs[i] = Run(context.Background(), Options{Client: client, Suite: suite, Grace: time.Second, hooks: lts[i].hooks(nil)})
			done <- i
		}()
	}
	<-done
	<-done
	for i, rep := range reps {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		res := rep.Scenarios[0]
		if c := check(t, res, "truthful-outcome"); !c.Pass {
			t.Errorf("run %d: %s", i, c.Reason)
		}
		lts[i].assertClosed(t, rep)
	}
	if reps[0].Scenarios[0].Agents[0].URL == reps[1].Scenarios[0].Agents[0].URL {
		t.Error("two runs got the same agent URL")
	}
}

func TestNaiveClientFailsWhatItGetsWrong(t *testing.T) {
	suite := DefaultSuite()
	ids := []string{"honest-v10-jsonrpc", "never-terminal", "fail-instead-of-input-required", "honest-input-required", "legacy-card-path-only",
		"honest-v10-http-json", "card-changes-mid-task", "card-signature-tampered"}
	lt := &listenerLog{}
	rep, err := Run(context.Background(), Options{Client: fakeCommand("naive"), Suite: suite, Scenarios: ids, Grace: 300 * time.Millisecond, hooks: lt.hooks(nil)})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*ScenarioResult{}
	for _, res := range rep.Scenarios {
		by[res.ID] = res
	}
	wantFail(t, by["honest-v10-jsonrpc"], "sends-a2a-version", "no A2A-Version header")
	wantFail(t, by["honest-v10-jsonrpc"], "sends-only-defined-fields", "configuration.blocking (v0.3's; v1.0 reads returnImmediately")
	for _, id := range []string{"truthful-outcome", "no-orphans", "no-crash", "exits-in-time"} {
		if check(t, by["honest-v10-jsonrpc"], id).Pass != true {
			t.Errorf("honest-v10-jsonrpc/%s failed for a client that did it right: %s", id, check(t, by["honest-v10-jsonrpc"], id).Reason)
		}
	}
	nt := by["never-terminal"]
	wantFail(t, nt, "exits-in-time", "hang")
	wantFail(t, nt, "no-orphans", "left working")
	wantFail(t, nt, "cancels-on-divergence", "without CancelTask")
	wantFail(t, nt, "bounded-polling", "GetTask")
	wantFail(t, by["fail-instead-of-input-required"], "truthful-outcome", `reported "completed"`)
	wantFail(t, by["honest-input-required"], "continuation-carries-task-id", `named task ""`)
	wantFail(t, by["legacy-card-path-only"], "discovers-via-card", "without having read its card")
	// It posts JSON-RPC to an agent that declares (and serves) HTTP+JSON
	// only, reads the card once and trusts a signed card unverified.
	wantFail(t, by["honest-v10-http-json"], "uses-declared-interface", "the card declares only HTTP+JSON")
	wantFail(t, by["honest-v10-http-json"], "truthful-outcome", `reported "error"`)
	wantFail(t, by["card-changes-mid-task"], "card-refetched-on-change", "came without fetching the card again")
	wantFail(t, by["card-signature-tampered"], "card-signature-checked", "without fetching the keys the signature names")
	wantFail(t, by["card-signature-tampered"], "no-use-after-bad-card-signature", "used after its card failed signature verification (tampered)")
	if rep.Summary.OK {
		t.Error("the run of a naive client is OK")
	}
	lt.assertClosed(t, rep)
}

func TestUnknownScenario(t *testing.T) {
	_, err := Run(context.Background(), Options{Client: "true", Scenarios: []string{"no-such"}})
	if err == nil || !strings.Contains(err.Error(), `no scenario "no-such"`) {
		t.Fatalf("err = %v", err)
	}
	if !slices.Contains(DefaultSuite().IDs(), "never-terminal") {
		t.Fatal("the default suite lost never-terminal")
	}
}

// TestInterruptedRunIsNotJudged: a run stopped from outside (Ctrl-C, a
// canceled CI job) kills the client, but that kill is not the deadline's:
// the scenario says it was interrupted and judges nothing, instead of
// calling the client a hang.
func TestInterruptedRunIsNotJudged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	lt := &listenerLog{}
	rep, err := Run(ctx, Options{Client: fakeCommand("hang"), Suite: oneScenario(t, "5s"), Grace: 3 * time.Second, Startup: time.Second, hooks: lt.hooks(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the interrupted run took %s", d)
	}
	lt.assertClosed(t, rep)
	res := rep.Scenarios[0]
	if !strings.Contains(res.Error, "interrupted") {
		t.Errorf("scenario error %q does not say the run was interrupted", res.Error)
	}
	for _, c := range res.Checks {
		if c.Pass || !strings.Contains(c.Reason, "interrupted") || strings.Contains(c.Reason, "hang") {
			t.Errorf("%s: pass=%v reason %q; want a failure that says the run was interrupted, not a hang", c.ID, c.Pass, c.Reason)
		}
	}
}

// A unary answer whose JSON no parser reads (malformed-json on SendMessage)
// keeps the task's id from the client, so a client that could not read it
// and reports error is not charged with the orphan, as it is not for an
// answer cut or reset.
func TestUnreadableAnswerHidesTheTask(t *testing.T) {
	rep, err := Run(context.Background(), Options{Client: fakeCommand("naive"), Suite: DefaultSuite(), Scenarios: []string{"malformed-json"}, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Scenarios[0]
	c := check(t, res, "no-orphans")
	if !c.Pass || !strings.Contains(c.Reason, "whose id never reached the client (the answer creating it was cut, reset, unreadable or unfinished at the exit)") {
		t.Errorf("no-orphans: pass=%v reason=%q", c.Pass, c.Reason)
	}
}
