// Command go-robust is the robust reference client of a2amock conform: it
// implements the client contract of docs/conformance.md on a2amock's
// reconciling driver (package testkit/reconcile) and passes every check of
// every scenario in the default suite, which proves that no check asks for
// the impossible. It reads the card itself (card.go): legacy path on 404,
// signature verified against the keys its jku names, revalidated with
// If-None-Match before every new message, and speaks the interface the card
// declares (JSON-RPC, or HTTP+JSON when that is all there is) through
// testkit.Client.
//
//	a2amock conform --client 'go run ./conformance/clients/go-robust'
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

func main() {
	deadline := 3 * time.Second
	if ms, err := strconv.Atoi(os.Getenv("A2AMOCK_DEADLINE_MS")); err == nil && ms > 0 {
		deadline = time.Duration(ms) * time.Millisecond
	}
	var urls []string
	if v := os.Getenv("A2A_AGENT_URLS"); v != "" {
		urls = strings.Split(v, ",")
	} else {
		urls = []string{os.Getenv("A2A_AGENT_URL")}
	}
	cfg := config{
		prompt:   os.Getenv("A2AMOCK_PROMPT"),
		input:    os.Getenv("A2AMOCK_INPUT"),
		deadline: deadline,
		poll:     os.Getenv("A2AMOCK_MODE") == "poll",
	}
	// Every agent is driven at once; the reported outcome is the first
	// agent's (in the given order) that did not complete.
	results := make([]outcome, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = cfg.drive(strings.TrimSuffix(u, "/"))
		}()
	}
	wg.Wait()
	final := results[0]
	for _, r := range results {
		if r.Outcome != "completed" {
			final = r
			break
		}
	}
	b, _ := json.Marshal(final)
	fmt.Println(string(b))
}

type outcome struct {
	Outcome string `json:"outcome"`
	TaskID  string `json:"taskId,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

type config struct {
	prompt, input string
	deadline      time.Duration
	poll          bool
}

// drive runs the task on one agent and says how it ended.
func (c config) drive(agentURL string) outcome {
	// The client keeps a margin before the runner's deadline to cancel
	// what it started and print its outcome.
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline*85/100)
	defer cancel()
	tr := &retryAfterTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
	hc := &http.Client{Transport: tr}
	defer hc.CloseIdleConnections()
	agent, err := discover(ctx, agentURL, hc)
	if err != nil {
		return outcome{Outcome: "error", Detail: err.Error()}
	}
	card := agent.card
	if needsBearer(card) {
		tr.bearer = os.Getenv("A2AMOCK_BEARER_TOKEN")
	}
	declared := reconcile.Declare(card, reconcile.Policy{})
	skill := ""
	if len(card.Skills) > 0 {
		skill = card.Skills[0].ID
	}
	d := &reconcile.Driver{
		Agent:           agent,
		Card:            declared,
		PollInterval:    c.deadline / 30,
		WorkingDeadline: c.deadline * 35 / 100,
		MaxTurns:        1,
		Poll:            c.poll,
		// A cancel sent after the deadline ended the run waits no longer
		// than cancelOpen's, well inside conform's grace period.
		CancelTimeout: 500 * time.Millisecond,
	}
	answered := false
	followUp := func(*wire.Message) *wire.Message {
		if answered {
			return nil
		}
		answered = true
		return &wire.Message{Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(c.input)}}
	}
	msg := &wire.Message{Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(c.prompt)}}
	res, err := d.Run(ctx, skill, msg, followUp)
	if errors.Is(err, errBadSignature) {
		// The card changed and its new signature does not verify: stop
		// using the agent.
		cancelOpen(agent.current(), res)
		return outcome{Outcome: "error", TaskID: firstID(res), Detail: err.Error()}
	}
	return c.conclude(ctx, agent, res, err)
}

// conclude maps the driver's result to an outcome, canceling whatever the
// agent left running that the driver did not cancel (tasks other than the
// one it was driving when the run ended).
func (c config) conclude(ctx context.Context, client reconcile.Agent, res *reconcile.Result, err error) outcome {
	taskID := ""
	if res != nil {
		taskID = res.TaskID
		if ids := firstTaskIDs(res); taskID == "" && len(ids) > 0 {
			taskID = ids[0]
		}
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		cancelOpen(client, res)
		return outcome{Outcome: "timeout", TaskID: taskID, Detail: fmt.Sprintf("no end within %s: %v", c.deadline, err)}
	}
	var div *reconcile.DivergenceError
	switch {
	case errors.As(err, &div):
		cancelOpen(client, res)
		return outcome{Outcome: "diverged", TaskID: taskID, Detail: div.Error()}
	case res != nil && res.Reissued && (errors.Is(err, reconcile.ErrNoInput) || errors.Is(err, reconcile.ErrTooManyTurns)):
		// The agent answered the continuation with another task and the
		// one-shot reissue asked for input again: the multi-turn contract
		// is broken, not merely unanswered.
		cancelOpen(client, res)
		return outcome{Outcome: "diverged", TaskID: taskID, Detail: "the continuation was answered with a new task; reissued as one message, the agent asked for input again: " + err.Error()}
	case errors.Is(err, reconcile.ErrNoInput), errors.Is(err, reconcile.ErrTooManyTurns):
		cancelOpen(client, res)
		return outcome{Outcome: "input-required", TaskID: taskID, Detail: err.Error()}
	case errors.Is(err, reconcile.ErrAuthRequired):
		cancelOpen(client, res)
		return outcome{Outcome: "auth-required", TaskID: taskID, Detail: err.Error()}
	case err != nil:
		cancelOpen(client, res)
		return outcome{Outcome: "error", TaskID: taskID, Detail: err.Error()}
	}
	switch res.Outcome {
	case reconcile.OutcomeCompleted, reconcile.OutcomeFailed, reconcile.OutcomeCanceled, reconcile.OutcomeRejected:
		return outcome{Outcome: string(res.Outcome), TaskID: taskID}
	case reconcile.OutcomeDiverged:
		cancelOpen(client, res)
		return outcome{Outcome: "diverged", TaskID: taskID}
	}
	cancelOpen(client, res)
	return outcome{Outcome: "error", TaskID: taskID, Detail: fmt.Sprintf("the task ended as %s (%s)", res.Outcome, res.State)}
}

// firstID is the id of the task an outcome is about.
func firstID(res *reconcile.Result) string {
	if res == nil {
		return ""
	}
	if res.TaskID != "" {
		return res.TaskID
	}
	if ids := firstTaskIDs(res); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

func firstTaskIDs(res *reconcile.Result) []string {
	if res == nil || res.Ledger == nil {
		return nil
	}
	var ids []string
	for _, t := range res.Ledger.Tasks() {
		ids = append(ids, t.TaskIDs...)
	}
	return ids
}

// cancelOpen cancels every task the ledger saw that is not terminal and
// that the driver did not cancel already, on a fresh short context: the
// run's own may be over.
func cancelOpen(client reconcile.Agent, res *reconcile.Result) {
	if res == nil || res.Ledger == nil {
		return
	}
	done := map[string]bool{}
	for _, id := range res.Canceled {
		done[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	for _, t := range res.Ledger.Tasks() {
		if t.Last().Terminal() {
			continue
		}
		for _, id := range t.TaskIDs {
			if !done[id] {
				done[id] = true
				_, _ = client.CancelTask(ctx, id)
			}
		}
	}
}
