package readmeblock

import (
	"errors"
	"reflect"
	"testing"
)

func TestLines(t *testing.T) {
	md := "intro\n<!-- repro: x -->\ntext\n```sh\n\na2amock serve\ncurl -s 'a b'\n```\n```sh\nother\n```\n"
	got, err := Lines(md, "<!-- repro: x")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a2amock serve", "curl -s 'a b'"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Lines = %q, want %q", got, want)
	}
	for _, bad := range []string{"no marker", "<!-- repro: x --> no block", "<!-- repro: x -->\n```sh\nunclosed"} {
		if _, err := Lines(bad, "<!-- repro: x"); err == nil {
			t.Errorf("Lines(%q) gave no error", bad)
		}
	}
}

func TestWords(t *testing.T) {
	for line, want := range map[string][]string{
		"a2amock serve --addr 127.0.0.1:0":    {"a2amock", "serve", "--addr", "127.0.0.1:0"},
		"curl -d '{\"a\": 1}'  x":             {"curl", "-d", `{"a": 1}`, "x"},
		"a''b 'c d'e":                         {"ab", "c de"},
		"  ":                                  nil,
		"curl -H 'A2A-Version: 1.0' http://h": {"curl", "-H", "A2A-Version: 1.0", "http://h"},
	} {
		got, err := Words(line)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	for _, line := range []string{"echo $HOME", "a | b", "a > f", `say "hi"`, `a\ b`, "a; b"} {
		if _, err := Words(line); !errors.Is(err, ErrShellSyntax) {
			t.Errorf("Words(%q) error = %v, want ErrShellSyntax", line, err)
		}
	}
	if _, err := Words("curl 'open"); err == nil || errors.Is(err, ErrShellSyntax) {
		t.Errorf("an unterminated quote gave %v", err)
	}
}
