package clientrun

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// SplitCommand splits a --client command into words the way a POSIX shell
// does for a simple command: blanks separate words, single quotes keep
// everything literally, double quotes keep everything but \" \\ \$ \`
// escapes, and a backslash outside quotes escapes the next character. There
// is no expansion of variables, globs or pipes: a client that needs them
// runs under sh -c '…'.
func SplitCommand(cmd string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\\':
			inWord = true
			if i+1 < len(rs) {
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
				}
			}
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated single quote at character %d of the client command", i+1)
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated double quote at character %d of the client command", i+1)
			}
			i = j
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("the client command is empty")
	}
	return words, nil
}

// Substitute replaces {agent_url}, {prompt} and {input} in every word.
func Substitute(words []string, agentURL, prompt, input string) []string {
	r := strings.NewReplacer("{agent_url}", agentURL, "{prompt}", prompt, "{input}", input)
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = r.Replace(w)
	}
	return out
}

// CheckStartable says why the program of a split client command cannot be
// started (not found on PATH, not executable), before any scenario runs
// it; nil when it can, or when its name is only known once substituted.
func CheckStartable(argv []string) error {
	if len(argv) == 0 || strings.Contains(argv[0], "{") {
		return nil
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return errors.New(describeStartError(argv[0], err))
	}
	return nil
}
