// Command fieldincident reproduces the field note of a2amock's seed: a
// coordinator discovers three workers from their Agent Cards, all declaring
// streaming and stateTransitionHistory; two are honest, the third answers a
// continuation with a new task id. A naive coordinator that derives its
// state machine from the card leaves the original task working and polls it
// for ever (bounded here); the reconciling driver of testkit/reconcile
// surfaces a typed divergence, cancels the orphan and finishes.
//
// The same two clients are run against skip-working and never-terminal.
// Run it with `go run ./examples/fieldincident`; its test asserts every
// claim against the mock's journal.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// Names of the three workers; the last one misbehaves.
var workerNames = []string{"alpha", "beta", "gamma"}

// SkillID is the one skill every worker declares.
const SkillID = "plan-rollout"

// The misbehaviors reproduced, as behavior specs for the third worker.
const (
	FieldIncident = "new-task-id-on-continuation:unless-metadata=tenant"
	SkipWorking   = "skip-working"
	NeverTerminal = "never-terminal"
)

// declareLikeTheField gives a worker the card of the field note: streaming
// and stateTransitionHistory declared, one skill whose description implies
// that it asks for more input, accepting text.
func declareLikeTheField(c *cards.Card) {
	c.Capabilities.Streaming = true
	c.Capabilities.StateTransitionHistory = true
	c.Skills = []cards.Skill{{
		ID:          SkillID,
		Name:        "Plan a rollout",
		Description: "Plans a staged rollout; will ask a follow-up question about the target region.",
		Tags:        []string{"planning"},
		InputModes:  []string{cards.ModeText},
		OutputModes: []string{cards.ModeText},
		NeedsInput:  true,
		InputPrompt: "Which region first?",
	}}
}

// Workers returns the options of a mock hosting the three workers, the
// third with the given misbehavior. Cards are v0.3, the dialect that still
// has stateTransitionHistory.
func Workers(misbehavior string) []testkit.Option {
	opts := []testkit.Option{
		testkit.WithSeed(7),
		testkit.WithAgents(workerNames...),
		testkit.WithDialect(wire.V03),
		testkit.WithStepDelay(10 * time.Millisecond),
	}
	for _, n := range workerNames {
		opts = append(opts, testkit.WithCardChange(n, declareLikeTheField))
	}
	return append(opts, testkit.WithBehavior(workerNames[2], misbehavior))
}

// Worker is a discovered worker.
type Worker struct {
	Name     string
	Client   *testkit.Client
	Card     *cards.Card
	Declared reconcile.Declared
}

// Discover reads the three workers' cards, as the coordinator did.
func Discover(ctx context.Context, mock *testkit.Mock, opts ...testkit.ClientOption) ([]Worker, error) {
	var out []Worker
	for _, n := range workerNames {
		c, card, err := testkit.DiscoverClient(ctx, mock.CardURL(n), opts...)
		if err != nil {
			return nil, fmt.Errorf("discover %s: %w", n, err)
		}
		out = append(out, Worker{Name: n, Client: c, Card: card, Declared: reconcile.Declare(card, reconcile.Policy{})})
	}
	return out, nil
}

// Request is the coordinator's request. With tenant it carries
// metadata.tenant, which the misbehaving worker of the field honours.
func Request(tenant bool) *wire.Message {
	m := &wire.Message{MessageID: "req-" + fmt.Sprint(time.Now().UnixNano()), Role: wire.RoleUser,
		Parts:    []wire.Part{wire.TextPart("Plan the rollout of release 4.2.")},
		Metadata: map[string]any{"skillId": SkillID}}
	if tenant {
		m.Metadata["tenant"] = "acme"
	}
	return m
}

// Answer is the coordinator's answer to the worker's question. It carries
// no tenant: the field's root cause.
func Answer() *wire.Message {
	return &wire.Message{MessageID: "ans-" + fmt.Sprint(time.Now().UnixNano()), Role: wire.RoleUser,
		Parts: []wire.Part{wire.TextPart("Start with eu-west.")}}
}

// ErrPollLimit is what the naive coordinator returns when the test's bound
// on its polling is reached; in the field it had no bound.
var ErrPollLimit = errors.New("naive coordinator: poll limit reached, task still not finished")

// Naive is the coordinator of the field note: its state machine is the
// lifecycle the card implies (submitted → working → input-required →
// working → completed), it advances only on the next expected state, and it
// trusts that a follow-up continues the task it named.
type Naive struct {
	Client *testkit.Client
	// Expected is the card-derived lifecycle.
	Expected []wire.TaskState
	// NeedsInput: the card implies the skill asks for input, so the naive
	// coordinator supplies it after InputWait even without input-required.
	NeedsInput bool
	// InputWait is how long it waits on the stream for input-required.
	InputWait time.Duration
	// PollInterval is the pause between two GetTask polls.
	PollInterval time.Duration
	// MaxPolls bounds the polling in tests; 0 polls for ever, as in the
	// field.
	MaxPolls int
}

// NewNaive builds the naive coordinator of a worker from its card.
func NewNaive(w Worker, maxPolls int) *Naive {
	exp := reconcile.Expect(w.Declared, SkillID)
	return &Naive{Client: w.Client, Expected: exp.Expected(), NeedsInput: exp.Skill.NeedsInput,
		InputWait: 150 * time.Millisecond, PollInterval: 5 * time.Millisecond, MaxPolls: maxPolls}
}

type item struct {
	ev  wire.Event
	err error
}

// Run sends req, answers with answer when its state machine says so, and
// polls the original task until it is terminal. It returns the original
// task id.
func (n *Naive) Run(ctx context.Context, req, answer *wire.Message) (string, error) {
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	seq, err := n.Client.Stream(sctx, req)
	if err != nil {
		return "", err
	}
	ch := make(chan item)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for ev, err := range seq {
			select {
			case ch <- item{ev, err}:
			case <-sctx.Done():
				return
			}
		}
	}()
	defer func() { stop(); <-done }()

	cursor := 0
	advance := func(s wire.TaskState) {
		if cursor+1 < len(n.Expected) && n.Expected[cursor+1] == s {
			cursor++
		}
	}
	var id, ctxID string
	answered := false
	reply := func() error {
		answered = true
		m := *answer
		m.TaskID, m.ContextID = id, ctxID
		// The answer names the task, so the naive coordinator takes
		// whatever comes back as that task continuing.
		_, err := n.Client.Send(ctx, &m, reconcile.SendOptions{})
		return err
	}
	wait := time.NewTimer(n.InputWait)
	defer wait.Stop()
stream:
	for {
		select {
		case it, ok := <-ch:
			if !ok || it.err != nil {
				break stream
			}
			if it.ev.Task != nil && id == "" {
				id, ctxID = it.ev.Task.ID, it.ev.Task.ContextID
			}
			s := it.ev.State()
			if s.Terminal() {
				return id, nil
			}
			advance(s)
			if n.Expected[cursor] == wire.StateInputRequired {
				if err := reply(); err != nil {
					return id, err
				}
				break stream
			}
		case <-wait.C:
			break stream
		case <-ctx.Done():
			return id, ctx.Err()
		}
	}
	if id == "" {
		return "", errors.New("naive coordinator: no task acknowledged")
	}
	if !answered && n.NeedsInput && n.Expected[cursor] == wire.StateWorking {
		// The field step 3: the card says the skill needs input, so supply it.
		if err := reply(); err != nil {
			return id, err
		}
	}
	for polls := 0; n.MaxPolls == 0 || polls < n.MaxPolls; polls++ {
		select {
		case <-time.After(n.PollInterval):
		case <-ctx.Done():
			return id, ctx.Err()
		}
		t, err := n.Client.GetTask(ctx, id)
		if err != nil {
			return id, err
		}
		if t.Status.State.Terminal() {
			return id, nil
		}
		advance(t.Status.State)
		if n.Expected[cursor] == wire.StateInputRequired && !answered {
			if err := reply(); err != nil {
				return id, err
			}
		}
	}
	return id, ErrPollLimit
}

// Reconcile drives the worker's skill with the reconciling driver, with
// short bounds so that the example runs in well under a second.
func Reconcile(ctx context.Context, w Worker, req *wire.Message) (*reconcile.Result, error) {
	d := &reconcile.Driver{
		Agent:           w.Client,
		Card:            w.Declared,
		PollInterval:    20 * time.Millisecond,
		WorkingDeadline: 300 * time.Millisecond,
	}
	return d.Run(ctx, SkillID, req, func(*wire.Message) *wire.Message { return Answer() })
}

// printT prints assertion failures instead of failing a test.
type printT struct{ failed bool }

func (p *printT) Errorf(format string, args ...any) {
	p.failed = true
	fmt.Printf(format+"\n", args...)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, spec := range []string{FieldIncident, SkipWorking, NeverTerminal} {
		fmt.Printf("=== gamma: %s\n", spec)
		for _, tenant := range []bool{false, true} {
			if spec != FieldIncident && tenant {
				continue
			}
			fmt.Printf("--- naive coordinator (request tenant=%v)\n", tenant)
			if err := scenario(ctx, spec, func(w Worker) string {
				id, err := NewNaive(w, 40).Run(ctx, Request(tenant), Answer())
				return fmt.Sprintf("task %s: %v", id, errOrOK(err))
			}); err != nil {
				return err
			}
			fmt.Printf("--- reconciling driver (request tenant=%v)\n", tenant)
			if err := scenario(ctx, spec, func(w Worker) string {
				res, err := Reconcile(ctx, w, Request(tenant))
				return fmt.Sprintf("task %s: %s, canceled %v: %v", res.TaskID, res.Outcome, res.Canceled, errOrOK(err))
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func errOrOK(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// scenario starts a fresh mock, runs client against each worker and prints
// what the journal says about orphans.
func scenario(ctx context.Context, spec string, client func(Worker) string) error {
	mock, err := testkit.NewServer(Workers(spec)...)
	if err != nil {
		return err
	}
	defer mock.Close()
	workers, err := Discover(ctx, mock)
	if err != nil {
		return err
	}
	defer func() {
		for _, w := range workers {
			w.Client.CloseIdleConnections()
		}
	}()
	for _, w := range workers {
		fmt.Printf("%s: %s\n", w.Name, client(w))
	}
	// Let a blocking continuation's task settle before reading.
	time.Sleep(20 * time.Millisecond)
	var journal []server.Entry = mock.Journal()
	p := &printT{}
	if testkit.AssertNoOrphans(p, journal) {
		fmt.Println("journal: no orphans")
	} else {
		fmt.Println(strings.Repeat("-", 3), "journal: orphans above")
	}
	return nil
}
