package behaviors_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestTenantRequire(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "tenant"))
	c := r.card()
	require.NotEmpty(t, c.Interfaces)
	for _, in := range c.Interfaces {
		assert.Equal(t, "acme", in.Tenant, "%+v", in)
	}
	// Without the tenant: not found.
	rep := r.rpc("SendMessage", sendParams("hi"))
	require.NotNil(t, rep.Error)
	assert.Equal(t, wire.CodeMethodNotFound, rep.Error.Code)
	assert.Contains(t, rep.Error.Message, `send tenant "acme"`)

	// With it: served, and the task is not found from another tenant.
	params := sendParams("hi")
	params["tenant"] = "acme"
	rep = r.rpc("SendMessage", params)
	require.Nil(t, rep.Error)
	resp, body := r.restCall(http.MethodPost, "/acme/message:send", sendParams("hi"))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
}

func TestTenantRequireTaskOps(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "tenant:op=get-task"))
	id := r.send(wire.V10, "hi", "s1", false)
	rep := r.rpc("GetTask", map[string]any{"id": id, "tenant": "acme"})
	require.Nil(t, rep.Error)
	rep = r.rpc("GetTask", map[string]any{"id": id})
	require.NotNil(t, rep.Error)
	assert.Equal(t, wire.CodeTaskNotFound, rep.Error.Code)
	resp, _ := r.restCall(http.MethodGet, "/other/tasks/"+id, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "another tenant's path")
	resp, _ = r.restCall(http.MethodGet, "/acme/tasks/"+id, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestTenantLeak(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "tenant:mode=leak,tenant=acme"))
	assert.Equal(t, "acme", r.card().Interfaces[0].Tenant)
	params := sendParams("hi")
	params["tenant"] = "acme"
	rep := r.rpc("SendMessage", params)
	require.Nil(t, rep.Error)
	id := r.send(wire.V10, "hi", "s1", false)
	resp, body := r.restCall(http.MethodGet, "/globex/tasks/"+id, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "another tenant sees the task: %s", body)
	for _, spec := range []string{"tenant:tenant=", "tenant:mode=share"} {
		_, err := behaviorsParse(spec)
		assert.Error(t, err, spec)
	}
}
