package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2amock/a2amock/internal/a2apb"
)

// loadResult is what one load run measured.
type loadResult struct {
	Requests int
	Errors   int
	RPS      float64
	P50, P99 time.Duration
}

func (r loadResult) String() string {
	return fmt.Sprintf("%.0f req/s  p50 %v  p99 %v  (%d requests, %d errors)", r.RPS, r.P50, r.P99, r.Requests, r.Errors)
}

func grpcLoadMain(args []string) error {
	fs := flag.NewFlagSet("grpcload", flag.ExitOnError)
	target := fs.String("target", "", "host:port of an lf.a2a.v1.A2AService (required)")
	conns := fs.Int("conns", 2, "client connections (HTTP/2, calls multiplexed)")
	callers := fs.Int("c", 32, "concurrent callers, spread over the connections")
	d := fs.Duration("d", 10*time.Second, "duration")
	_ = fs.Parse(args)
	if *target == "" {
		return errors.New("grpcload: -target is required")
	}
	r, err := grpcLoad(*target, *conns, *callers, *d)
	if err != nil {
		return err
	}
	// One line compare parses: rps p50ns p99ns requests errors.
	fmt.Printf("RESULT %f %d %d %d %d\n", r.RPS, r.P50, r.P99, r.Requests, r.Errors)
	fmt.Println(r)
	return nil
}

// grpcLoad runs callers concurrent unary SendMessage loops (honest, a new
// messageId each call) against target for d and reports the throughput
// and the latency percentiles. A call that fails or does not answer a
// completed task counts as an error.
func grpcLoad(target string, conns, callers int, d time.Duration) (loadResult, error) {
	clients := make([]a2apb.A2AServiceClient, conns)
	for i := range clients {
		cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return loadResult{}, err
		}
		defer cc.Close()
		clients[i] = a2apb.NewA2AServiceClient(cc)
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0")
	var seq, errs atomic.Int64
	lat := make([][]time.Duration, callers)
	deadline := time.Now().Add(d)
	began := time.Now()
	var wg sync.WaitGroup
	for w := range callers {
		wg.Go(func() {
			c := clients[w%conns]
			mine := make([]time.Duration, 0, 1<<14)
			for time.Now().Before(deadline) {
				req := &a2apb.SendMessageRequest{Message: &a2apb.Message{
					MessageId: "load-" + strconv.FormatInt(seq.Add(1), 10), Role: a2apb.Role_ROLE_USER,
					Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hello"}}},
				}}
				t0 := time.Now()
				res, err := c.SendMessage(ctx, req)
				mine = append(mine, time.Since(t0))
				if err != nil || res.GetTask().GetStatus().GetState() != a2apb.TaskState_TASK_STATE_COMPLETED {
					errs.Add(1)
				}
			}
			lat[w] = mine
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := loadResult{Requests: len(all), Errors: int(errs.Load())}
	if len(all) == 0 {
		return r, errors.New("grpcload: no call completed")
	}
	r.RPS = float64(len(all)) / elapsed.Seconds()
	r.P50 = all[len(all)/2]
	r.P99 = all[min(len(all)-1, len(all)*99/100)]
	return r, nil
}
