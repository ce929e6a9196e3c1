package codecv0

import (
	"strconv"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/internal/jsonscan"
	"github.com/a2amock/a2amock/wire/internal/wirejson"
)

// ignored03 lists, by path and in the order sent, the members of a
// v0.2/v0.3 MessageSendParams that the dialect does not define
// (encoding/json skipped them), so the journal can say what the client sent
// that the agent never read: v1.0's configuration.returnImmediately, a
// part's v1.0 url. The params decoded already; a key with escapes ends the
// listing there.
func ignored03(params []byte) []string {
	l := &ignoredLister{s: jsonscan.New(params)}
	l.object("", sendKnown, func(key []byte) (bool, bool) {
		switch string(key) {
		case "configuration":
			return l.object("configuration", configKnown, nil), true
		case "message":
			return l.object("message", messageKnown, func(key []byte) (bool, bool) {
				if string(key) == "parts" {
					return l.parts(), true
				}
				return false, false
			}), true
		}
		return false, false
	})
	return l.paths
}

// The members v0.2/v0.3 define in MessageSendParams, its configuration, its
// message and a part.
var (
	sendKnown    = []string{"message", "configuration", "metadata"}
	configKnown  = []string{"acceptedOutputModes", "historyLength", "blocking", "pushNotificationConfig"}
	messageKnown = []string{"kind", "messageId", "role", "parts", "contextId", "taskId", "referenceTaskIds", "extensions", "metadata"}
	partKnown    = []string{"kind", "text", "file", "data", "metadata"}
)

type ignoredLister struct {
	s     *jsonscan.Scanner
	paths []string
}

// object lists the unknown members of the object at path, handing each
// known member to into first (which reports whether it read the value, and
// whether that went well); anything but an object is skipped.
func (l *ignoredLister) object(path string, known []string, into func(key []byte) (ok, read bool)) bool {
	if l.s.Peek() != '{' {
		_, ok := l.s.Skip()
		return ok
	}
	return l.s.Members(func(key []byte) bool {
		if jsonscan.Unknown(key, known...) {
			if len(l.paths) < wire.MaxIgnored {
				l.paths = append(l.paths, joinPath(path, string(key)))
			}
		} else if into != nil {
			if ok, read := into(key); read {
				return ok
			}
		}
		_, ok := l.s.Skip()
		return ok
	})
}

// parts lists the unknown members of each part of message.parts.
func (l *ignoredLister) parts() bool {
	if l.s.Peek() != '[' {
		_, ok := l.s.Skip()
		return ok
	}
	i := 0
	return l.s.Array(func() bool {
		ok := l.object("message.parts["+strconv.Itoa(i)+"]", partKnown, nil)
		i++
		return ok
	})
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// paramsKnown lists, for each v0.2/v0.3 operation but the sends, the
// members its params define (TaskQueryParams, TaskIdParams, the push-config
// params), and pushKnown those of a push config and its authentication.
var (
	paramsKnown = map[wire.Op][]string{
		wire.OpGetTask:         {"id", "historyLength", "metadata"},
		wire.OpCancelTask:      {"id", "metadata"},
		wire.OpSubscribe:       {"id", "metadata"},
		wire.OpListPushConfigs: {"id", "metadata"},
		wire.OpGetPushConfig:   {"id", "metadata", "pushNotificationConfigId"},
		wire.OpDeletePush:      {"id", "metadata", "pushNotificationConfigId"},
		wire.OpSetPushConfig:   {"taskId", "pushNotificationConfig"},
	}
	pushKnown = []string{"id", "url", "token", "authentication"}
	authKnown = []string{"schemes", "credentials"}
)

// ignoredParams03 lists, by path and in the order sent, the members of the
// params of op (decoded already) that v0.2/v0.3 do not define: v1.0's
// tenant, or historyLength on tasks/cancel.
func ignoredParams03(op wire.Op, params []byte) []string {
	known, ok := paramsKnown[op]
	if !ok || wirejson.IsAbsent(params) {
		return nil
	}
	l := &ignoredLister{s: jsonscan.New(params)}
	l.object("", known, func(key []byte) (bool, bool) {
		if op != wire.OpSetPushConfig || string(key) != "pushNotificationConfig" {
			return false, false
		}
		return l.object("pushNotificationConfig", pushKnown, func(key []byte) (bool, bool) {
			if string(key) != "authentication" {
				return false, false
			}
			return l.object("pushNotificationConfig.authentication", authKnown, nil), true
		}), true
	})
	return l.paths
}
