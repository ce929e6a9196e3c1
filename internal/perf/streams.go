package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2amock/a2amock/server"
)

// streams serves one mock in this process and has a child process (perf
// streams-client) open n SendStreamingMessage streams against it at once.
// With every stream open (each has had its first event, none has ended) it
// measures what the server process holds per stream: heap, goroutine
// stacks, goroutines and resident memory. The child then reads every
// stream to its end and checks each carried the honest lifecycle, and this
// process checks the server's goroutines fall back to where they started.
func streams(args []string) error {
	fs := flag.NewFlagSet("streams", flag.ExitOnError)
	n := fs.Int("n", 10_000, "concurrent streams")
	step := fs.Duration("step-delay", 10*time.Second, "the mock's step delay: the streams stay open about three steps, so it must exceed the time to open them all")
	conc := fs.Int("dial", 200, "streams the client opens at a time")
	_ = fs.Parse(args)

	s, err := server.New(server.Config{Seed: 1, StepDelay: *step, KeepAliveInterval: time.Hour})
	if err != nil {
		return err
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		return err
	}
	defer s.Close()
	base := sample()
	fmt.Printf("# %d streams against %s (step delay %v); before: %s\n", *n, s.URL(), *step, base)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "streams-client", "-url", s.URL(), "-n", strconv.Itoa(*n), "-dial", strconv.Itoa(*conc))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(out)
	var open sample0
	measured, done := false, ""
	for sc.Scan() {
		line := sc.Text()
		fmt.Println("client:", line)
		switch {
		case strings.HasPrefix(line, "ALLOPEN"):
			open = sample()
			measured = true
			fmt.Printf("# all open: %s\n", open)
			per := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(*n) }
			fmt.Printf("# per open stream (server process): heap %.0f B, goroutine stacks %.0f B, heap+stacks %.0f B, RSS %.0f B, goroutines %.2f\n",
				per(open.heap, base.heap), per(open.stack, base.stack), per(open.heap+open.stack, base.heap+base.stack),
				per(open.rss, base.rss), float64(open.goroutines-base.goroutines)/float64(*n))
		case strings.HasPrefix(line, "DONE"):
			done = line
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("streams-client: %w", err)
	}
	if !measured || done == "" {
		return errors.New("the client did not open every stream")
	}
	// Every stream has ended: the server's goroutines go back down.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base.goroutines+5 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	after := sample()
	fmt.Printf("# after: %s\n", after)
	if after.goroutines > base.goroutines+5 {
		return fmt.Errorf("%d goroutines left after the streams ended (%d before)", after.goroutines, base.goroutines)
	}
	if !strings.Contains(done, " failed=0 ") {
		return errors.New("some streams failed: " + done)
	}
	return nil
}

// sample0 is the server process's memory and goroutines.
type sample0 struct {
	heap, stack, rss uint64
	goroutines       int
}

func (s sample0) String() string {
	return fmt.Sprintf("heap %d KiB, stacks %d KiB, RSS %d KiB, %d goroutines", s.heap>>10, s.stack>>10, s.rss>>10, s.goroutines)
}

func sample() sample0 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return sample0{heap: m.HeapAlloc, stack: m.StackInuse, rss: rss(), goroutines: runtime.NumGoroutine()}
}

// rss is this process's resident set (Linux; 0 elsewhere).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// streamsClient opens n streams, dial at a time, and prints ALLOPEN once
// every one has had its first event (with how many had already ended, which
// must be none for the figures to hold), then DONE with the outcome once
// every stream has ended: ok means the stream carried submitted, working,
// an artifact and completed, in that order, and then closed.
func streamsClient(args []string) error {
	fs := flag.NewFlagSet("streams-client", flag.ExitOnError)
	url := fs.String("url", "", "the mock's base URL")
	n := fs.Int("n", 10_000, "streams")
	dial := fs.Int("dial", 200, "streams opened at a time")
	_ = fs.Parse(args)
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableKeepAlives: true}
	hc := &http.Client{Transport: tr}
	var opened, ended, ok, failed atomic.Int64
	var firstErr atomic.Value
	allOpen := make(chan struct{})
	sem := make(chan struct{}, *dial)
	began := time.Now()
	var wg sync.WaitGroup
	for i := range *n {
		sem <- struct{}{}
		wg.Go(func() {
			released := false
			release := func() {
				if !released {
					released = true
					<-sem
				}
			}
			defer release()
			err := readStream(hc, *url, i, func() {
				if opened.Add(1) == int64(*n) {
					close(allOpen)
				}
				release()
			})
			ended.Add(1)
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			ok.Add(1)
		})
	}
	select {
	case <-allOpen:
		fmt.Printf("ALLOPEN %d streams in %v, %d ended already\n", *n, time.Since(began).Round(time.Millisecond), ended.Load())
	case <-waitCh(&wg):
		fmt.Printf("NOTALLOPEN %d of %d\n", opened.Load(), *n)
	}
	wg.Wait()
	tr.CloseIdleConnections()
	fmt.Printf("DONE ok=%d failed=%d in %v\n", ok.Load(), failed.Load(), time.Since(began).Round(time.Millisecond))
	if e := firstErr.Load(); e != nil {
		fmt.Println("first error:", e)
	}
	return nil
}

func waitCh(wg *sync.WaitGroup) <-chan struct{} {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	return c
}

var wantStates = []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "artifactUpdate", "TASK_STATE_COMPLETED"}

// readStream sends one streaming request and reads its events; first is
// called on the first event.
func readStream(hc *http.Client, url string, i int, first func()) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"s-` + strconv.Itoa(i) +
		`","role":"ROLE_USER","parts":[{"text":"hold on"}]}}}`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var seen []string
	for sc.Scan() {
		data, found := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
		if !found {
			continue
		}
		if len(seen) == 0 {
			first()
		}
		kind := "?"
		for _, k := range wantStates {
			if bytes.Contains(data, []byte(k)) {
				kind = k
				break
			}
		}
		seen = append(seen, kind)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if strings.Join(seen, ",") != strings.Join(wantStates, ",") {
		return fmt.Errorf("stream %d carried %v", i, seen)
	}
	return nil
}
