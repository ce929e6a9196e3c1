package server_test

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// grpcFuzzMethods are the service's methods with their request and answer
// messages, in the order the fuzzer's method byte picks them.
var grpcFuzzMethods = []struct {
	name     string
	request  proto.Message
	response func() proto.Message
}{
	{"SendMessage", grpcSend("hi"), func() proto.Message { return &a2apb.SendMessageResponse{} }},
	{"SendStreamingMessage", grpcSend("hi"), func() proto.Message { return &a2apb.StreamResponse{} }},
	{"GetTask", &a2apb.GetTaskRequest{Id: "t"}, func() proto.Message { return &a2apb.Task{} }},
	{"ListTasks", &a2apb.ListTasksRequest{}, func() proto.Message { return &a2apb.ListTasksResponse{} }},
	{"CancelTask", &a2apb.CancelTaskRequest{Id: "t"}, func() proto.Message { return &a2apb.Task{} }},
	{"SubscribeToTask", &a2apb.SubscribeToTaskRequest{Id: "t"}, func() proto.Message { return &a2apb.StreamResponse{} }},
	{"CreateTaskPushNotificationConfig", &a2apb.TaskPushNotificationConfig{TaskId: "t", Url: "https://h.example/"},
		func() proto.Message { return &a2apb.TaskPushNotificationConfig{} }},
	{"GetTaskPushNotificationConfig", &a2apb.GetTaskPushNotificationConfigRequest{TaskId: "t", Id: "p"},
		func() proto.Message { return &a2apb.TaskPushNotificationConfig{} }},
	{"ListTaskPushNotificationConfigs", &a2apb.ListTaskPushNotificationConfigsRequest{TaskId: "t"},
		func() proto.Message { return &a2apb.ListTaskPushNotificationConfigsResponse{} }},
	{"GetExtendedAgentCard", &a2apb.GetExtendedAgentCardRequest{}, func() proto.Message { return &a2apb.AgentCard{} }},
	{"DeleteTaskPushNotificationConfig", &a2apb.DeleteTaskPushNotificationConfigRequest{TaskId: "t", Id: "p"},
		func() proto.Message { return &emptypb.Empty{} }},
}

// grpcInternalCauses are the messages an INTERNAL status may carry: what
// grpc-go answers a request it cannot read with. Any other INTERNAL, and
// any UNKNOWN, is a server bug.
var grpcInternalCauses = []string{"the request is not one length-prefixed gRPC message", "decode ", "transcode request"}

// FuzzGRPC sends every method of the gRPC binding arbitrary request
// messages (framed, or as raw bodies when raw is set) and checks the
// answer is a well-formed gRPC answer: HTTP 200, application/grpc, whole
// length-prefixed messages that decode as the method's answer, and a
// grpc-status of a known code (in the headers or the trailers).
func FuzzGRPC(f *testing.F) {
	for i, m := range grpcFuzzMethods {
		b, err := proto.Marshal(m.request)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b, false)
		f.Add(uint8(i), []byte{}, false)
		f.Add(uint8(i), []byte{0x0a, 0xff, 0x01}, false)
	}
	f.Add(uint8(0), []byte{1, 0, 0, 0, 0}, true)
	f.Add(uint8(0), []byte{0, 0, 0, 0, 9, 1}, true)
	f.Add(uint8(0), []byte{0, 0, 0}, true)
	card := testCard(wire.V10, true)
	s, err := server.New(server.Config{Seed: 1, StepDelay: -1, GRPC: true, TaskRetention: 64, JournalRetention: 512,
		Agents: []server.AgentConfig{{Name: "agent", Card: card}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	h := s.Handler()
	f.Fuzz(func(t *testing.T, pick uint8, msg []byte, raw bool) {
		m := grpcFuzzMethods[int(pick)%len(grpcFuzzMethods)]
		body := msg
		if !raw {
			body = binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
			body = append(body, msg...)
		}
		req := httptest.NewRequest(http.MethodPost, "/lf.a2a.v1.A2AService/"+m.name, bytes.NewReader(body))
		req.ProtoMajor, req.ProtoMinor, req.Proto = 2, 0, "HTTP/2.0"
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		served := make(chan struct{})
		go func() { defer close(served); h.ServeHTTP(rec, req) }()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %x: no answer after 10s", m.name, body)
		}
		res := rec.Result()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/grpc" {
			t.Fatalf("%s %x: HTTP %d, content-type %q: %s", m.name, body, res.StatusCode, res.Header.Get("Content-Type"), rec.Body)
		}
		checkGRPCMessages(t, m.name, body, rec.Body.Bytes(), m.response)
		code, text := res.Header.Get("Grpc-Status"), res.Header.Get("Grpc-Message")
		if code == "" {
			code, text = res.Trailer.Get("Grpc-Status"), res.Trailer.Get("Grpc-Message")
		}
		n, err := strconv.Atoi(code)
		if err != nil || n < 0 || n > int(codes.Unauthenticated) {
			t.Fatalf("%s %x: grpc-status %q", m.name, body, code)
		}
		switch codes.Code(n) {
		case codes.Unknown:
			t.Fatalf("%s %x: UNKNOWN: %s", m.name, body, text)
		case codes.Internal:
			ok := false
			for _, c := range grpcInternalCauses {
				ok = ok || strings.HasPrefix(text, c)
			}
			if !ok {
				t.Fatalf("%s %x: INTERNAL: %s", m.name, body, text)
			}
		}
	})
}

// checkGRPCMessages fails unless b is whole uncompressed length-prefixed
// messages that each decode as the method's answer.
func checkGRPCMessages(t *testing.T, method string, in, b []byte, answer func() proto.Message) {
	t.Helper()
	for len(b) > 0 {
		if len(b) < 5 || b[0] != 0 {
			t.Fatalf("%s %x: answer is not length-prefixed messages: %x", method, in, b)
		}
		n := int(binary.BigEndian.Uint32(b[1:5]))
		if len(b)-5 < n {
			t.Fatalf("%s %x: answer message cut: %d of %d bytes", method, in, len(b)-5, n)
		}
		if err := proto.Unmarshal(b[5:5+n], answer()); err != nil {
			t.Fatalf("%s %x: answer message does not decode: %v", method, in, err)
		}
		b = b[5+n:]
	}
}
