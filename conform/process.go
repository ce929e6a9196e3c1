package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Outcome is the line a client prints on stdout when it is done.
type Outcome struct {
	Outcome string `json:"outcome"`
	TaskID  string `json:"taskId,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// Outcomes lists the values a client may report, in the contract's order.
var Outcomes = []string{"completed", "failed", "canceled", "rejected", "input-required", "auth-required", "diverged", "timeout", "error"}

// The limits of what the runner keeps of a client's output: stdout is read
// whole (a client that floods it is not blocked) but only its start is kept,
// and only the end of stderr, where a crash is explained.
const (
	stdoutKeep  = 16 << 10
	stderrKeep  = 16 << 10
	maxLineSize = 64 << 10
)

// Process is what the runner observed of the client process.
type Process struct {
	// Command is the command run, after substitution.
	Command []string `json:"command"`
	// StartError says why the command could not be started.
	StartError string `json:"startError,omitempty"`
	// ExitCode is the exit status; -1 when the process was killed.
	ExitCode int `json:"exitCode"`
	// Killed is set when the runner killed the client at the deadline plus
	// the grace period.
	Killed bool `json:"killed,omitempty"`
	// Signal names the signal that ended the process, if any.
	Signal string `json:"signal,omitempty"`
	// DurationMS is the time from start to exit.
	DurationMS int64 `json:"durationMs"`
	// Strays counts processes of the client's process group still running
	// after it exited; the runner killed them.
	Strays int `json:"strays,omitempty"`
	// StdoutBytes is the size of everything printed on stdout.
	StdoutBytes int64 `json:"stdoutBytes"`
	// Stdout is the start of stdout (16 KiB at most).
	Stdout string `json:"stdout,omitempty"`
	// Stderr is the end of stderr (16 KiB at most).
	Stderr string `json:"stderr,omitempty"`
	// OutcomeLines counts the stdout lines that are outcome objects.
	OutcomeLines int `json:"outcomeLines"`
	// Outcome is the last outcome line, parsed.
	Outcome *Outcome `json:"outcome,omitempty"`
	// OutcomeProblem says what is wrong with the outcome line(s), if
	// anything.
	OutcomeProblem string `json:"outcomeProblem,omitempty"`

	started, exited time.Time
}

// clientRun is one execution of the client command.
type clientRun struct {
	argv     []string
	env      []string
	deadline time.Duration // the scenario's deadline
	grace    time.Duration // kill at deadline + grace
}

// run starts the client in its own process group, waits for it (killing the
// whole group at deadline + grace, and any stray left after it exits) and
// collects its output. It never waits longer than deadline + grace plus a
// short bound for the pipes.
func (cr clientRun) run(ctx context.Context) *Process {
	p := &Process{Command: cr.argv, ExitCode: -1}
	outR, outW, err := os.Pipe()
	if err != nil {
		p.StartError = err.Error()
		return p
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		p.StartError = err.Error()
		return p
	}
	cmd := exec.Command(cr.argv[0], cr.argv[1:]...)
	cmd.Env = cr.env
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.started = time.Now()
	err = cmd.Start()
	// The child has its own copies of the write ends; ours must go, or the
	// readers never see EOF.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		p.exited = time.Now()
		p.StartError = describeStartError(cr.argv[0], err)
		return p
	}
	pgid := cmd.Process.Pid
	var out stdoutReader
	var errTail tailBuffer
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); out.consume(outR) }()
	go func() { defer readers.Done(); _, _ = io.Copy(&errTail, errR) }()

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	kill := time.NewTimer(cr.deadline + cr.grace)
	defer kill.Stop()
	var werr error
	select {
	case werr = <-waited:
	case <-kill.C:
		p.Killed = true
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		werr = <-waited
	case <-ctx.Done():
		p.Killed = true
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		werr = <-waited
	}
	p.exited = time.Now()
	p.DurationMS = p.exited.Sub(p.started).Milliseconds()
	// Whatever the client forked into its group dies with it.
	if n := len(groupMembers(pgid)); n > 0 {
		if !p.Killed {
			p.Strays = n
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGroupGone(pgid, 2*time.Second)
	// A process that left the group (setsid) may still hold the pipes:
	// read what is there and stop.
	_ = outR.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_ = errR.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	readers.Wait()
	outR.Close()
	errR.Close()

	var exitErr *exec.ExitError
	switch {
	case werr == nil:
		p.ExitCode = 0
	case errors.As(werr, &exitErr):
		p.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.Signal = ws.Signal().String()
		}
	}
	p.StdoutBytes, p.Stdout = out.total, string(out.head)
	p.Stderr = errTail.String()
	p.OutcomeLines = len(out.outcomes)
	switch {
	case len(out.outcomes) == 0 && out.badOutcome != "":
		p.OutcomeProblem = out.badOutcome
	case len(out.outcomes) == 0:
		p.OutcomeProblem = "no outcome line on stdout (expected one line like {\"outcome\":\"completed\",\"taskId\":\"…\"})"
	default:
		o := out.outcomes[len(out.outcomes)-1]
		p.Outcome = &o
		if len(out.outcomes) > 1 {
			p.OutcomeProblem = fmt.Sprintf("%d outcome lines on stdout; the contract is one (the last is used)", len(out.outcomes))
		}
	}
	return p
}

func describeStartError(name string, err error) string {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("cannot start the client: %q not found (is it installed and on PATH? the command is split like a shell would, without a shell)", name)
	}
	return "cannot start the client: " + err.Error()
}

// stdoutReader keeps the start of stdout and every outcome line, reading
// line by line with a bound on the line length.
type stdoutReader struct {
	total      int64
	head       []byte
	line       []byte
	overlong   bool
	outcomes   []Outcome
	badOutcome string
}

func (s *stdoutReader) consume(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		s.feed(buf[:n])
		if err != nil {
			if len(s.line) > 0 && !s.overlong {
				s.endLine()
			}
			return
		}
	}
}

func (s *stdoutReader) feed(b []byte) {
	s.total += int64(len(b))
	if room := stdoutKeep - len(s.head); room > 0 {
		s.head = append(s.head, b[:min(room, len(b))]...)
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if !s.overlong {
			if len(s.line)+len(chunk) > maxLineSize {
				s.overlong, s.line = true, s.line[:0]
			} else {
				s.line = append(s.line, chunk...)
			}
		}
		if i < 0 {
			return
		}
		if !s.overlong {
			s.endLine()
		}
		s.overlong, s.line = false, s.line[:0]
		b = b[i+1:]
	}
}

func (s *stdoutReader) endLine() {
	text := strings.TrimSpace(string(s.line))
	if !strings.HasPrefix(text, "{") {
		return
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &raw) != nil {
		return
	}
	if _, ok := raw["outcome"]; !ok {
		return
	}
	var o Outcome
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		s.badOutcome = fmt.Sprintf("outcome line %.200q does not match {\"outcome\": string, \"taskId\": string, \"detail\": string}: %v", text, err)
		return
	}
	if !validOutcome(o.Outcome) {
		s.badOutcome = fmt.Sprintf("outcome %q is not one of %s", o.Outcome, strings.Join(Outcomes, ", "))
		return
	}
	s.outcomes = append(s.outcomes, o)
}

func validOutcome(o string) bool {
	for _, v := range Outcomes {
		if v == o {
			return true
		}
	}
	return false
}

// tailBuffer keeps the last stderrKeep bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*stderrKeep {
		t.b = append(t.b[:0], t.b[len(t.b)-stderrKeep:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.b) > stderrKeep {
		return string(t.b[len(t.b)-stderrKeep:])
	}
	return string(t.b)
}
