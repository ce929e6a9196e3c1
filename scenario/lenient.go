package scenario

import "github.com/a2amock/a2amock/scenario/internal/lenient"

// decodeLeniently decodes what it can of a file with structural problems,
// the values at fault dropped (package lenient), so that Check can report
// its semantic problems in the same pass; nil when even that does not
// decode, or a problem concerns the whole document. Problems of a key drop
// nothing: an unknown key is ignored, a missing one left empty.
func decodeLeniently(data []byte, structural []Problem) *Scenario {
	bad := map[string]bool{}
	for _, p := range structural {
		if p.Path == "" && !p.ofKey {
			return nil
		}
		if !p.ofKey {
			bad[p.Path] = true
		}
	}
	s := &Scenario{}
	if !lenient.Decode(data, bad, s) {
		return nil
	}
	return s
}

// faulted returns the paths of the values problems are about (a missing
// key's absent value included): a semantic problem at or below one of them
// says nothing new.
func faulted(problems []Problem) []string {
	at := make([]string, len(problems))
	for i, p := range problems {
		at[i] = p.Path
		if p.ofKey {
			at[i] = p.missing
		}
	}
	return at
}
