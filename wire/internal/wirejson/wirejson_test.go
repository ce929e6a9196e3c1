package wirejson

import (
	"encoding/json"
	"math/rand/v2"
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

// TestAppendTimeIsAppendFormat: AppendTime writes the bytes AppendFormat
// gives for the layout, across years, offsets and fractions (cut, not
// rounded), and falls back to it outside years 0 to 9999.
func TestAppendTimeIsAppendFormat(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	east := time.FixedZone("east", 5*3600+30*60)
	cases := []time.Time{
		time.Date(2026, 12, 5, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 12, 0, 0, 500_000, time.UTC),
		time.Date(2024, 2, 29, 0, 30, 0, 1_000_000, east),
		time.Now(),
	}
	for range 20000 {
		cases = append(cases, time.Unix(r.Int64N(400_000_000_000)-62_000_000_000, r.Int64N(1e9)).In(east))
	}
	for _, tm := range cases {
		want := tm.UTC().AppendFormat([]byte("x"), timeLayout)
		if got := AppendTime([]byte("x"), tm); string(got) != string(want) {
			t.Fatalf("AppendTime(%v) = %s, AppendFormat gives %s", tm, got, want)
		}
	}
}
