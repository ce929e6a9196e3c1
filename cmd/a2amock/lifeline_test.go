package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/syncbuf"
)

// asA2amock is set in the environment of this test binary run as a child
// process: it is then a2amock with these arguments (space-separated).
const asA2amock = "TEST_A2AMOCK_ARGS"

var servingURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// child is a2amock running as a child process with a pipe on its stdin.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	url    string
	stderr *syncbuf.Buffer
	exited chan error
}

// startChild runs a2amock args in a child process (this test binary, which
// TestExitOnStdinClose turns into a2amock) and waits for the URL it serves.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExitOnStdinClose$")
	cmd.Env = append(os.Environ(), asA2amock+"="+strings.Join(args, " "))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &child{cmd: cmd, stdin: stdin, stderr: &syncbuf.Buffer{}, exited: make(chan error, 1)}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.exited
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := servingURL.FindString(sc.Text()); u != "" {
				lines <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		c.exited <- cmd.Wait()
	}()
	select {
	case c.url = <-lines:
	case <-time.After(20 * time.Second):
		t.Fatalf("a2amock %s did not say where it serves within 20s; stderr:\n%s", strings.Join(args, " "), c.stderr)
	}
	return c
}

// waitExit waits for the child to exit on its own and returns its error.
func (c *child) waitExit(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- err // for the cleanup
		return err
	case <-time.After(15 * time.Second):
		t.Fatalf("a2amock still running 15s after its stdin closed; stderr:\n%s", c.stderr)
		return nil
	}
}

// TestExitOnStdinClose: with --exit-on-stdin-close, serve, record and
// replay shut down as on SIGTERM (exit 0; record writes its file) when the
// pipe on their stdin closes, as it does when the process that started
// them dies however it dies. Without the flag stdin is not read.
func TestExitOnStdinClose(t *testing.T) {
	if args := os.Getenv(asA2amock); args != "" {
		os.Exit(run(context.Background(), strings.Fields(args), os.Stdout, os.Stderr))
	}
	t.Parallel()
	healthy := func(base string) error {
		resp, err := http.Get(base + "/_a2amock/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}

	t.Run("serve without the flag", func(t *testing.T) {
		t.Parallel()
		c := startChild(t, "serve", "--addr", "127.0.0.1:0", "--log-level", "error")
		require.NoError(t, c.stdin.Close())
		require.NoError(t, healthy(c.url), "stdin is nobody's business without the flag")
		require.NoError(t, c.cmd.Process.Signal(os.Interrupt))
		assert.NoError(t, c.waitExit(t))
	})

	t.Run("serve", func(t *testing.T) {
		t.Parallel()
		c := startChild(t, "serve", "--addr", "127.0.0.1:0", "--exit-on-stdin-close", "--grpc")
		_, err := io.WriteString(c.stdin, "anything written is discarded\n")
		require.NoError(t, err)
		require.NoError(t, healthy(c.url), "data on stdin does not stop it")
		require.NoError(t, c.stdin.Close())
		assert.NoError(t, c.waitExit(t), "exit 0, as on SIGTERM")
		assert.Contains(t, c.stderr.String(), "a2amock serve: stdin closed (end of file) and --exit-on-stdin-close is set: shutting down")
		assert.Error(t, healthy(c.url), "nothing serves there any more")
	})

	t.Run("record then replay", func(t *testing.T) {
		t.Parallel()
		up := startUpstream(t)
		out := filepath.Join(t.TempDir(), "rec.json")

		rec := startChild(t, "record", "--upstream", up.URL(), "--out", out, "--exit-on-stdin-close")
		postRPC(t, http.DefaultClient, rec.url+"/", "SendMessage", "1")
		require.NoError(t, rec.stdin.Close())
		require.NoError(t, rec.waitExit(t))
		assert.Contains(t, rec.stderr.String(), "a2amock record: stdin closed")
		_, err := os.Stat(out)
		require.NoError(t, err, "record wrote its recording on the way out")

		rep := startChild(t, "serve", "--replay", out, "--addr", "127.0.0.1:0", "--exit-on-stdin-close")
		require.NoError(t, healthy(rep.url))
		require.NoError(t, rep.stdin.Close())
		assert.NoError(t, rep.waitExit(t))
		assert.Contains(t, rep.stderr.String(), "a2amock replay: stdin closed")
	})
}
