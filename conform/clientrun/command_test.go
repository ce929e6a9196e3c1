package clientrun

import (
	"slices"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	cases := map[string][]string{
		`python client.py`:                {"python", "client.py"},
		`node 'my client.js' --x "a b"`:   {"node", "my client.js", "--x", "a b"},
		`sh -c 'echo "$A2A_AGENT_URL"'`:   {"sh", "-c", `echo "$A2A_AGENT_URL"`},
		`a\ b "q\"x"`:                     {"a b", `q"x`},
		`  spaced   out  `:                {"spaced", "out"},
		`go run ./x --url={agent_url}`:    {"go", "run", "./x", "--url={agent_url}"},
		`"" empty-first`:                  {"", "empty-first"},
		"multi\nline":                     {"multi", "line"},
		`tab	separated`:                   {"tab", "separated"},
		`'single''joined'`:                {"singlejoined"},
		`"keeps \n backslash"`:            {`keeps \n backslash`},
		`x "dollar \$HOME" 'lit $HOME'`:   {"x", "dollar $HOME", "lit $HOME"},
		`trailing\`:                       {"trailing"},
		`mixed"quo"ted'parts'`:            {"mixedquotedparts"},
		`--flag="value with spaces" last`: {"--flag=value with spaces", "last"},
	}
	for in, want := range cases {
		got, err := SplitCommand(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", `'open`, `"open`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) did not fail", bad)
		}
	}
	if got := Substitute([]string{"--url={agent_url}", "{prompt}/{input}"}, "http://h", "p", "i"); !slices.Equal(got, []string{"--url=http://h", "p/i"}) {
		t.Errorf("Substitute = %q", got)
	}
}
