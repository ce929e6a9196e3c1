// Package judge holds conform's checks and what they judge: the facts of
// one scenario run (Run: the journal, the wire records, the client's
// process, what the scenario expects; Analyse gathers the tasks the client
// started) and each check's judgement of them (Check.Apply), a pass or a
// failure with the evidence it rests on.
//
// It judges a finished run; running the client, hosting the mock and
// writing reports are package conform's.
package judge

import (
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/server"
)

// Check is one named, documented judgement of a scenario run.
type Check struct {
	// ID names the check in scenario files, reports and baselines.
	ID string
	// Summary is one line; Doc says exactly what passes and what fails.
	Summary, Doc string

	judge func(r *Run) Verdict
}

// Apply judges r (analysed) with the check.
func (c *Check) Apply(r *Run) Verdict { return c.judge(r) }

// Verdict is a check's result before it goes into a report.
type Verdict struct {
	Pass     bool
	Reason   string
	Evidence Evidence
}

// Evidence is what a check looked at: the journal entries and wire records
// its Verdict rests on.
type Evidence struct {
	Journal []server.Entry `json:"journal,omitempty"`
	Wire    []WireRecord   `json:"wire,omitempty"`
}

func (e *Evidence) entry(es ...server.Entry) { e.Journal = append(e.Journal, es...) }
func (e *Evidence) record(ws ...WireRecord)  { e.Wire = append(e.Wire, ws...) }

func pass(reason string, ev Evidence) Verdict {
	return Verdict{Pass: true, Reason: reason, Evidence: ev}
}
func fail(ev Evidence, format string, args ...any) Verdict {
	return Verdict{Reason: fmt.Sprintf(format, args...), Evidence: ev}
}

// BaseChecks judge every scenario, whatever its file lists.
var BaseChecks = []string{"exits-in-time", "no-crash", "truthful-outcome", "no-orphans"}

// Checks returns every check, in the order reports list them.
func Checks() []*Check { return slices.Clone(allChecks) }

// CheckByID returns the check with the given id.
func CheckByID(id string) (*Check, bool) {
	for _, c := range allChecks {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}

// CheckIDs lists every check id.
func CheckIDs() []string {
	ids := make([]string, len(allChecks))
	for i, c := range allChecks {
		ids[i] = c.ID
	}
	return ids
}

var allChecks []*Check

func init() {
	allChecks = []*Check{
		{ID: "exits-in-time", Summary: "the client and everything it started exit before the deadline plus the grace period",
			Doc:   "Fails when the runner had to kill the client at A2AMOCK_DEADLINE_MS plus the grace period (--timeout), counted from the client's first request to the mock (its start-up, up to --startup, is not charged), when the client could not be started, and when processes the client started were still running after it exited, in its process group or elsewhere with its A2AMOCK_CONFORM_RUN marker (the runner kills them).",
			judge: judgeExitsInTime},
		{ID: "no-crash", Summary: "the client exits 0 after printing exactly one valid outcome line",
			Doc:   "Fails on a non-zero exit, a death by signal, a kill at the deadline, no outcome line on stdout, an outcome line that is not {\"outcome\": one of the contract's values, \"taskId\": string, \"detail\": string}, or more than one outcome line.",
			judge: judgeNoCrash},
		{ID: "truthful-outcome", Summary: "the reported outcome is one the scenario allows and matches what the agent did",
			Doc:   "The outcome must be one of the scenario's truthful outcomes (a broken contract is reported as diverged, failed, timeout or error, never as completed). An outcome that names a task state (completed, failed, canceled, rejected, input-required, auth-required) must be the last state the agent gave the reported task (or, without a taskId, some task the client started) by the time the client exited; in a multi-agent scenario completed needs a completed task on every agent.",
			judge: judgeTruthfulOutcome},
		{ID: "no-orphans", Summary: "every task the client started is terminal or canceled by the client when it exits",
			Doc:   "For every task the agent created for the client's messages (including one it created in answer to a continuation), the agent's last state before the client exited is terminal, or the client sent CancelTask for it before exiting.",
			judge: judgeNoOrphans},
		{ID: "bounded-polling", Summary: "GetTask per task at most maxPolls times, and never after a terminal state was answered",
			Doc:   "Counts the client's GetTask calls per task: at most the scenario's maxPolls (default 40), and none after an answer to the client (SendMessage, GetTask or CancelTask) carried a terminal state of that task. One GetTask the server handled within 250 ms of that answer is not counted when the client may have sent it first (it came on another connection, over HTTP/2, or while the answer was being written): a poll abandoned at the client's deadline can reach the handler after the CancelTask that followed it.",
			judge: judgeBoundedPolling},
		{ID: "continuation-carries-task-id", Summary: "the answer to input-required names the task's taskId and the same contextId",
			Doc:   "For every task the agent moved to input-required, the client's next message to that agent must carry the task's taskId and its contextId. Fails as well when the agent asked for input and the client sent no answer at all.",
			judge: judgeContinuation},
		{ID: "cancels-on-divergence", Summary: "when the agent breaks its contract the client cancels every task it left running, then leaves it alone",
			Doc:   "Every task the client started that the agent had not ended when the client exited must have been canceled by the client (CancelTask naming its id, which covers both the original task and one minted in answer to a continuation), and after canceling a task the client sends it no further message.",
			judge: judgeCancelsOnDivergence},
		{ID: "recovers-after-stream-loss", Summary: "after a stream ends or stalls without a terminal or interrupted state, the client asks (GetTask or re-subscribe)",
			Doc:   "For every stream of the client that the agent ended without a terminal or interrupted state (closed by a fault, ended by the timeline) or that the client left while its task was still running, the client must call GetTask or SubscribeToTask for that task after opening the stream (after the close, when the agent closed it).",
			judge: judgeRecovers},
		{ID: "sends-a2a-version", Summary: "every v1.0 request carries the A2A-Version header",
			Doc:   "Every request of the v1.0 method set (JSON-RPC methods such as SendMessage, and every HTTP+JSON call) carries A2A-Version: 1.0 (header or query parameter).",
			judge: judgeSendsVersion},
		{ID: "uses-declared-interface", Summary: "every call goes to a URL and binding the card declares",
			Doc:   "Every A2A request goes to an interface the agent's card declares: a JSON-RPC POST to a declared JSON-RPC URL with the method set of the interface's protocol version, an HTTP+JSON call under a declared HTTP+JSON URL.",
			judge: judgeDeclaredInterface},
		{ID: "discovers-via-card", Summary: "the client reads the agent's card (falling back to the legacy path on 404) before calling it",
			Doc:   "Before its first A2A call to an agent the client fetched that agent's card successfully (HTTP 200), from /.well-known/agent-card.json or, when that answered 404, from the legacy /.well-known/agent.json.",
			judge: judgeDiscovers},
		{ID: "honours-retry-after", Summary: "after a 429 or 503 with Retry-After, the next call waits at least that long",
			Doc:   "For every 429 or 503 answer that carried Retry-After, the client's next A2A request to that agent starts no sooner than Retry-After after the answer ended.",
			judge: judgeRetryAfter},
		{ID: "ignores-duplicate-events", Summary: "duplicated events do not make the client act twice",
			Doc:   "Per task the client answers input-required no more often than the agent actually entered input-required, and sends CancelTask at most once.",
			judge: judgeDuplicates},
	}
	allChecks = append(allChecks, clientChecks...)
	allChecks = append(allChecks, cardChecks...)
}
