package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/internal/suggest"
)

// isHelp reports whether args ask for help before any "--".
func isHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// parseFlags parses args with fs, letting positional arguments sit between
// flags (a2amock replay FILE --speed 2); everything after "--" is
// positional. -h or --help prints "Usage: a2amock "+synopsis and the flags
// to stdout. When parsing ends the command, ok is false and code is its
// exit status: 0 after help, 2 after a bad flag (reported on stderr).
func parseFlags(fs *flag.FlagSet, synopsis string, args []string, stdout io.Writer) (pos []string, code int, ok bool) {
	out := fs.Output()
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: a2amock %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	if isHelp(args) {
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(out)
		return nil, 0, false
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, 2, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		// flag stops at the first non-flag or after "--": tell them apart
		// by what was consumed.
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// version is the module version and VCS revision from the build info.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "a2amock (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	s := "a2amock " + v
	var rev, when string
	dirty := false
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			when = kv.Value
		case "vcs.modified":
			dirty = kv.Value == "true"
		}
	}
	if rev != "" {
		s += " revision " + rev
		if dirty {
			s += " (modified)"
		}
		if when != "" {
			s += " " + when
		}
	}
	return s + " " + bi.GoVersion
}

// envName is the variable that sets flag name: A2AMOCK_<NAME>.
func envName(flagName string) string {
	return "A2AMOCK_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// valueError words a flag value's parse error for a person, by the flag's
// type: "not a boolean", "not a duration", "not a number".
func valueError(f *flag.Flag, err error) error {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return err
	}
	switch g.Get().(type) {
	case bool:
		return errors.New("not a boolean (use true or false)")
	case time.Duration:
		return errors.New("not a duration (e.g. 500ms, 2s)")
	case int, int64, uint, uint64:
		return errors.New("not a whole number")
	case float64:
		return errors.New("not a number")
	}
	return err
}

// unknownEnv lists the A2AMOCK_* variables of environ that no flag of fs
// reads and that are not in also (variables read elsewhere).
func unknownEnv(fs *flag.FlagSet, environ []string, also ...string) []string {
	known := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { known[envName(f.Name)] = true })
	for _, a := range also {
		known[a] = true
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "A2AMOCK_") && !known[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// otherEnv are A2AMOCK_* variables other parts read: testkit.Connect and
// the interop clients (A2AMOCK_URL, A2AMOCK_BIN) and the conformance
// runner's client contract.
var otherEnv = []string{"A2AMOCK_URL", "A2AMOCK_BIN", "A2AMOCK_CONTROL_TOKEN", "A2AMOCK_AGENT_URL", "A2AMOCK_PROMPT", "A2AMOCK_INPUT",
	"A2AMOCK_DEADLINE_MS", "A2AMOCK_SCENARIO", "A2AMOCK_MODE"}

// warnUnknownEnv prints one warning per A2AMOCK_* variable serve does not
// read, with the closest one it does when there is one.
func warnUnknownEnv(fs *flag.FlagSet, stderr io.Writer) {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, envName(f.Name)) })
	for _, k := range unknownEnv(fs, os.Environ(), otherEnv...) {
		hint := ""
		if s := closest(k, names); s != "" {
			hint = " (did you mean " + s + "?)"
		}
		fmt.Fprintf(stderr, "a2amock serve: warning: unknown environment variable %s ignored%s\n", k, hint)
	}
}

// closest returns the candidate nearest to s by edit distance, the
// A2AMOCK_ prefix aside, or "" when none is near enough to be a likely typo.
func closest(s string, candidates []string) string {
	trimmed := make([]string, len(candidates))
	for i, c := range candidates {
		trimmed[i] = strings.TrimPrefix(c, "A2AMOCK_")
	}
	if i := slices.Index(trimmed, suggest.Nearest(strings.TrimPrefix(s, "A2AMOCK_"), trimmed)); i >= 0 && trimmed[i] != "" {
		return candidates[i]
	}
	return ""
}

// seedFlag defines the uint64 flag --seed. flag.Uint64 refuses a seed past
// 64 bits as "value out of range", and through the environment the message
// became "not a whole number": this one names the range a seed takes.
func seedFlag(fs *flag.FlagSet, usage string) *uint64 {
	p := new(uint64)
	fs.Var((*seedValue)(p), "seed", usage+" (a `uint`, 0 to 18446744073709551615)")
	return p
}

// seedValue is a flag.Value that is not a flag.Getter, so valueError keeps
// its message.
type seedValue uint64

func (v *seedValue) String() string { return strconv.FormatUint(uint64(*v), 10) }

func (v *seedValue) Set(s string) error {
	// Base 0, as flag.Uint64: 0x1f and 1_000 are seeds too.
	n, err := strconv.ParseUint(s, 0, 64)
	if err == nil {
		*v = seedValue(n)
		return nil
	}
	// A whole number ParseUint refuses is too large or negative.
	_, ierr := strconv.ParseInt(s, 0, 64)
	if errors.Is(err, strconv.ErrRange) || ierr == nil || errors.Is(ierr, strconv.ErrRange) {
		return fmt.Errorf("out of range: a seed is 0 to %d", uint64(math.MaxUint64))
	}
	return fmt.Errorf("not a whole number: a seed is 0 to %d", uint64(math.MaxUint64))
}
