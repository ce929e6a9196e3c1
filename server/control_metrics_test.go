package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server/internal/control"
)

// metricLine is one sample line of the text exposition format.
var metricLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? (-?[0-9.eE+-]+|\+Inf|NaN)$`)

// scrape fetches the metrics, checks every line's syntax and that each
// family is declared once before its samples, and returns sample values
// by their full name with labels.
func (h *harness) scrape() map[string]float64 {
	h.t.Helper()
	status, hdr, b := h.do(http.MethodGet, "/_a2amock/metrics", nil, nil)
	require.Equal(h.t, http.StatusOK, status)
	require.Equal(h.t, "text/plain; version=0.0.4; charset=utf-8", hdr.Get("Content-Type"))
	out := map[string]float64{}
	typed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# TYPE ") {
			f := strings.Fields(line)
			require.Len(h.t, f, 4, line)
			require.False(h.t, typed[f[2]], "family %s declared twice", f[2])
			typed[f[2]] = true
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		m := metricLine.FindStringSubmatch(line)
		require.NotNil(h.t, m, "not a sample line: %q", line)
		family := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[1], "_bucket"), "_sum"), "_count")
		require.True(h.t, typed[family] || typed[m[1]], "sample before its # TYPE: %q", line)
		v, err := strconv.ParseFloat(m[len(m)-1], 64)
		require.NoError(h.t, err)
		out[strings.TrimSuffix(line, " "+m[len(m)-1])] = v
	}
	return out
}

func TestMetricsCountersMove(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"m","behaviors":["skip-working","latency:delay=1ms,op=get-task"]}`)
	before := h.scrape()
	assert.Equal(t, 1.0, before[`a2amock_agents{kind="runtime"}`])
	assert.Zero(t, before[`a2amock_requests_total{agent="m",method="SendMessage",dialect="1.0",binding="JSONRPC",outcome="ok",code=""}`])

	r, _ := h.rpc("/agents/m/", "SendMessage", sendParams("x", ""), v1)
	h.rpc("/agents/m/", "GetTask", map[string]any{"id": "nope"}, v1)
	h.do(http.MethodGet, "/agents/m/.well-known/agent-card.json", nil, nil)
	require.Nil(t, r.Error)
	after := h.scrape()
	assert.Equal(t, 1.0, after[`a2amock_requests_total{agent="m",method="SendMessage",dialect="1.0",binding="JSONRPC",outcome="ok",code=""}`])
	assert.Equal(t, 1.0, after[`a2amock_requests_total{agent="m",method="GetTask",dialect="1.0",binding="JSONRPC",outcome="error",code="-32001"}`])
	assert.Equal(t, 1.0, after[`a2amock_card_requests_total{agent="m"}`])
	assert.Equal(t, 1.0, after[`a2amock_request_duration_seconds_count{agent="m",method="SendMessage",binding="JSONRPC"}`])
	assert.Equal(t, 1.0, after[`a2amock_request_duration_seconds_bucket{agent="m",method="SendMessage",binding="JSONRPC",le="+Inf"}`])
	assert.Equal(t, 1.0, after[`a2amock_tasks{agent="m",state="completed"}`])
	// skip-working acted on the send, the card fetch and GetTask; latency only on GetTask.
	assert.Equal(t, 3.0, after[`a2amock_behavior_applied_total{agent="m",behavior="skip-working"}`])
	assert.Equal(t, 1.0, after[`a2amock_behavior_applied_total{agent="m",behavior="latency"}`])
	assert.Equal(t, 2.0, after[`a2amock_behavior_skipped_total{agent="m",behavior="latency:delay=1ms,op=get-task",key="op"}`])
	assert.Greater(t, after["a2amock_journal_entries"], before["a2amock_journal_entries"])

	// Removing the agent drops its series.
	status, _, _ := h.do(http.MethodDelete, "/_a2amock/agents/m", nil, nil)
	require.Equal(t, http.StatusNoContent, status)
	gone := h.scrape()
	for k := range gone {
		assert.NotContains(t, k, `agent="m"`)
	}
}

func TestMetricsOpenStreams(t *testing.T) {
	h := frontDoor(t)
	h.mustCreate(`{"name":"s","behaviors":["never-terminal"]}`)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.streamFrames("/agents/s/", rpcBody("SendStreamingMessage", sendParams("x", "")), v1)
	}()
	waitFor(t, "one open stream", func() bool { return h.scrape()[`a2amock_open_streams{agent="s"}`] == 1 })
	status, _, _ := h.do(http.MethodDelete, "/_a2amock/agents/s", nil, nil)
	require.Equal(t, http.StatusNoContent, status)
	<-done
}

func TestOpenAPIServedCommittedAndComplete(t *testing.T) {
	h := frontDoor(t)
	status, _, served := h.do(http.MethodGet, "/_a2amock/openapi.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	committed, err := os.ReadFile("../docs/openapi.json")
	require.NoError(t, err)
	assert.Equal(t, string(committed), string(served), "docs/openapi.json differs from the served description: run go generate ./server")

	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(served, &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	// Every control route is described, and every described operation is
	// routed.
	var routed []string
	for _, r := range h.srv.Handler().(*echo.Echo).Routes() {
		if !strings.HasPrefix(r.Path, "/_a2amock/") || r.Method == echo.RouteNotFound || r.Name == control.MethodNotAllowedRoute || r.Name == control.HeadRoute {
			continue
		}
		p := regexp.MustCompile(`:([a-zA-Z]+)`).ReplaceAllString(r.Path, "{$1}")
		routed = append(routed, strings.ToLower(r.Method)+" "+p)
	}
	var described []string
	for p, item := range doc.Paths {
		for m := range item {
			if m != "parameters" {
				described = append(described, m+" "+p)
			}
		}
	}
	slices.Sort(routed)
	slices.Sort(described)
	routed = slices.Compact(routed)
	assert.Equal(t, routed, described, "every /_a2amock route is described in server/openapi.json and nothing else is (after editing it, go generate ./server copies it to docs/openapi.json)")
}

// TestOpenAPICheckCatchesMismatches makes sure the harness's check of every
// control-API answer can fail.
func TestOpenAPICheckCatchesMismatches(t *testing.T) {
	doc, err := openAPI()
	require.NoError(t, err)
	assert.NoError(t, doc.check("GET", "/_a2amock/agents/x", 200, "application/json",
		[]byte(`{"name":"x","url":"u","cardUrl":"c","dynamic":true,"dialect":"1.0","skills":[],"behaviors":[]}`)))
	assert.ErrorContains(t, doc.check("GET", "/_a2amock/agents/x", 200, "application/json", []byte(`{"name":"x"}`)), "does not allow")
	assert.ErrorContains(t, doc.check("GET", "/_a2amock/agents/x", 418, "application/json", []byte(`{}`)), "does not list")
	assert.ErrorContains(t, doc.check("PATCH", "/_a2amock/agents", 200, "application/json", []byte(`{}`)), "not described")
	assert.ErrorContains(t, doc.check("GET", "/_a2amock/journal", 200, "application/json", []byte(`{"entries":[{"seq":1}]}`)), "does not allow")
	assert.ErrorContains(t, doc.check("DELETE", "/_a2amock/agents/x", 204, "", []byte(`x`)), "body")
}

func TestMetricsPushDeliveries(t *testing.T) {
	h := frontDoor(t)
	var got atomic.Int32
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	defer ok.Close()
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer refused.Close()
	h.mustCreate(`{"name":"p","card":{"capabilities":{"pushNotifications":true}}}`)
	for _, u := range []string{ok.URL, refused.URL} {
		params := sendParams("x", "")
		params["configuration"] = map[string]any{"taskPushNotificationConfig": map[string]any{"url": u}}
		r, _ := h.rpc("/agents/p/", "SendMessage", params, v1)
		require.Nil(t, r.Error)
	}
	waitFor(t, "deliveries of both webhooks counted", func() bool {
		m := h.scrape()
		return m[`a2amock_push_deliveries_total{agent="p",result="delivered"}`] >= 1 &&
			m[`a2amock_push_deliveries_total{agent="p",result="http_error"}`] >= 1
	})
	assert.Positive(t, got.Load())
}
