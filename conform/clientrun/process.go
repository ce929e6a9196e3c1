package clientrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
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
	StdoutKeep  = 16 << 10
	StderrKeep  = 16 << 10
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
	// StartupMS is the client's start-up as the runner counted it: the
	// time from start to its first request to the mock (ReadyInTime), or
	// to the end of the start-up allowance when it made none by then, or
	// to its exit when that came first. The deadline (and the kill at
	// deadline plus grace) counts from there.
	StartupMS int64 `json:"startupMs"`
	// NoRequest is set when the client made no request to the mock at all
	// before it exited, whatever the reason: it crashed or gave up at
	// once, or hung before its first request until it was killed. A client
	// that made its first request after the start-up allowance made one.
	NoRequest bool `json:"noRequest,omitempty"`
	// ReadyInTime is set when the client made its first request within the
	// start-up allowance, so that the deadline counted from it (not in the
	// report: StartupMS and the exits-in-time reason say it).
	ReadyInTime bool `json:"-"`
	// Strays counts processes the client left running after it exited: in
	// its process group, or elsewhere with its run marker in their
	// environment (A2AMOCK_CONFORM_RUN); the runner killed them.
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

	// Started and Exited are when the process started and ended (not
	// in the report).
	Started, Exited time.Time `json:"-"`
}

// Command is one execution of a client command, as the runner starts it.
type Command struct {
	// Argv is the command and its arguments, after substitution.
	Argv []string
	// Env is the client's whole environment.
	Env []string
	// Deadline is the scenario's deadline; the client is killed at
	// Deadline + Grace.
	Deadline, Grace time.Duration
	// Startup is the most start-up time not charged to the client: the
	// deadline counts from its first request (Ready closed), or from
	// Startup after the start when it made none by then. A nil Ready is
	// no signal: the deadline counts from Startup, and NoRequest is never
	// set.
	Startup time.Duration
	Ready   <-chan struct{}
	// ReadyAt says when Ready was closed.
	ReadyAt func() time.Time
	// Marker is the NAME=value put in the client's environment (NewMarker),
	// by which the runner finds what the client left running outside its
	// process group.
	Marker string
	// Exited, if set, is called once, as soon as the client's process has
	// ended (or could not start), in the goroutine that called Run: before
	// Run kills what the client left running and reads the rest of its
	// output, which can take seconds in which the agents go on, so that
	// the caller can note what the client lived to see (conform cuts the
	// mock's journal there).
	Exited func()
}

// Run starts the client in its own process group, waits for it (killing the
// whole group and every process carrying its marker at startup + deadline
// + grace, and any stray left after it exits) and collects its output. It
// never waits longer than startup + deadline + grace plus a short bound for
// the pipes.
func (cr Command) Run(ctx context.Context) *Process {
	p := &Process{Command: cr.Argv, ExitCode: -1}
	ended := func() {
		p.Exited = time.Now()
		if cr.Exited != nil {
			cr.Exited()
		}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		ended()
		p.StartError = err.Error()
		return p
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		ended()
		p.StartError = err.Error()
		return p
	}
	cmd := exec.Command(cr.Argv[0], cr.Argv[1:]...)
	cmd.Env = cr.Env
	if cr.Marker != "" {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], cr.Marker)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.Started = time.Now()
	err = cmd.Start()
	// The child has its own copies of the write ends; ours must go, or the
	// readers never see EOF.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		ended()
		p.StartError = describeStartError(cr.Argv[0], err)
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
	werr := cr.wait(ctx, p, pgid, waited)
	ended()
	// Requests count until the exit: what the client left running may make
	// some later, and they are not its.
	p.NoRequest = cr.Ready != nil && !closed(cr.Ready)
	p.DurationMS = p.Exited.Sub(p.Started).Milliseconds()
	// Whatever the client left running dies with it: its process group,
	// and what carries its marker (a child that called setsid).
	if n := len(cr.leftovers(pgid)); n > 0 && !p.Killed {
		p.Strays = n
	}
	cr.waitGone(pgid, 2*time.Second)
	// A process out of reach (it left the group and dropped the marker
	// from its environment) may still hold the pipes: read what is there
	// and stop.
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

// wait waits for the client to exit. The deadline plus the grace period
// counts from the client's first request to the mock (its start-up is not
// charged to it: an interpreter loading an SDK on a loaded machine takes
// seconds), or from the end of the start-up allowance when it has made
// none by then; at its end the client and everything it started are
// killed.
func (cr Command) wait(ctx context.Context, p *Process, pgid int, waited <-chan error) error {
	startup := time.NewTimer(cr.Startup)
	defer startup.Stop()
	ready, startupC := cr.Ready, startup.C
	var kill <-chan time.Time
	arm := func(at time.Time, fromRequest bool) {
		ready, startupC = nil, nil
		p.StartupMS, p.ReadyInTime = at.Sub(p.Started).Milliseconds(), fromRequest
		t := time.NewTimer(time.Until(at.Add(cr.Deadline + cr.Grace)))
		kill = t.C
	}
	for {
		select {
		case err := <-waited:
			if ready != nil {
				select {
				case <-ready:
					arm(cr.ReadyAt(), true)
				default:
					// It exited before any request.
					arm(time.Now(), false)
				}
			}
			return err
		case <-ready:
			arm(cr.ReadyAt(), true)
		case <-startupC:
			arm(time.Now(), false)
		case <-kill:
			p.Killed = true
			cr.killAll(pgid)
			return <-waited
		case <-ctx.Done():
			p.Killed = true
			cr.killAll(pgid)
			return <-waited
		}
	}
}

// closed reports whether c is closed (Ready: a request was made).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// leftovers lists the live processes of the client's process group and
// those elsewhere that carry its marker.
func (cr Command) leftovers(pgid int) []int {
	pids := groupMembers(pgid)
	for _, pid := range markedProcesses(cr.Marker) {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killAll kills the client's process group and every process carrying its
// marker, and returns the marked processes it killed.
func (cr Command) killAll(pgid int) []int {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	marked := markedProcesses(cr.Marker)
	for _, pid := range marked {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return marked
}

// waitGone waits until nothing of the client is left, killing again what
// appeared meanwhile (a fork in flight), at most for d. A marked process
// it killed counts until it is a zombie or gone: while it exits, after
// its memory is released and before it is a zombie, its environment can
// no longer be read, so the marker alone would call it gone too early.
func (cr Command) waitGone(pgid int, d time.Duration) bool {
	end := time.Now().Add(d)
	killed := cr.killAll(pgid)
	for {
		if len(cr.leftovers(pgid)) == 0 && !slices.ContainsFunc(killed, live) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
		killed = append(killed, cr.killAll(pgid)...)
	}
}

// live reports whether pid is a process that has not yet exited (not a
// zombie).
func live(pid int) bool {
	_, ok := procGroup(pid)
	return ok
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
	if room := StdoutKeep - len(s.head); room > 0 {
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
	if !ValidOutcome(o.Outcome) {
		s.badOutcome = fmt.Sprintf("outcome %q is not one of %s", o.Outcome, strings.Join(Outcomes, ", "))
		return
	}
	s.outcomes = append(s.outcomes, o)
}

// ValidOutcome reports whether o is one of the outcomes a client may
// report (Outcomes).
func ValidOutcome(o string) bool {
	for _, v := range Outcomes {
		if v == o {
			return true
		}
	}
	return false
}

// tailBuffer keeps the last StderrKeep bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*StderrKeep {
		t.b = append(t.b[:0], t.b[len(t.b)-StderrKeep:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.b) > StderrKeep {
		return string(t.b[len(t.b)-StderrKeep:])
	}
	return string(t.b)
}
