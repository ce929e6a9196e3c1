// Command bare is the baseline of make perf: the least an A2A server can
// do for a v1.0 SendMessage. Over HTTP it decodes the JSON-RPC request
// (POST /) or the HTTP+JSON one (POST /message:send) into a typed message
// and answers a fixed completed task; over gRPC (-grpc) it is a grpc-go
// server whose SendMessage answers a fixed completed task. It keeps no
// state and runs no lifecycle, so a2amock's throughput is judged against
// the cost of the transport and the JSON or protobuf codec alone.
//
//	go run ./internal/perf/bare -addr 127.0.0.1:8090 -grpc 127.0.0.1:8091
//
// It prints "http://ADDR" (and "grpc://ADDR") on stdout once listening.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/internal/a2apb"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "HTTP listen address (JSON-RPC at /, HTTP+JSON at /message:send)")
	grpcAddr := flag.String("grpc", "", "also serve gRPC (lf.a2a.v1.A2AService/SendMessage) with grpc-go on this address")
	h2cAddr := flag.String("h2c", "", "also serve gRPC SendMessage with a net/http h2c handler (the transport a2amock's gRPC binding uses) on this address")
	flag.Parse()
	if *h2cAddr != "" {
		if err := serveH2C(*h2cAddr); err != nil {
			fmt.Fprintln(os.Stderr, "bare:", err)
			os.Exit(1)
		}
	}
	if err := run(*addr, *grpcAddr); err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(1)
	}
}

func run(addr, grpcAddr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{$}", serveJSONRPC)
	mux.HandleFunc("POST /message:send", serveREST)
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("http://" + ln.Addr().String())
	if grpcAddr != "" {
		gln, err := net.Listen("tcp", grpcAddr)
		if err != nil {
			return err
		}
		gs := grpc.NewServer()
		a2apb.RegisterA2AServiceServer(gs, &bareGRPC{res: fixedPB})
		go func() { _ = gs.Serve(gln) }()
		defer gs.Stop()
		fmt.Println("grpc://" + gln.Addr().String())
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return srv.Close()
}

// message is the part of a v1.0 Message the bare handler decodes.
type message struct {
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
	Parts     []struct {
		Text string `json:"text"`
	} `json:"parts"`
	Metadata map[string]any `json:"metadata"`
}

// sendParams is a v1.0 SendMessageRequest.
type sendParams struct {
	Message       message        `json:"message"`
	Configuration map[string]any `json:"configuration"`
}

// fixedTask is the answer to every send.
const fixedTask = `{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:00Z"},"artifacts":[{"artifactId":"a-1","parts":[{"text":"done"}]}]}}`

func serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  sendParams      `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "SendMessage" || req.Params.Message.MessageID == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, fixedTask)
}

func serveREST(w http.ResponseWriter, r *http.Request) {
	var req sendParams
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Message.MessageID == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(fixedTask))
}

// bareGRPC answers every SendMessage with the same completed task.
type bareGRPC struct {
	a2apb.UnimplementedA2AServiceServer
	res *a2apb.SendMessageResponse
}

// SendMessage answers the fixed task.
func (b *bareGRPC) SendMessage(_ context.Context, req *a2apb.SendMessageRequest) (*a2apb.SendMessageResponse, error) {
	return b.res, nil
}

// serveH2C serves SendMessage over net/http's HTTP/2 server with prior
// knowledge (h2c), as a2amock serves its gRPC binding: read the
// length-prefixed request, decode it, answer the fixed task with grpc-status
// in the trailers. It tells how much of a2amock's gRPC cost is the
// transport rather than the mock.
func serveH2C(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	out, err := proto.Marshal(fixedPB)
	if err != nil {
		return err
	}
	frame := make([]byte, 5+len(out))
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(out)))
	copy(frame[5:], out)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req a2apb.SendMessageRequest
		if err != nil || len(body) < 5 || proto.Unmarshal(body[5:], &req) != nil || req.GetMessage().GetMessageId() == "" {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", "13")
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(frame)
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
	})}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("h2c://" + ln.Addr().String())
	return nil
}

var fixedPB = &a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Task{Task: &a2apb.Task{
	Id: "t-1", ContextId: "c-1", Status: &a2apb.TaskStatus{State: a2apb.TaskState_TASK_STATE_COMPLETED},
	Artifacts: []*a2apb.Artifact{{ArtifactId: "a-1", Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "done"}}}}},
}}}
