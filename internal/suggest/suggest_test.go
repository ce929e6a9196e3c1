package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"never-terminal", "never-terminal", 0}, {"nevr-terminal", "never-terminal", 1},
		{"PSUH", "PUSH", 2},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"never-terminal", "skip-working", "stream-hang", "stream-no-final"}
	for _, c := range []struct{ in, want string }{
		{"nevr-terminal", "never-terminal"},
		{"never-terminl", "never-terminal"},
		{"stream-hnag", "stream-hang"},
		{"codr", ""}, // nothing close: no hint rather than a wild one
		{"stream-no-fnal", "stream-no-final"},
		{"", ""},
	} {
		if got := Nearest(c.in, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Nearest("ab", []string{"ax", "ay"}); got != "ax" {
		t.Errorf("a tie goes to the earlier candidate, got %q", got)
	}
}
