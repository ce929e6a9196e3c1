package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/goleak"

	"testing"
)

// The test binary doubles as the client under test: with CONFORM_FAKE set,
// TestMain runs the fake client it names instead of the tests, so the
// runner is exercised on real processes without building anything.
const fakeEnv = "CONFORM_FAKE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeClient(mode))
	}
	goleak.VerifyTestMain(m)
}

// fakeCommand is the --client command running the fake client mode.
func fakeCommand(mode string) string {
	return fmt.Sprintf("env %s=%s %s", fakeEnv, mode, os.Args[0])
}

func fakeClient(mode string) int {
	switch mode {
	case "naive":
		return naiveClient()
	case "once":
		return onceClient()
	case "stream-left":
		return streamLeftClient()
	case "stream-final":
		return streamFinalClient()
	case "stream-exit":
		return streamExitClient()
	case "grpc", "grpc-eager", "grpc-no-tenant":
		return grpcClient(mode != "grpc-eager", mode != "grpc-no-tenant")
	case "exit3":
		fmt.Fprintln(os.Stderr, "fake: giving up at once")
		return 3
	case "hang":
		select {}
	case "flood":
		line := bytes.Repeat([]byte("x"), 1<<20)
		line[len(line)-1] = '\n'
		for range 24 {
			_, _ = os.Stdout.Write(line)
		}
		fmt.Println(`{"outcome":"error","detail":"after the flood"}`)
		return 0
	case "flood-one-line":
		chunk := bytes.Repeat([]byte("y"), 1<<20)
		for range 24 {
			_, _ = os.Stdout.Write(chunk)
		}
		return 0
	case "garbage":
		fmt.Println("starting…")
		fmt.Println(`{"outcome": 5}`)
		fmt.Println(`{"outcome": "great"}`)
		return 0
	case "fork":
		// A child in the client's process group that outlives it.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fakeEnv+"=sleeper")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if f := os.Getenv("CONFORM_FAKE_PIDFILE"); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
		}
		fmt.Println(`{"outcome":"error","detail":"forked a child"}`)
		return 0
	case "setsid":
		// A child that leaves the client's process group and session,
		// out of reach of a process-group kill.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fakeEnv+"=sleeper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if f := os.Getenv("CONFORM_FAKE_PIDFILE"); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
		}
		fmt.Println(`{"outcome":"error","detail":"started a child in its own session"}`)
		return 0
	case "slow-start":
		// An interpreter loading its SDK: a long start-up, then an
		// ordinary quick run: past the deadline plus the grace of
		// TestStartupIsNotCharged, counted from the start.
		time.Sleep(2200 * time.Millisecond)
		return onceClient()
	case "late-start":
		// A start-up past the allowance of TestNoRequestMeansNone, then an
		// ordinary quick run.
		time.Sleep(700 * time.Millisecond)
		return onceClient()
	case "slow-start-hang":
		time.Sleep(1500 * time.Millisecond)
		if resp, err := http.Get(strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/") + "/.well-known/agent-card.json"); err == nil {
			resp.Body.Close()
		}
		select {}
	case "sleeper":
		time.Sleep(60 * time.Second)
		return 0
	}
	fmt.Fprintf(os.Stderr, "fake: unknown mode %q\n", mode)
	return 2
}

// naiveClient is the client the field reports describe: it skips the card's
// legacy path, sends no A2A-Version, keeps v0.3's blocking beside v1.0's
// returnImmediately, answers input-required with a new message (no
// taskId), polls without bound or deadline, never cancels and reports
// completed whatever the task became.
func naiveClient() int {
	base := strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/")
	if resp, err := http.Get(base + "/.well-known/agent-card.json"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	msg := map[string]any{"messageId": "naive-1", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": os.Getenv("A2AMOCK_PROMPT")}}}
	t, err := naiveCall(base, "SendMessage", false, map[string]any{"message": msg, "configuration": map[string]any{"returnImmediately": true, "blocking": false}})
	if err != nil {
		fmt.Printf(`{"outcome":"error","detail":%q}`+"\n", err.Error())
		return 0
	}
	answered := false
	for {
		switch t.state() {
		case "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED":
			fmt.Printf(`{"outcome":"completed","taskId":%q}`+"\n", t.Task.ID)
			return 0
		case "TASK_STATE_INPUT_REQUIRED":
			if !answered {
				answered = true
				reply := map[string]any{"messageId": "naive-2", "role": "ROLE_USER", "contextId": t.Task.ContextID,
					"parts": []any{map[string]any{"text": os.Getenv("A2AMOCK_INPUT")}}}
				_, _ = naiveCall(base, "SendMessage", false, map[string]any{"message": reply, "configuration": map[string]any{"returnImmediately": true}})
			}
		}
		time.Sleep(20 * time.Millisecond)
		next, err := naiveCall(base, "GetTask", true, map[string]any{"id": t.Task.ID})
		if err == nil {
			t = next
		}
	}
}

// onceClient is deterministic: it reads the card, makes one blocking
// SendMessage with A2A-Version and reports the state it got (completed for
// any terminal state, which is untruthful for failed).
func onceClient() int {
	base := strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/")
	if resp, err := http.Get(base + "/.well-known/agent-card.json"); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	msg := map[string]any{"messageId": "once-1", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": os.Getenv("A2AMOCK_PROMPT")}}}
	t, err := naiveCall(base, "SendMessage", true, map[string]any{"message": msg})
	if err != nil {
		fmt.Printf(`{"outcome":"error","detail":%q}`+"\n", err.Error())
		return 0
	}
	fmt.Printf(`{"outcome":"completed","taskId":%q,"detail":%q}`+"\n", t.Task.ID, t.state())
	return 0
}

type naiveResult struct {
	Task struct {
		ID        string `json:"id"`
		ContextID string `json:"contextId"`
		Status    struct {
			State string `json:"state"`
		} `json:"status"`
	} `json:"task"`
	// GetTask answers the task itself.
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State string `json:"state"`
	} `json:"status"`
}

func (r *naiveResult) state() string { return r.Task.Status.State }

// naiveCall makes one JSON-RPC call; version sends A2A-Version.
func naiveCall(base, method string, version bool, params any) (*naiveResult, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, base+"/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if version {
		req.Header.Set("A2A-Version", "1.0")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var env struct {
		Result *naiveResult     `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return nil, err
	}
	if env.Result == nil {
		return nil, fmt.Errorf("%s failed", method)
	}
	r := env.Result
	if r.Task.ID == "" && r.ID != "" {
		r.Task.ID, r.Task.ContextID, r.Task.Status = r.ID, r.ContextID, r.Status
	}
	return r, nil
}
