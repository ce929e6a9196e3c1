package codecv10

import (
	"strconv"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/jsonscan"
)

// ignoredMembers collects the paths of the members of a SendMessage request
// that v1.0 does not define (the decoder skips them, as servers do), so the
// journal can say what the client sent that the agent never read:
// configuration.blocking from a v0.3 habit, message.parts[0].kind.
type ignoredMembers struct {
	paths []string
}

// skip skips the value of key when v1.0 defines no member of that name at
// path (index >= 0 for an element of the list at path), noting
// path.key; false for a key encoding/json would match to a known member.
func (ig *ignoredMembers) skip(s *jsonscan.Scanner, path string, index int, key []byte, known ...string) bool {
	if !jsonscan.Unknown(key, known...) {
		return false
	}
	if len(ig.paths) < wire.MaxIgnored {
		p := path
		if index >= 0 {
			p += "[" + strconv.Itoa(index) + "]"
		}
		if p != "" {
			p += "."
		}
		ig.paths = append(ig.paths, p+string(key))
	}
	_, ok := s.Skip()
	return ok
}
