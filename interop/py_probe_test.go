package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pySDKVersion is the a2a-sdk version pinned in py/requirements.txt; the
// tests refuse to run against anything else.
const pySDKVersion = "1.3.0"

// pyPython is the interpreter of the interop venv (make interop-deps).
var pyPython = filepath.Join("py", ".venv", "bin", "python")

// pyTransports are the two HTTP bindings of the Python SDK's client, which
// the behavior tests drive; TestPythonClient drives its gRPC transport too.
var pyTransports = []string{"JSONRPC", "HTTP+JSON"}

// requirePyInstalled fails (never skips) when the Python SDK's venv is
// missing: the interop proof is only a proof if it runs.
func requirePyInstalled(t *testing.T) {
	t.Helper()
	_, err := os.Stat(pyPython)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run `make interop-deps` (from the repository root; needs python3 with venv) before `go test`", pyPython)
	}
	require.NoError(t, err)
}

// pyJob is one call of py/probe.py (see its docstring for the actions).
type pyJob struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
	Action    string `json:"action"`
	Arg       string `json:"arg,omitempty"`
	TimeoutMS int    `json:"timeoutMs,omitempty"`
}

// pyTask is a task as probe.py summarises it.
type pyTask struct {
	ID           string `json:"id"`
	ContextID    string `json:"contextId"`
	State        string `json:"state"`
	Artifacts    int    `json:"artifacts"`
	ArtifactText string `json:"artifactText"`
	StatusText   string `json:"statusText"`
	History      int    `json:"history"`
}

// pyPush is one notification that probe.py's webhook received.
type pyPush struct {
	Tokens      map[string]string `json:"tokens"` // by lower-case header name
	ContentType string            `json:"contentType"`
	Decoded     *jsEvent          `json:"decoded"`
	DecodeError *jsError          `json:"decodeError"`
}

// pyResult is what probe.py observed in one job.
type pyResult struct {
	Transport string `json:"transport"`
	Action    string `json:"action"`
	Card      *struct {
		Streaming  bool `json:"streaming"`
		Signatures int  `json:"signatures"`
	} `json:"card"`
	Extended *struct {
		Signatures int `json:"signatures"`
	} `json:"extended"`
	Result *pyTask     `json:"result"`
	Events []jsEvent   `json:"events"`
	Ended  bool        `json:"ended"`
	Pages  [][]string  `json:"pages"`
	Pushes []pyPush    `json:"pushes"`
	Error  *jsError    `json:"error"`
	Life   pyLifecycle `json:"-"`
	Raw    string      `json:"-"`
}

// pyLifecycle is the lifecycle action's summary.
type pyLifecycle struct {
	Failures  []jsError `json:"failures"`
	Send      *pyTask   `json:"send"`
	Stream    *jsStream `json:"stream"`
	Get       *pyTask   `json:"get"`
	List      *jsList   `json:"list"`
	Subscribe *struct {
		TaskID      string    `json:"taskId"`
		StateBefore string    `json:"stateBefore"`
		Events      []jsEvent `json:"events"`
	} `json:"subscribe"`
	Cancel        *jsCancel `json:"cancel"`
	InputRequired *struct {
		First pyTask `json:"first"`
		Reply pyTask `json:"reply"`
	} `json:"inputRequired"`
	Errors map[string]jsError `json:"errors"`
}

// eventKinds renders the events as "kind:STATE" strings, as jsProbe's do.
func (r pyResult) eventKinds() []string {
	return jsProbeResult{Events: r.Events}.eventKinds()
}

// pyProbe runs the jobs in one Python process (py/probe.py) and returns
// what the SDK observed in each, in order.
func pyProbe(t *testing.T, jobs ...pyJob) []pyResult {
	t.Helper()
	requirePyInstalled(t)
	// probe.py runs four jobs at a time, each bounded (10s by default).
	total := 0
	for _, j := range jobs {
		if j.TimeoutMS == 0 {
			j.TimeoutMS = 10000
		}
		total += j.TimeoutMS
	}
	in, err := json.Marshal(jobs)
	require.NoError(t, err)
	// The interpreter's start-up is slow on a loaded machine: a minute on
	// top of the jobs' bounds.
	ctx, cancel := context.WithTimeout(t.Context(), time.Duration(total)*time.Millisecond+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pyPython, filepath.Join("py", "probe.py"))
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "py/probe.py failed:\n%s", stderr.String())
	var doc struct {
		SDK     string            `json:"sdk"`
		Results []json.RawMessage `json:"results"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), "probe.py printed:\n%s", stdout.String())
	require.Equal(t, pySDKVersion, doc.SDK, "installed a2a-sdk differs from py/requirements.txt: run `make interop-deps`")
	require.Len(t, doc.Results, len(jobs))
	out := make([]pyResult, len(jobs))
	for i, raw := range doc.Results {
		require.NoError(t, json.Unmarshal(raw, &out[i]))
		require.NoError(t, json.Unmarshal(raw, &out[i].Life))
		out[i].Raw = string(raw)
	}
	if os.Getenv("INTEROP_DUMP") != "" {
		t.Log(stdout.String())
	}
	return out
}

// pyEach is one job per Python transport.
func pyEach(url, action, arg string) []pyJob {
	var jobs []pyJob
	for _, tr := range pyTransports {
		jobs = append(jobs, pyJob{URL: url, Transport: tr, Action: action, Arg: arg})
	}
	return jobs
}

// assertPyLifecycle checks what probe.py's lifecycle action saw of an
// honest agent: send completed with its artifact, a stream of the honest
// events to its end, get of the same task with history, a subscription to
// a running task ended by the cancel made meanwhile, that cancel, an
// input-required task continued by the reply, and the three typed errors.
// ListTasks is checked elsewhere: v0.3 has none.
func assertPyLifecycle(t *testing.T, l pyLifecycle) {
	t.Helper()
	if assert.NotNil(t, l.Send, "send") {
		assert.Equal(t, "TASK_STATE_COMPLETED", l.Send.State)
		assert.Equal(t, 1, l.Send.Artifacts)
		assert.NotEmpty(t, l.Send.ArtifactText)
	}
	if assert.NotNil(t, l.Stream, "stream") {
		assert.True(t, l.Stream.Ended)
		assert.Equal(t, jsHonest, jsProbeResult{Events: l.Stream.Events}.eventKinds())
		for _, e := range l.Stream.Events {
			assert.Equal(t, l.Stream.Events[0].TaskID, e.TaskID, "event of another task: %+v", e)
		}
	}
	if assert.NotNil(t, l.Get, "get") && l.Send != nil {
		assert.Equal(t, l.Send.ID, l.Get.ID)
		assert.Equal(t, "TASK_STATE_COMPLETED", l.Get.State)
		assert.Equal(t, l.Send.ArtifactText, l.Get.ArtifactText)
		assert.Positive(t, l.Get.History)
	}
	if assert.NotNil(t, l.Subscribe, "subscribe") && assert.NotEmpty(t, l.Subscribe.Events) {
		ev := l.Subscribe.Events
		assert.Equal(t, "task", ev[0].Kind, "a re-attached stream starts with the snapshot")
		assert.Equal(t, l.Subscribe.TaskID, ev[0].TaskID)
		assert.Contains(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, ev[0].State)
		assert.Equal(t, "statusUpdate:TASK_STATE_CANCELED", jsProbeResult{Events: ev[len(ev)-1:]}.eventKinds()[0],
			"the cancel made meanwhile ends the subscription")
	}
	if assert.NotNil(t, l.Cancel, "cancel") {
		assert.Contains(t, []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, l.Cancel.StateBefore)
		assert.Equal(t, "TASK_STATE_CANCELED", l.Cancel.State)
		assert.Equal(t, "TASK_STATE_CANCELED", l.Cancel.StateAfter)
	}
	if assert.NotNil(t, l.InputRequired, "inputRequired") {
		assert.Equal(t, "TASK_STATE_INPUT_REQUIRED", l.InputRequired.First.State)
		assert.NotEmpty(t, l.InputRequired.First.StatusText, "input-required carries the agent's question")
		assert.Equal(t, l.InputRequired.First.ID, l.InputRequired.Reply.ID, "the reply continues the same task")
		assert.Equal(t, "TASK_STATE_COMPLETED", l.InputRequired.Reply.State)
	}
	// The SDK types its errors from what the mock sends: v1.0's ErrorInfo,
	// v0.3's error body type or gRPC status message.
	assert.Equal(t, "TaskNotFoundError", l.Errors["getUnknown"].Name, "%+v", l.Errors["getUnknown"])
	assert.Equal(t, "TaskNotCancelableError", l.Errors["cancelTerminal"].Name, "%+v", l.Errors["cancelTerminal"])
	assert.Equal(t, "UnsupportedOperationError", l.Errors["sendToTerminal"].Name, "%+v", l.Errors["sendToTerminal"])
}
