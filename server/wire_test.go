package server_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

func (h *harness) wire(q string) (int, server.WireExchange, []byte) {
	h.t.Helper()
	status, _, b := h.do(http.MethodGet, "/_a2amock/journal/wire"+q, nil, nil)
	var x server.WireExchange
	if status == http.StatusOK {
		require.NoError(h.t, json.Unmarshal(b, &x), "body: %s", b)
	}
	return status, x, b
}

// TestWireRawBytes: the raw view of an A2A request (by its request number)
// and of a card fetch (by its journal entry) holds the bytes that passed,
// with credentials redacted; bad queries are refused and a reset forgets.
func TestWireRawBytes(t *testing.T) {
	h := start(t, server.Config{})
	body := rpcBody("SendMessage", sendParams("raw bytes please", ""))
	status, _, answer := h.post("/", body, map[string]string{"A2A-Version": "1.0", "Authorization": "Bearer sekrit", "X-Trace": "t1"})
	require.Equal(t, http.StatusOK, status)
	h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)

	entries, _ := h.journalQuery("")
	var reqNo, cardSeq int64
	for _, e := range entries {
		if e.Kind == server.EntryRequest && reqNo == 0 {
			reqNo = e.Request
		}
		if e.Kind == server.EntryCard {
			cardSeq = e.Seq
		}
	}
	require.NotZero(t, reqNo)
	require.NotZero(t, cardSeq)

	status, x, b := h.wire("?request=" + strconv.FormatInt(reqNo, 10))
	require.Equal(t, http.StatusOK, status, "body: %s", b)
	assert.Equal(t, reqNo, x.Request)
	assert.Equal(t, http.MethodPost, x.Method)
	assert.Equal(t, "/", x.URL)
	assert.Equal(t, string(body), x.Body.Text)
	assert.Equal(t, int64(len(body)), x.Body.Size)
	assert.Equal(t, string(answer), x.Response.Text)
	assert.Equal(t, http.StatusOK, x.Status)
	assert.True(t, x.Done)
	assert.Equal(t, []string{"t1"}, x.Header["X-Trace"])
	assert.Equal(t, []string{"[redacted: 13 bytes]"}, x.Header["Authorization"])
	assert.NotContains(t, string(b), "sekrit")
	assert.Contains(t, x.RespHead.Get("Content-Type"), "application/json")

	status, x, b = h.wire("?seq=" + strconv.FormatInt(cardSeq, 10))
	require.Equal(t, http.StatusOK, status, "body: %s", b)
	assert.Equal(t, http.MethodGet, x.Method)
	assert.Contains(t, x.Response.Text, `"name"`)

	for _, q := range []string{"", "?request=1&seq=1", "?request=x", "?seq=-1"} {
		status, _, b := h.wire(q)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", q, b)
	}
	status, _, _ = h.wire("?request=999")
	assert.Equal(t, http.StatusNotFound, status)

	status, _, _ = h.post("/_a2amock/reset", nil, nil)
	require.Equal(t, http.StatusNoContent, status)
	status, _, _ = h.wire("?request=" + strconv.FormatInt(reqNo, 10))
	assert.Equal(t, http.StatusNotFound, status, "a reset keeps the bytes")
}

// TestWireBounded: a body over the kept size is cut (and says so), and only
// the last exchanges are kept.
func TestWireBounded(t *testing.T) {
	h := start(t, server.Config{})
	big := rpcBody("SendMessage", sendParams(strings.Repeat("é", 20_000), ""))
	status, _, _ := h.post("/", big, map[string]string{"A2A-Version": "1.0"})
	require.Equal(t, http.StatusOK, status)
	status, x, b := h.wire("?request=1")
	require.Equal(t, http.StatusOK, status, "body: %s", b)
	assert.True(t, x.Body.Truncated)
	assert.Equal(t, int64(len(big)), x.Body.Size)
	assert.LessOrEqual(t, len(x.Body.Text), 16<<10)
	assert.NotEmpty(t, x.Body.Text, "the cut split a UTF-8 sequence and fell back to base64")

	for range 520 {
		h.post("/", rpcBody("GetTask", map[string]any{"id": "nope"}), map[string]string{"A2A-Version": "1.0"})
	}
	status, _, _ = h.wire("?request=1")
	assert.Equal(t, http.StatusNotFound, status, "the oldest exchange is still kept")
	status, _, _ = h.wire("?request=521")
	assert.Equal(t, http.StatusOK, status)
}

// TestWireHeadersBounded: a megabyte of headers is not kept whole.
func TestWireHeadersBounded(t *testing.T) {
	h := start(t, server.Config{})
	hdr := map[string]string{"A2A-Version": "1.0"}
	for i := range 100 {
		hdr["X-Pad-"+strconv.Itoa(i)] = strings.Repeat("p", 5000)
	}
	status, _, _ := h.post("/", rpcBody("GetTask", map[string]any{"id": "nope"}), hdr)
	require.Equal(t, http.StatusOK, status)
	status, x, b := h.wire("?request=1")
	require.Equal(t, http.StatusOK, status, "body: %s", b)
	assert.Less(t, len(b), 40<<10)
	assert.Equal(t, []string{"1.0"}, x.Header["A2a-Version"])
	require.Len(t, x.Header["…"], 1)
	assert.Contains(t, x.Header["…"][0], "more header bytes not kept")
}

// bodyBytes is the body a raw view kept: its text, or its base64 decoded.
func bodyBytes(t *testing.T, b server.WireBody) []byte {
	t.Helper()
	if b.Base64 == "" {
		return []byte(b.Text)
	}
	out, err := base64.StdEncoding.DecodeString(b.Base64)
	require.NoError(t, err)
	return out
}

// TestWireRawBytesGRPC: a gRPC call's raw view holds its length-prefixed
// messages (base64: protobuf), its headers and its trailers
// (grpc-status); a trailers-only refusal has its status in the headers.
func TestWireRawBytesGRPC(t *testing.T) {
	h, c := grpcRig(t, false)
	ctx := metadata.AppendToOutgoingContext(grpcCtx(t), "authorization", "Bearer sekrit")
	res, err := c.SendMessage(ctx, grpcSend("raw grpc"))
	require.NoError(t, err)
	_, err = c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "nope"})
	require.Error(t, err)

	status, x, b := h.wire("?request=1")
	require.Equal(t, http.StatusOK, status, "body: %s", b)
	assert.Equal(t, "/lf.a2a.v1.A2AService/SendMessage", x.URL)
	assert.Equal(t, "HTTP/2.0", x.Proto)
	assert.Equal(t, []string{"[redacted: 13 bytes]"}, x.Header["Authorization"])
	require.NotEmpty(t, x.Body.Base64, "protobuf is shown as base64: %+v", x.Body)
	req := bodyBytes(t, x.Body)
	require.Greater(t, len(req), 5)
	assert.Equal(t, len(req)-5, int(binary.BigEndian.Uint32(req[1:5])), "one length-prefixed message")
	assert.Contains(t, string(req), "raw grpc")
	answer := bodyBytes(t, x.Response)
	assert.Contains(t, string(answer), res.GetTask().GetId())
	assert.Equal(t, []string{"application/grpc"}, x.RespHead["Content-Type"])
	assert.Equal(t, []string{"0"}, x.Trailer["Grpc-Status"], "trailers: %v", x.Trailer)

	status, x, b = h.wire("?request=2")
	require.Equal(t, http.StatusOK, status, "body: %s", b)
	assert.Equal(t, "/lf.a2a.v1.A2AService/GetTask", x.URL)
	assert.Equal(t, []string{"5"}, x.RespHead["Grpc-Status"], "a trailers-only answer: %v", x.RespHead)
	assert.Empty(t, x.Trailer)
	assert.Zero(t, x.Response.Size)
}

// TestWireRawViewRedactsBodyCredentials: the raw view showed push tokens,
// authentication credentials, signed webhook URLs and API keys in the query
// as they were sent and answered, where the journal keeps none of them.
// Over JSON-RPC and gRPC, the request and the answer (which echoes the
// config) show every one redacted.
func TestWireRawViewRedactsBodyCredentials(t *testing.T) {
	secrets := []string{"tok-s3cret", "cred-s3cret", "sig-s3cret", "key-s3cret"}
	noSecret := func(t *testing.T, b []byte, x server.WireExchange) {
		t.Helper()
		all := string(b) + string(bodyBytes(t, x.Body)) + string(bodyBytes(t, x.Response))
		for _, s := range secrets {
			assert.NotContains(t, all, s)
		}
	}

	t.Run("JSON-RPC", func(t *testing.T) {
		h := start(t, server.Config{StepDelay: -1, Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, true)}}})
		send, _ := h.rpc("/?api_key=key-s3cret", "SendMessage", map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}}, v1)
		require.Nil(t, send.Error)
		var sent struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		}
		require.NoError(t, json.Unmarshal(send.Result, &sent))
		taskID := sent.Task.ID
		res, _ := h.rpc("/", "CreateTaskPushNotificationConfig", map[string]any{"taskId": taskID, "url": "http://127.0.0.1:9/hook?sig=sig-s3cret",
			"token": "tok-s3cret", "authentication": map[string]any{"scheme": "Bearer", "credentials": "cred-s3cret"}}, v1)
		require.Nil(t, res.Error)
		for req := 1; req <= 2; req++ {
			status, x, b := h.wire("?request=" + strconv.Itoa(req))
			require.Equal(t, http.StatusOK, status, "body: %s", b)
			noSecret(t, b, x)
			if req == 1 {
				assert.Equal(t, "/?api_key=redacted", x.URL)
				continue
			}
			assert.Contains(t, x.Body.Text, `"token":"[redacted: 10 bytes]"`)
			assert.Contains(t, x.Body.Text, `"credentials":"[redacted: 11 bytes]"`)
			assert.Contains(t, x.Body.Text, `"url":"http://127.0.0.1:9/hook?sig=redacted"`)
			assert.Contains(t, x.Response.Text, `"token":"[redacted: 10 bytes]"`, "the answer echoes the config")
		}
	})

	t.Run("gRPC", func(t *testing.T) {
		h, c := grpcRig(t, true)
		res, err := c.SendMessage(grpcCtx(t), grpcSend("push"))
		require.NoError(t, err)
		_, err = c.CreateTaskPushNotificationConfig(grpcCtx(t), &a2apb.TaskPushNotificationConfig{TaskId: res.GetTask().GetId(),
			Url: "http://127.0.0.1:9/hook?sig=sig-s3cret", Token: "tok-s3cret",
			Authentication: &a2apb.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred-s3cret"}})
		require.NoError(t, err)
		status, x, b := h.wire("?request=2")
		require.Equal(t, http.StatusOK, status, "body: %s", b)
		assert.Equal(t, "/lf.a2a.v1.A2AService/CreateTaskPushNotificationConfig", x.URL)
		noSecret(t, b, x)
		for _, body := range [][]byte{bodyBytes(t, x.Body), bodyBytes(t, x.Response)} {
			require.Greater(t, len(body), 5)
			var cfg a2apb.TaskPushNotificationConfig
			require.NoError(t, proto.Unmarshal(body[5:], &cfg), "a whole message still")
			assert.Equal(t, "[redacted: 10 bytes]", cfg.Token)
			assert.Equal(t, "[redacted: 11 bytes]", cfg.GetAuthentication().GetCredentials())
			assert.Equal(t, "http://127.0.0.1:9/hook?sig=redacted", cfg.Url)
		}
	})
}
