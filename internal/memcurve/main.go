// Command memcurve measures the resident memory of an a2amock server while
// it receives many sends that never finish, the load under which the task
// store once grew without bound (RSS 15 MB → 528 MB over 200,000
// never-terminal sends). It builds nothing: give it the a2amock binary.
//
//	go build -o /tmp/a2amock ./cmd/a2amock
//	go run ./internal/memcurve -bin /tmp/a2amock -sends 200000 -- --behavior never-terminal
//
// Arguments after -- are passed to a2amock serve. It prints the server's
// VmRSS (from /proc, so Linux only) every -every sends.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the a2amock binary (required)")
	sends := flag.Int("sends", 200_000, "how many SendMessage calls to make")
	every := flag.Int("every", 20_000, "print the RSS every this many sends")
	workers := flag.Int("workers", 8, "concurrent clients")
	textBytes := flag.Int("text-bytes", 5, "size of each message's text part")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "memcurve: -bin is required")
		os.Exit(2)
	}
	text = strings.Repeat("x", *textBytes)
	if err := run(*bin, flag.Args(), *sends, *every, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "memcurve:", err)
		os.Exit(1)
	}
}

// text is every message's text.
var text string

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

func run(bin string, serveArgs []string, sends, every, workers int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error"}, serveArgs...)
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("no start-up line: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	base := urlRE.FindString(line)
	if base == "" {
		return fmt.Errorf("no URL in %q", line)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	fmt.Printf("a2amock serve %s\n%8s %10s %8s\n", strings.Join(serveArgs, " "), "sends", "RSS MiB", "elapsed")
	fmt.Printf("%8d %10.1f %8s\n", 0, rssMiB(cmd.Process.Pid), "0s")
	began := time.Now()
	var next atomic.Int64
	for done := 0; done < sends; {
		batch := min(every, sends-done)
		var wg sync.WaitGroup
		var ferr atomic.Value
		for range workers {
			wg.Go(func() {
				for next.Add(1) <= int64(done+batch) {
					if err := send(c, base, next.Load()); err != nil {
						ferr.Store(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if e, _ := ferr.Load().(error); e != nil {
			return e
		}
		next.Store(int64(done + batch))
		done += batch
		fmt.Printf("%8d %10.1f %8s\n", done, rssMiB(cmd.Process.Pid), time.Since(began).Round(time.Second))
	}
	return nil
}

func send(c *http.Client, base string, n int64) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"m-%d","role":"ROLE_USER","parts":[{"text":%q}]},"configuration":{"returnImmediately":true}}}`, n, n, text)
	req, err := http.NewRequest(http.MethodPost, base+"/", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"error"`)) {
		return fmt.Errorf("send %d: %d %s", n, resp.StatusCode, b)
	}
	return nil
}

// rssMiB reads VmRSS of pid from /proc.
func rssMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb float64
			_, _ = fmt.Sscanf(strings.TrimSpace(f), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}
