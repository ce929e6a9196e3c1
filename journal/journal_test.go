package journal

import (
	"math"
	"runtime"
	"testing"
	"unsafe"

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

// TestJournalRecyclesEvictedBlocks fills a journal past its retention many
// times over, one retention size at a time and across block boundaries,
// and checks after each round that every reader sees exactly the newest
// entries in order (the recycled blocks hold no stale entry) and that, at
// the limit, adding an entry allocates nothing.
func TestJournalRecyclesEvictedBlocks(t *testing.T) {
	for _, retention := range []int{1, block - 1, block, block + 1, 2*block + 3} {
		j := New(retention)
		var added int64
		for round := range 5 {
			for range retention + round*block/3 + 1 {
				added++
				j.Add(Entry{Agent: "a", Detail: itoa(added)})
			}
			got := j.Entries()
			if !assert.Len(t, got, retention, "retention %d round %d", retention, round) {
				return
			}
			for i, e := range got {
				seq := added - int64(retention) + 1 + int64(i)
				assert.Equal(t, seq, e.Seq, "retention %d round %d entry %d", retention, round, i)
				assert.Equal(t, itoa(seq), e.Detail, "retention %d round %d entry %d", retention, round, i)
			}
			if retention > 1 {
				assert.Equal(t, got[1:], j.Since(got[0].Seq), "retention %d round %d: Since", retention, round)
			}
			assert.Equal(t, got, j.Since(got[0].Seq-1), "retention %d round %d: Since", retention, round)
			page, total := j.Page(0, func(e *Entry) bool { return e.Seq%2 == 0 }, 0)
			assert.Len(t, page, total)
			for _, e := range page {
				assert.Zero(t, e.Seq%2)
			}
			j.Amend(added, func(e *Entry) { e.Detail = "amended" })
			assert.Equal(t, "amended", j.Entries()[retention-1].Detail, "retention %d round %d: Amend", retention, round)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 3 * block {
			j.Add(Entry{Agent: "a"})
		}
		runtime.ReadMemStats(&after)
		// A new block each time would be 3 blocks; the outer slice of
		// blocks may grow now and then.
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(block*unsafe.Sizeof(Entry{})/2),
			"retention %d: bytes allocated by %d adds at the limit", retention, 3*block)
	}
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}
