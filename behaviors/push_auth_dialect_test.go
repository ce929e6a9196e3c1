package behaviors_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPushAuthDialect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec              string
		v10, v0, auth, ct string
		bare              bool
	}{
		{"push-auth-dialect", "", "tok", "", "application/a2a+json", false},
		{"push-auth-dialect:token=v10,content-type=json", "tok", "", "", "application/json", false},
		{"push-auth-dialect:token=authorization,content-type=none", "", "", "Bearer tok", "", false},
		{"push-auth-dialect:token=none,body=task", "", "", "", "application/a2a+json", true},
		{"push-auth-dialect:token=keep,content-type=a2a", "tok", "", "", "application/a2a+json", false},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			p := newPushRig(t, tc.spec)
			id := p.sendWithPush(false)
			p.settle(id, 4)
			got := p.hook.Received()
			require.Len(t, got, 4)
			for _, n := range got {
				assert.Equal(t, tc.v10, n.Header.Get("A2A-Notification-Token"))
				assert.Equal(t, tc.v0, n.Header.Get("X-A2A-Notification-Token"))
				assert.Equal(t, tc.auth, n.Header.Get("Authorization"))
				assert.Equal(t, tc.ct, n.Header.Get("Content-Type"))
				var m map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(n.Body, &m), "%s", n.Body)
				if tc.bare {
					assert.Contains(t, m, "id", "%s", n.Body)
					assert.NotContains(t, m, "statusUpdate")
					assert.NotContains(t, m, "task")
				} else {
					assert.Len(t, m, 1, "a StreamResponse: %s", n.Body)
				}
			}
		})
	}
	for _, spec := range []string{"push-auth-dialect:token=cookie", "push-auth-dialect:content-type=xml", "push-auth-dialect:body=list"} {
		_, err := behaviorsParse(spec)
		assert.Error(t, err, spec)
	}
}

func TestPushAuthDialectOutOfScope(t *testing.T) {
	t.Parallel()
	p := newPushRig(t, "push-auth-dialect:token=none,content-type=none,body=task,skill=s2")
	id := p.sendWithPush(false) // skill s1: out of scope
	p.settle(id, 4)
	for _, n := range p.hook.Received() {
		assert.Equal(t, "tok", n.Header.Get("A2A-Notification-Token"), "the honest v1.0 header")
		assert.Equal(t, "application/a2a+json", n.Header.Get("Content-Type"))
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(n.Body, &m))
		assert.Len(t, m, 1, "a StreamResponse")
	}
}
