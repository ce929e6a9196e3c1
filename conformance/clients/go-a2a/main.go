// Command go-a2a is an A2A client on the official Go SDK
// (github.com/a2aproject/a2a-go/v2), written as a typical user would.
//
// It implements the a2amock conform client contract (docs/conformance.md)
// the plain way: resolve the agent's card, create a client from it, stream
// the prompt, answer input-required once, bound the whole run by the
// deadline (canceling the task when it passes) and print one outcome line.
// It does no checks of its own beyond what the SDK does; the scorecard shows
// what that misses.
//
//	cd conformance/clients/go-a2a && go build -o go-a2a . && a2amock conform --client ./go-a2a
//
// With -grpc it prefers the gRPC binding where the card declares one, as a
// user of the SDK's gRPC transport would (a2amock conform --grpc serves it):
//
//	a2amock conform --grpc --client './go-a2a -grpc'
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var outcomes = map[a2a.TaskState]string{
	a2a.TaskStateCompleted:     "completed",
	a2a.TaskStateFailed:        "failed",
	a2a.TaskStateCanceled:      "canceled",
	a2a.TaskStateRejected:      "rejected",
	a2a.TaskStateInputRequired: "input-required",
	a2a.TaskStateAuthRequired:  "auth-required",
}

type result struct {
	Outcome string `json:"outcome"`
	TaskID  string `json:"taskId"`
	Detail  string `json:"detail"`
}

// run is the task the client drives.
type run struct {
	client    *a2aclient.Client
	taskID    a2a.TaskID
	contextID string
	state     a2a.TaskState
}

// send sends a message and follows what comes back until the stream ends.
func (r *run) send(ctx context.Context, msg *a2a.Message) error {
	for event, err := range r.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			return err
		}
		switch ev := event.(type) {
		case *a2a.Task:
			if r.taskID == "" {
				r.taskID = ev.ID
			}
			r.contextID = ev.ContextID
			r.state = ev.Status.State
		case *a2a.TaskStatusUpdateEvent:
			r.state = ev.Status.State
		case *a2a.Message:
			// The agent answered with a message instead of a task.
			r.state = a2a.TaskStateCompleted
		}
	}
	return nil
}

// wait polls the task until it is done or asks for something.
func (r *run) wait(ctx context.Context) error {
	for outcomes[r.state] == "" {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		task, err := r.client.GetTask(ctx, &a2a.GetTaskRequest{ID: r.taskID})
		if err != nil {
			return err
		}
		r.state = task.Status.State
	}
	return nil
}

func (r *run) drive(ctx context.Context, prompt, input string) (string, error) {
	if err := r.send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(prompt))); err != nil {
		return "", err
	}
	if err := r.wait(ctx); err != nil {
		return "", err
	}
	if r.state == a2a.TaskStateInputRequired {
		reply := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(input))
		reply.TaskID, reply.ContextID = r.taskID, r.contextID
		if err := r.send(ctx, reply); err != nil {
			return "", err
		}
		if err := r.wait(ctx); err != nil {
			return "", err
		}
		if r.state == a2a.TaskStateInputRequired {
			if _, err := r.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: r.taskID}); err != nil {
				return "", err
			}
		}
	}
	return outcomes[r.state], nil
}

// preferGRPC makes the client prefer the card's GRPC interface (h2c).
var preferGRPC = flag.Bool("grpc", false, "prefer the gRPC binding where the card declares it")

func main() {
	flag.Parse()
	deadline := 30 * time.Second
	if ms, err := strconv.Atoi(os.Getenv("A2AMOCK_DEADLINE_MS")); err == nil {
		deadline = time.Duration(ms) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	urls := []string{os.Getenv("A2A_AGENT_URL")}
	if v := os.Getenv("A2A_AGENT_URLS"); v != "" {
		urls = strings.Split(v, ",")
	}
	// Every agent at once; the outcome is the first one that did not
	// complete.
	results := make([]result, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() { results[i] = drive(ctx, u, deadline) })
	}
	wg.Wait()
	final := results[0]
	for _, r := range results {
		if r.Outcome != "completed" {
			final = r
			break
		}
	}
	out, _ := json.Marshal(final)
	fmt.Println(string(out))
}

// drive runs the task on one agent and says how it ended.
func drive(ctx context.Context, agentURL string, deadline time.Duration) result {
	res := result{Outcome: "error"}
	r := &run{}
	err := func() error {
		card, err := agentcard.DefaultResolver.Resolve(ctx, agentURL)
		if err != nil {
			return err
		}
		r.client, err = a2aclient.NewFromCard(ctx, card, factoryOptions(os.Getenv("A2AMOCK_BEARER_TOKEN"))...)
		if err != nil {
			return err
		}
		res.Outcome, err = r.drive(ctx, os.Getenv("A2AMOCK_PROMPT"), os.Getenv("A2AMOCK_INPUT"))
		return err
	}()
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		res.Outcome = "timeout"
		res.Detail = fmt.Sprintf("no answer within %s", deadline)
		if r.client != nil && r.taskID != "" {
			cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
			if _, err := r.client.CancelTask(cctx, &a2a.CancelTaskRequest{ID: r.taskID}); err != nil {
				res.Detail += "; cancel failed: " + err.Error()
			}
			ccancel()
		}
	case err != nil:
		res.Outcome = "error"
		res.Detail = err.Error()
	}
	if r.client != nil {
		_ = r.client.Destroy()
	}
	res.TaskID = string(r.taskID)
	return res
}

// factoryOptions are the client's options: the token, and with -grpc the
// SDK's gRPC transport, preferred.
func factoryOptions(token string) []a2aclient.FactoryOption {
	opts := withToken(token)
	if !*preferGRPC {
		return opts
	}
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(grpcBearer(token)))
	}
	return append(opts, a2agrpc.WithGRPCTransport(dial...),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}}))
}

// grpcBearer presents a bearer token on every gRPC call, over h2c.
type grpcBearer string

func (t grpcBearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

func (grpcBearer) RequireTransportSecurity() bool { return false }

// withToken presents token as a bearer token on every A2A call, as the
// SDK's README shows for an agent whose card asks for one.
func withToken(token string) []a2aclient.FactoryOption {
	if token == "" {
		return nil
	}
	hc := &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}
	return []a2aclient.FactoryOption{a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc)}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(req)
}
