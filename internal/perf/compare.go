package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// target is one server under load: its name, base URL and process.
type target struct {
	name, url string
	proc      *proc
}

// binding is one HTTP binding's SendMessage: path and body format (the
// body takes the request number and a unique messageId).
type binding struct {
	name, path, body string
}

var httpBindings = []binding{
	{"JSON-RPC", "/", `{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"%s","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`},
	{"HTTP+JSON", "/message:send", `{"message":{"messageId":"%s","role":"ROLE_USER","parts":[{"text":"hello"}]}}`},
}

// wrkScript makes every request a SendMessage with a messageId of its own
// (a resent one is a duplicate to a2amock, not a new task).
func wrkScript(b binding) string {
	format := strings.ReplaceAll(b.body, `"`, `\"`)
	args := `n, "m-" .. tid .. "-" .. n`
	if !strings.Contains(b.body, "%d") {
		args = `"m-" .. tid .. "-" .. n`
	}
	return `local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
local headers = {["Content-Type"] = "application/json", ["A2A-Version"] = "1.0"}
request = function()
  n = n + 1
  return wrk.format("POST", "` + b.path + `", headers, string.format("` + format + `", ` + args + `))
end
`
}

// measure is one measured run: throughput, p99, errors, and the server
// process's CPU time per request (user+system, from /proc), which the other
// jobs of a shared machine disturb much less than throughput.
type measure struct {
	rps      float64
	p99      time.Duration
	errs     int
	requests int
	cpuReq   time.Duration
}

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	mockBin := fs.String("mock", "", "the a2amock binary (required)")
	bareBin := fs.String("bare", "", "the bare handler binary, ./internal/perf/bare (required)")
	sdkBin := fs.String("sdk", "", "a2a-go v2's server, interop/perf/sdkserver (optional)")
	beforeBin := fs.String("before", "", "another a2amock binary (an older commit) measured in the same rounds, as \"a2amock before\" (optional)")
	d := fs.Duration("d", 10*time.Second, "duration of each run")
	conns := fs.Int("c", 32, "connections (wrk) and concurrent callers (gRPC)")
	threads := fs.Int("t", 2, "wrk threads")
	rounds := fs.Int("rounds", 3, "rounds; each runs every target once, the median is reported")
	only := fs.String("only", "", "run only these parts, comma-separated: JSON-RPC, HTTP+JSON, gRPC")
	_ = fs.Parse(args)
	if *mockBin == "" || *bareBin == "" {
		return errors.New("compare: -mock and -bare are required")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return errors.New("compare: wrk not found (apt-get install -y wrk)")
	}
	want := func(part string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), part) }
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "a2amock-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	mock, err := startServer(*mockBin, "serve", "--addr", "127.0.0.1:0", "--step-delay", "0", "--log-level", "warn", "--grpc")
	if err != nil {
		return err
	}
	defer mock.stop()
	bare, err := startServer(*bareBin, "-addr", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-h2c", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer bare.stop()
	targets := []target{{"a2amock", mock.urls["http"], mock}, {"bare", bare.urls["http"], bare}}
	if *sdkBin != "" {
		sdk, err := startServer(*sdkBin, "-addr", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer sdk.stop()
		targets = append(targets, target{"a2a-go v2", sdk.urls["http"], sdk})
	}
	grpcTargets := []target{{"a2amock", strings.TrimPrefix(mock.urls["http"], "http://"), mock},
		{"bare", strings.TrimPrefix(bare.urls["grpc"], "grpc://"), bare},
		{"bare h2c", strings.TrimPrefix(bare.urls["h2c"], "h2c://"), bare}}
	if *beforeBin != "" {
		before, err := startServer(*beforeBin, "serve", "--addr", "127.0.0.1:0", "--step-delay", "0", "--log-level", "warn", "--grpc")
		if err != nil {
			return err
		}
		defer before.stop()
		targets = slices.Insert(targets, 1, target{"a2amock before", before.urls["http"], before})
		grpcTargets = slices.Insert(grpcTargets, 1, target{"a2amock before", strings.TrimPrefix(before.urls["http"], "http://"), before})
	}

	for _, b := range httpBindings {
		for _, t := range targets {
			if err := preflight(t, b); err != nil {
				return err
			}
		}
	}
	fmt.Printf("# %d round(s) of %v per run, %d connections, wrk -t%d; GOMAXPROCS of the servers: default (%s)\n", *rounds, *d, *conns, *threads, cpuNote())
	results := map[string][]measure{}
	key := func(part, name string) string { return part + "\x00" + name }
	for round := 1; round <= *rounds; round++ {
		for _, b := range httpBindings {
			if !want(b.name) {
				continue
			}
			script := filepath.Join(dir, strings.ReplaceAll(b.name, "+", "")+".lua")
			if err := os.WriteFile(script, []byte(wrkScript(b)), 0o644); err != nil {
				return err
			}
			for _, t := range rotate(targets, round) {
				cpu0 := t.proc.cpu()
				m, err := runWrk(t.url, script, *threads, *conns, *d)
				if err != nil {
					return fmt.Errorf("%s %s: %w", t.name, b.name, err)
				}
				m.cpuReq = perRequest(t.proc.cpu()-cpu0, m)
				fmt.Printf("round %d  %-9s %-10s %9.0f req/s  p99 %-9v cpu/req %-8v errors %d\n", round, b.name, t.name, m.rps, m.p99, m.cpuReq, m.errs)
				results[key(b.name, t.name)] = append(results[key(b.name, t.name)], m)
			}
		}
		if want("gRPC") {
			for _, t := range rotate(grpcTargets, round) {
				cpu0 := t.proc.cpu()
				m, err := runGRPCLoad(self, t.url, *conns, *d)
				if err != nil {
					return fmt.Errorf("%s gRPC: %w", t.name, err)
				}
				m.cpuReq = perRequest(t.proc.cpu()-cpu0, m)
				fmt.Printf("round %d  %-9s %-10s %9.0f req/s  p99 %-9v cpu/req %-8v errors %d\n", round, "gRPC", t.name, m.rps, m.p99, m.cpuReq, m.errs)
				results[key("gRPC", t.name)] = append(results[key("gRPC", t.name)], m)
			}
		}
	}

	fmt.Println()
	fmt.Println("| binding | server | req/s (median) | × bare | p99 (median) | p99 ÷ bare's | server CPU per request | bare's ÷ this |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	parts := []string{"JSON-RPC", "HTTP+JSON", "gRPC"}
	for _, part := range parts {
		ts := targets
		if part == "gRPC" {
			ts = grpcTargets
		}
		base, ok := median(results[key(part, "bare")])
		if !ok {
			continue
		}
		for _, t := range ts {
			m, ok := median(results[key(part, t.name)])
			if !ok {
				continue
			}
			fmt.Printf("| %s | %s | %.0f | %.2f | %v | %.2f | %v | %.2f |\n", part, t.name, m.rps, m.rps/base.rps, m.p99.Round(10*time.Microsecond),
				float64(m.p99)/float64(base.p99), m.cpuReq.Round(100*time.Nanosecond), float64(base.cpuReq)/float64(m.cpuReq))
		}
	}
	return nil
}

// median is the median run by req/s, with the median p99 of the runs.
func median(ms []measure) (measure, bool) {
	if len(ms) == 0 {
		return measure{}, false
	}
	rps := make([]float64, len(ms))
	p99 := make([]time.Duration, len(ms))
	cpu := make([]time.Duration, len(ms))
	errs := 0
	for i, m := range ms {
		rps[i], p99[i], cpu[i] = m.rps, m.p99, m.cpuReq
		errs += m.errs
	}
	slices.Sort(rps)
	slices.Sort(p99)
	slices.Sort(cpu)
	return measure{rps: rps[len(rps)/2], p99: p99[len(p99)/2], errs: errs, cpuReq: cpu[len(cpu)/2]}, true
}

func cpuNote() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	return strconv.Itoa(bytes.Count(b, []byte("\nprocessor"))+1) + " CPUs"
}

// preflight sends one request and requires a completed task back, so a
// server answering errors fast is not measured as fast.
func preflight(t target, b binding) error {
	body := fmt.Sprintf(b.body, 1, "preflight-"+b.name)
	if !strings.Contains(b.body, "%d") {
		body = fmt.Sprintf(b.body, "preflight-"+b.name)
	}
	req, _ := http.NewRequest(http.MethodPost, t.url+b.path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("preflight %s %s: %w", t.name, b.name, err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(got, []byte("TASK_STATE_COMPLETED")) {
		return fmt.Errorf("preflight %s %s: status %d: %s", t.name, b.name, resp.StatusCode, got)
	}
	return nil
}

// perRequest spreads a run's server CPU time over its requests.
func perRequest(cpu time.Duration, m measure) time.Duration {
	if m.requests <= 0 {
		return 0
	}
	return cpu / time.Duration(m.requests)
}

var (
	reqLine = regexp.MustCompile(`(\d+) requests in`)
	rpsLine = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	p99Line = regexp.MustCompile(`\n\s+99%\s+([0-9.]+)(us|ms|s)`)
	non2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	sockErr = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

func runWrk(url, script string, threads, conns int, d time.Duration) (measure, error) {
	out, err := exec.Command("wrk", "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(max(1, int(d.Seconds())))+"s", "--latency", "-s", script, url).CombinedOutput()
	if err != nil {
		return measure{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	m := rpsLine.FindSubmatch(out)
	p := p99Line.FindSubmatch(out)
	if m == nil || p == nil {
		return measure{}, fmt.Errorf("wrk output not understood: %s", out)
	}
	var res measure
	res.rps, _ = strconv.ParseFloat(string(m[1]), 64)
	if n := reqLine.FindSubmatch(out); n != nil {
		res.requests, _ = strconv.Atoi(string(n[1]))
	}
	v, _ := strconv.ParseFloat(string(p[1]), 64)
	unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[string(p[2])]
	res.p99 = time.Duration(v * float64(unit))
	if n := non2xx.FindSubmatch(out); n != nil {
		res.errs, _ = strconv.Atoi(string(n[1]))
	}
	if s := sockErr.FindSubmatch(out); s != nil {
		for _, g := range s[1:] {
			k, _ := strconv.Atoi(string(g))
			res.errs += k
		}
	}
	return res, nil
}

// runGRPCLoad runs perf grpcload in its own process, as wrk is, so the
// load generator's CPU is not the server's.
func runGRPCLoad(self, addr string, callers int, d time.Duration) (measure, error) {
	out, err := exec.Command(self, "grpcload", "-target", addr, "-c", strconv.Itoa(callers), "-d", d.String()).CombinedOutput()
	if err != nil {
		return measure{}, fmt.Errorf("grpcload: %v: %s", err, out)
	}
	var rps float64
	var p50, p99 int64
	var n, errs int
	for line := range strings.SplitSeq(string(out), "\n") {
		if _, err := fmt.Sscanf(line, "RESULT %f %d %d %d %d", &rps, &p50, &p99, &n, &errs); err == nil {
			return measure{rps: rps, p99: time.Duration(p99), errs: errs, requests: n}, nil
		}
	}
	return measure{}, fmt.Errorf("grpcload output not understood: %s", out)
}

// proc is a started server process and the URLs it printed.
type proc struct {
	cmd  *exec.Cmd
	urls map[string]string
}

var urlLine = regexp.MustCompile(`(http|grpc|h2c)://127\.0\.0\.1:\d+`)

// startServer runs bin with args and waits for the URLs it prints (an
// http:// one, and a grpc:// one when it serves gRPC on its own port).
func startServer(bin string, args ...string) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &proc{cmd: cmd, urls: map[string]string{}}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		closed := false
		for sc.Scan() {
			if closed {
				continue // drain: the URLs are read by now
			}
			for _, u := range urlLine.FindAllStringSubmatch(sc.Text(), -1) {
				if _, ok := s.urls[u[1]]; !ok {
					s.urls[u[1]] = u[0]
				}
			}
			ready := s.urls["http"] != ""
			for _, scheme := range []string{"grpc", "h2c"} {
				if slices.Contains(args, "-"+scheme) && s.urls[scheme] == "" {
					ready = false
				}
			}
			if !closed && ready {
				close(found)
				closed = true
			}
		}
	}()
	select {
	case <-found:
		return s, nil
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s printed no URL within 30s", bin)
	}
}

func (s *proc) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// cpu is the process's user and system CPU time so far (Linux; 0 elsewhere).
func (s *proc) cpu() time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	// USER_HZ is 100 on Linux.
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// rotate returns ts starting at its round'th element: each round runs the
// servers in another order, so no server always runs first, or always
// right after the same one (a machine shared with other jobs drifts
// within a round, and a server just left idle may still be collecting).
func rotate[T any](ts []T, round int) []T {
	k := round % len(ts)
	return append(slices.Clone(ts[k:]), ts[:k]...)
}
