// Package suggest finds the likely intended word for a misspelt one, for
// the "did you mean" hints of the behavior registry and the command line.
package suggest

// Nearest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a likely misspelling (within two edits, or a
// third of s for longer words). Ties go to the earlier candidate, so the
// hint is the same whatever the map order the caller drew names from, as
// long as it passes them sorted.
func Nearest(s string, candidates []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, c := range candidates {
		if d := Distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
