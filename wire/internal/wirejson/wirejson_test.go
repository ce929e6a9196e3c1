package wirejson

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeObjectNamesTheField(t *testing.T) {
	t.Parallel()
	var v struct {
		N int `json:"n"`
	}
	present, e := DecodeObject(json.RawMessage(`{"n":"x"}`), "params.config", true, &v)
	assert.False(t, present, "a malformed object is reported, not taken")
	require.NotNil(t, e)
	assert.Contains(t, e.Message, "params.config")
	present, e = DecodeObject(nil, "params.config", false, &v)
	assert.False(t, present)
	assert.Nil(t, e)
	assert.Equal(t, "a.b", JoinPath("a", "b"))
	assert.Equal(t, "a[2]", IndexPath("a", 2))
	ts := time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	assert.Equal(t, "2026-01-02T03:04:05.678Z", FormatTime(ts), "milliseconds, UTC")
	back, err := ParseTime(FormatTime(ts))
	require.NoError(t, err)
	assert.True(t, ts.Truncate(time.Millisecond).Equal(back))
	assert.Empty(t, FormatTime(time.Time{}))
}
