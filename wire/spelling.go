package wire

import "strconv"

// The dialects' spellings of what the canonical model names once: their
// JSON-RPC method names, task states and roles. The descriptors hand them
// out (Descriptor.Methods, StateName, ParseState, RoleName) and the codecs
// write and read them. The maps are shared: read them, never modify them.

var v10Methods = map[string]Op{
	"SendMessage":                      OpSend,
	"SendStreamingMessage":             OpStream,
	"GetTask":                          OpGetTask,
	"ListTasks":                        OpListTasks,
	"CancelTask":                       OpCancelTask,
	"SubscribeToTask":                  OpSubscribe,
	"CreateTaskPushNotificationConfig": OpSetPushConfig,
	"GetTaskPushNotificationConfig":    OpGetPushConfig,
	"ListTaskPushNotificationConfigs":  OpListPushConfigs,
	"DeleteTaskPushNotificationConfig": OpDeletePush,
	"GetExtendedAgentCard":             OpExtendedCard,
}

var v03Methods = map[string]Op{
	"message/send":                        OpSend,
	"message/stream":                      OpStream,
	"tasks/get":                           OpGetTask,
	"tasks/cancel":                        OpCancelTask,
	"tasks/resubscribe":                   OpSubscribe,
	"tasks/pushNotificationConfig/set":    OpSetPushConfig,
	"tasks/pushNotificationConfig/get":    OpGetPushConfig,
	"tasks/pushNotificationConfig/list":   OpListPushConfigs,
	"tasks/pushNotificationConfig/delete": OpDeletePush,
	"agent/getAuthenticatedExtendedCard":  OpExtendedCard,
}

// v03GRPCMethods are the methods of v0.3's gRPC service (a2a.v1.A2AService).
var v03GRPCMethods = map[string]Op{
	"SendMessage":                      OpSend,
	"SendStreamingMessage":             OpStream,
	"GetTask":                          OpGetTask,
	"CancelTask":                       OpCancelTask,
	"TaskSubscription":                 OpSubscribe,
	"CreateTaskPushNotificationConfig": OpSetPushConfig,
	"GetTaskPushNotificationConfig":    OpGetPushConfig,
	"ListTaskPushNotificationConfig":   OpListPushConfigs,
	"DeleteTaskPushNotificationConfig": OpDeletePush,
	"GetAgentCard":                     OpExtendedCard,
}

var v02Methods = map[string]Op{
	"message/send":                        OpSend,
	"message/stream":                      OpStream,
	"tasks/get":                           OpGetTask,
	"tasks/cancel":                        OpCancelTask,
	"tasks/resubscribe":                   OpSubscribe,
	"tasks/pushNotificationConfig/set":    OpSetPushConfig,
	"tasks/pushNotificationConfig/get":    OpGetPushConfig,
	"tasks/pushNotificationConfig/list":   OpListPushConfigs,
	"tasks/pushNotificationConfig/delete": OpDeletePush,
}

var v01Methods = map[string]Op{
	"tasks/send":                 OpSend,
	"tasks/sendSubscribe":        OpStream,
	"tasks/get":                  OpGetTask,
	"tasks/cancel":               OpCancelTask,
	"tasks/resubscribe":          OpSubscribe,
	"tasks/pushNotification/set": OpSetPushConfig,
	"tasks/pushNotification/get": OpGetPushConfig,
}

var v10StateNames = map[TaskState]string{
	StateSubmitted:     "TASK_STATE_SUBMITTED",
	StateWorking:       "TASK_STATE_WORKING",
	StateCompleted:     "TASK_STATE_COMPLETED",
	StateFailed:        "TASK_STATE_FAILED",
	StateCanceled:      "TASK_STATE_CANCELED",
	StateInputRequired: "TASK_STATE_INPUT_REQUIRED",
	StateRejected:      "TASK_STATE_REJECTED",
	StateAuthRequired:  "TASK_STATE_AUTH_REQUIRED",
}

// v10StateNumbers are the proto enum values, which ProtoJSON accepts in place
// of the names.
var v10StateNumbers = []TaskState{StateUnspecified, StateSubmitted, StateWorking, StateCompleted,
	StateFailed, StateCanceled, StateInputRequired, StateRejected, StateAuthRequired}

// StateToV10 returns the ProtoJSON enum name of s, for example
// "TASK_STATE_WORKING". States v1.0 does not have (unspecified, unknown)
// become "TASK_STATE_UNSPECIFIED".
func StateToV10(s TaskState) string {
	if n, ok := v10StateNames[s]; ok {
		return n
	}
	return "TASK_STATE_UNSPECIFIED"
}

// StateFromV10 parses a v1.0 task state as ProtoJSON allows it: the enum name
// ("TASK_STATE_WORKING") or its number ("2"). "TASK_STATE_UNSPECIFIED" and
// "0" give StateUnspecified with ok true; anything else gives ok false.
func StateFromV10(name string) (TaskState, bool) {
	if name == "TASK_STATE_UNSPECIFIED" {
		return StateUnspecified, true
	}
	for s, n := range v10StateNames {
		if n == name {
			return s, true
		}
	}
	if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(v10StateNumbers) {
		return v10StateNumbers[i], true
	}
	return StateUnspecified, false
}

// RoleToV10 returns the ProtoJSON enum name of r, for example "ROLE_USER".
func RoleToV10(r Role) string {
	switch r {
	case RoleUser:
		return "ROLE_USER"
	case RoleAgent:
		return "ROLE_AGENT"
	}
	return "ROLE_UNSPECIFIED"
}

// StateToV03 spells s as v0.2 and v0.3 write it; the unset state has no
// v0.x spelling, and "unknown" is the closest one the schema allows.
func StateToV03(s TaskState) string {
	if !s.Valid() {
		return string(StateUnknown)
	}
	return string(s)
}

// StateToV01 spells s as v0.1 writes it: v0.1 has no "rejected" or
// "auth-required", which become "failed" and "input-required".
func StateToV01(s TaskState) string {
	switch s {
	case StateRejected:
		return string(StateFailed)
	case StateAuthRequired:
		return string(StateInputRequired)
	}
	return StateToV03(s)
}

// KnownStateV01 says whether v0.1 has state s: it predates "rejected" and
// "auth-required".
func KnownStateV01(s TaskState) bool {
	return s.Valid() && s != StateRejected && s != StateAuthRequired
}
