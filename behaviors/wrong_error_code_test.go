package behaviors_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/a2a"
)

func TestWrongErrorCode(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "wrong-error-code"))
	for _, d := range []a2a.Dialect{a2a.V10, a2a.V03} {
		assert.Equal(t, -32602, r.get(d, "missing").Code, d)
		assert.Equal(t, -32602, r.cancel(d, "missing").Code, d)
		assert.Equal(t, -32602, r.sendTo(d, message(d, "x", "quick", "missing")).Code, d)
	}
	// Other errors are untouched.
	done := r.sendTo(a2a.V10, message(a2a.V10, "go", "quick", ""))
	assert.Equal(t, -32002, r.cancel(a2a.V10, done.Task.ID).Code)

	// HTTP+JSON: the status follows the wrong code (400, not 404).
	resp, err := r.client.Get(r.base + "/rest/tasks/missing")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", b)
}

func TestWrongErrorCodeScopeAndParams(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "wrong-error-code:from=-32001,to=-32603,method=tasks/get"))
	assert.Equal(t, -32603, r.get(a2a.V03, "missing").Code)
	assert.Equal(t, -32001, r.get(a2a.V10, "missing").Code, "GetTask is out of scope")

	_, err := parseErr("wrong-error-code:from=1,to=1")
	require.ErrorContains(t, err, "from and to must differ")
	_, err = parseErr("wrong-error-code:from=x")
	require.ErrorContains(t, err, `"x" is not an integer`)
}
