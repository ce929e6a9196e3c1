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

// knownParams lists, for each operation but the sends (whose members
// decodeSend10 notes as it reads them), the members v1.0 defines in its
// request message, by their JSON names: a proto name (page_size), a v0.3
// name (metadata on GetTask) or a typo is noted, since the agent never
// reads it.
var knownParams = map[wire.Op][]string{
	wire.OpGetTask:         {"tenant", "id", "historyLength"},
	wire.OpCancelTask:      {"tenant", "id", "metadata"},
	wire.OpSubscribe:       {"tenant", "id"},
	wire.OpListTasks:       {"tenant", "contextId", "status", "pageSize", "pageToken", "historyLength", "statusTimestampAfter", "includeArtifacts"},
	wire.OpSetPushConfig:   {"tenant", "id", "taskId", "url", "token", "authentication"},
	wire.OpGetPushConfig:   {"tenant", "taskId", "id"},
	wire.OpDeletePush:      {"tenant", "taskId", "id"},
	wire.OpListPushConfigs: {"tenant", "taskId", "pageSize", "pageToken"},
	wire.OpExtendedCard:    {"tenant"},
}

// ignoredParams lists, by path and in the order sent, the members of the
// params of op (decoded already) that v1.0 does not define, and those of a
// push config's authentication. A key with escapes ends the listing there.
func ignoredParams(op wire.Op, raw []byte) []string {
	known, ok := knownParams[op]
	if !ok {
		return nil
	}
	ig := &ignoredMembers{}
	s := jsonscan.New(raw)
	s.Members(func(key []byte) bool {
		if op == wire.OpSetPushConfig && string(key) == "authentication" && s.Peek() == '{' {
			return s.Members(func(key []byte) bool {
				if ig.skip(s, "authentication", -1, key, "scheme", "credentials") {
					return true
				}
				_, ok := s.Skip()
				return ok
			})
		}
		if ig.skip(s, "", -1, key, known...) {
			return true
		}
		_, ok := s.Skip()
		return ok
	})
	return ig.paths
}
