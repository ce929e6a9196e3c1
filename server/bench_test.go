package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// benchServer starts a server for a benchmark and a client with enough
// idle connections for parallel use.
func benchServer(b *testing.B, cfg server.Config) *harness {
	b.Helper()
	return start(b, cfg)
}

// benchSeq numbers the benchmarks' messages.
var benchSeq atomic.Int64

// benchBody is a v1.0 JSON-RPC call of method (SendMessage or
// SendStreamingMessage) whose message has an id of its own: the agent
// answers a repeated messageId as a retry of the first message (the task it
// made, or a stream re-attached to it), which would measure that path
// instead of a new task.
func benchBody(method string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":{"message":{"messageId":"bench-%d","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`,
		method, benchSeq.Add(1))
}

func postBench(b *testing.B, h *harness, body []byte) {
	req, err := http.NewRequest(http.MethodPost, h.url+"/", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := h.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || n == 0 {
		b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
	}
}

// BenchmarkSendMessage is a v1.0 JSON-RPC SendMessage round trip over a
// loopback connection, with no delay between states: the honest task is
// created, played to completed and answered.
func BenchmarkSendMessage(b *testing.B) {
	h := benchServer(b, server.Config{Seed: 1, StepDelay: -1, JournalRetention: 10_000, TaskRetention: 1_000})
	b.ReportAllocs()
	b.ResetTimer()
	began := time.Now()
	for b.Loop() {
		postBench(b, h, benchBody("SendMessage"))
	}
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "req/s")
}

// BenchmarkSendMessageParallel is BenchmarkSendMessage from GOMAXPROCS
// concurrent clients: the server's throughput.
func BenchmarkSendMessageParallel(b *testing.B) {
	h := benchServer(b, server.Config{Seed: 1, StepDelay: -1, JournalRetention: 10_000, TaskRetention: 1_000})
	b.ReportAllocs()
	b.ResetTimer()
	began := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			postBench(b, h, benchBody("SendMessage"))
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "req/s")
}

// BenchmarkStreamEvents opens a v1.0 SendStreamingMessage stream per
// iteration and reads its events (Task, working, artifact, completed).
func BenchmarkStreamEvents(b *testing.B) {
	h := benchServer(b, server.Config{Seed: 1, StepDelay: -1, JournalRetention: 10_000, TaskRetention: 1_000})
	b.ReportAllocs()
	b.ResetTimer()
	began := time.Now()
	events := 0
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, h.url+"/", bytes.NewReader(benchBody("SendStreamingMessage")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := h.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		n := 0
		for sc.Scan() {
			if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
				n++
			}
		}
		resp.Body.Close()
		if n != 4 {
			b.Fatalf("%d events, want 4", n)
		}
		events += n
	}
	b.ReportMetric(float64(events)/time.Since(began).Seconds(), "events/s")
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemoryPerTask reports the heap a retained completed task costs
// (its store entry, history and artifact), with the journal kept minimal.
func BenchmarkMemoryPerTask(b *testing.B) {
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1, JournalRetention: 1, TaskRetention: b.N + 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	h := s.Handler()
	send := func() {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(benchBody("SendMessage")))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	send() // warm up lazily built state
	before := heapAfterGC()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		send()
	}
	b.StopTimer()
	after := heapAfterGC()
	runtime.KeepAlive(s)
	b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "B/task")
}

// streamWriter is an in-process response writer for a stream that stays
// open: it signals the first write and discards the rest.
type streamWriter struct {
	hdr   http.Header
	once  sync.Once
	ready chan struct{}
}

func (w *streamWriter) Header() http.Header { return w.hdr }
func (w *streamWriter) WriteHeader(int)     {}
func (w *streamWriter) Flush()              {}
func (w *streamWriter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("data:")) || bytes.Contains(p, []byte("\ndata:")) {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// BenchmarkOpenStreams reports the heap and goroutines one open stream
// costs the server: each stream is on a task whose timeline stops in
// working, so it never ends by itself. Streams are opened in batches that
// are measured and then closed, so memory stays bounded for any b.N.
func BenchmarkOpenStreams(b *testing.B) {
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1, JournalRetention: 1, KeepAliveInterval: time.Hour,
		Agents: neverEnding(wire.V10)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	h := s.Handler()
	const batch = 1000
	var bytesTotal, goroutinesTotal float64
	b.ReportAllocs()
	b.ResetTimer()
	for opened := 0; opened < b.N; {
		n := min(batch, b.N-opened)
		before := heapAfterGC()
		g0 := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for range n {
			w := &streamWriter{hdr: http.Header{}, ready: make(chan struct{})}
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(benchBody("SendStreamingMessage")))
			req.Header.Set("Content-Type", "application/json")
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.ServeHTTP(w, req)
			}()
			<-w.ready
		}
		b.StopTimer()
		bytesTotal += float64(int64(heapAfterGC()) - int64(before))
		goroutinesTotal += float64(runtime.NumGoroutine() - g0)
		cancel()
		wg.Wait()
		s.Reset()
		b.StartTimer()
		opened += n
	}
	b.ReportMetric(bytesTotal/float64(b.N), "B/stream")
	b.ReportMetric(goroutinesTotal/float64(b.N), "goroutines/stream")
}

// BenchmarkSendMessageFullStore is BenchmarkSendMessage on a store already
// at its retention limit, where every new task evicts an old one: the cost
// of a request must not grow with the number of retained tasks.
func BenchmarkSendMessageFullStore(b *testing.B) {
	for _, retention := range []int{100, 10_000} {
		b.Run(itoa(retention), func(b *testing.B) {
			s, err := server.New(server.Config{Seed: 1, StepDelay: -1, JournalRetention: 1, TaskRetention: retention})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			h := s.Handler()
			send := func() {
				req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(benchBody("SendMessage")))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
			for range retention + 1 {
				send()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				send()
			}
		})
	}
}

// discardWriter is the least a response writer can be: headers kept, the
// body dropped. BenchmarkHandlerSendMessage measures the handler alone with it.
type discardWriter struct {
	hdr  http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header         { return w.hdr }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// BenchmarkHandlerSendMessage is the server's handler alone, called in
// process with no socket, on the default retention of a2amock serve (the
// journal and the task store fill up as they do under load): the CPU and
// allocations a SendMessage costs a2amock beyond what net/http costs any
// server. Over JSON-RPC and HTTP+JSON.
func BenchmarkHandlerSendMessage(b *testing.B) {
	for _, c := range []struct{ name, path, format string }{
		{"JSON-RPC", "/", `{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"hb-%d","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`},
		{"HTTP+JSON", "/message:send", `{"message":{"messageId":"hb-%d-%d","role":"ROLE_USER","parts":[{"text":"hello"}]}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := server.New(server.Config{Seed: 1, StepDelay: -1})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			h := s.Handler()
			var seq atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				w := &discardWriter{hdr: http.Header{}}
				for pb.Next() {
					n := seq.Add(1)
					req := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(fmt.Appendf(nil, c.format, n, n)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("A2A-Version", "1.0")
					clear(w.hdr)
					w.code, w.n = 0, 0
					h.ServeHTTP(w, req)
					if w.code != http.StatusOK || w.n == 0 {
						b.Fatalf("status %d, %d bytes", w.code, w.n)
					}
				}
			})
		})
	}
}
