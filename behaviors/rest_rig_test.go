package behaviors_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/stretchr/testify/require"
)

// restCall makes an HTTP+JSON request below the agent's REST base and
// returns the response (body read) and its body.
func (r *rig) restCall(method, path string, body any) (*http.Response, []byte) {
	r.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(r.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.base+"/rest"+path, rd)
	require.NoError(r.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("A2A-Version", "1.0")
	resp, err := r.client.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return resp, b
}
