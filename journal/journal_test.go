package journal

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJournalSinceAcrossBlocks checks Since against filtering Entries, over
// block boundaries, evictions and out-of-range sequence numbers.
func TestJournalSinceAcrossBlocks(t *testing.T) {
	t.Parallel()
	j := New(2*block + 100)
	want := func(seq int64) []Entry {
		var out []Entry
		for _, e := range j.Entries() {
			if e.Seq > seq {
				out = append(out, e)
			}
		}
		return out
	}
	seqs := []int64{math.MinInt64, -1, 0, 1}
	assert.Nil(t, j.Since(0), "an empty journal")
	for range 3*block + 7 {
		j.Add(Entry{Agent: "a"})
	}
	first, last := j.Entries()[0].Seq, j.Entries()[j.Len()-1].Seq
	assert.Greater(t, first, int64(1), "old entries were evicted")
	seqs = append(seqs, first-1, first, first+1, last-block, last-1, last, last+1, math.MaxInt64)
	for _, seq := range seqs {
		assert.Equal(t, want(seq), j.Since(seq), "since %d", seq)
	}
}
