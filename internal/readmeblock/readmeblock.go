// Package readmeblock reads the shell lines the README shows, so that the
// tests which run them (cmd/a2amock's and the interop module's) read and
// split them one way: a README line a test cannot run as written fails
// the test rather than being run differently from how a reader would.
package readmeblock

import (
	"errors"
	"fmt"
	"strings"
)

// Lines returns the lines of the first ```sh block after marker (e.g.
// "<!-- repro: name") in markdown, trimmed of surrounding blank lines.
func Lines(markdown, marker string) ([]string, error) {
	_, after, ok := strings.Cut(markdown, marker)
	if !ok {
		return nil, fmt.Errorf("no %q in the README", marker)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		return nil, fmt.Errorf("no ```sh block after %q", marker)
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		return nil, fmt.Errorf("the ```sh block after %q is not closed", marker)
	}
	return strings.Split(strings.TrimSpace(block), "\n"), nil
}

// ErrShellSyntax is the error Words returns for a line using shell syntax
// beyond plain and single-quoted words (expansions, pipes, redirections,
// double quotes, escapes).
var ErrShellSyntax = errors.New("the README line uses shell syntax the tests do not run")

// Words splits a command line as sh does for plain and single-quoted
// words, the only syntax the README's runnable lines use.
func Words(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("\"$`\\|&;<>()", r):
			return nil, fmt.Errorf("%w: %s", ErrShellSyntax, line)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote: %s", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
