package wire

import "time"

// Dialect is a version of the A2A wire format, named by its Major.Minor.
type Dialect string

// The dialects a2amock speaks.
const (
	V10 Dialect = "1.0"
	V03 Dialect = "0.3"
	V02 Dialect = "0.2"
	V01 Dialect = "0.1"
)

// Dialects lists every dialect, newest first.
var Dialects = []Dialect{V10, V03, V02, V01}

// Binding is the transport binding a request came over.
type Binding string

// The bindings a2amock serves.
const (
	BindingJSONRPC Binding = "JSONRPC"
	BindingREST    Binding = "HTTP+JSON"
	// BindingGRPC is the gRPC binding (lf.a2a.v1.A2AService), served when
	// the server enables it.
	BindingGRPC Binding = "GRPC"
)

// Op is a canonical operation, independent of its name in any dialect.
type Op string

// The canonical operations.
const (
	OpSend            Op = "send"
	OpStream          Op = "stream"
	OpGetTask         Op = "get-task"
	OpListTasks       Op = "list-tasks"
	OpCancelTask      Op = "cancel-task"
	OpSubscribe       Op = "subscribe"
	OpSetPushConfig   Op = "set-push-config"
	OpGetPushConfig   Op = "get-push-config"
	OpListPushConfigs Op = "list-push-configs"
	OpDeletePush      Op = "delete-push-config"
	OpExtendedCard    Op = "extended-card"
)

// Streaming reports whether op answers with an event stream.
func (op Op) Streaming() bool { return op == OpStream || op == OpSubscribe }

// SendConfig is the configuration of a send (SendMessageConfiguration /
// MessageSendConfiguration).
type SendConfig struct {
	AcceptedOutputModes []string
	// HistoryLength is nil when the client set no limit.
	HistoryLength *int
	// ReturnImmediately is v1.0's returnImmediately, or !blocking in v0.x
	// (absent blocking means blocking, as the SDKs do).
	ReturnImmediately bool
	PushConfig        *PushConfig
}

// ListTasksQuery holds ListTasks' filters and paging.
type ListTasksQuery struct {
	ContextID            string
	State                TaskState
	PageSize             int
	PageToken            string
	HistoryLength        *int
	StatusTimestampAfter time.Time
	IncludeArtifacts     bool
}

// Request is a decoded request of any dialect and binding.
type Request struct {
	Op      Op
	Method  string // the method name as sent (JSON-RPC) or the REST route
	Dialect Dialect
	Binding Binding
	Tenant  string

	// Send / stream.
	Message *Message
	Config  SendConfig

	// Task-addressed operations (get, cancel, subscribe, push configs).
	TaskID        string
	HistoryLength *int

	List ListTasksQuery

	// Push-config operations.
	PushConfig   *PushConfig
	PushConfigID string

	Metadata map[string]any

	// Ignored lists the members of a SendMessage request its dialect does
	// not define, by path (configuration.blocking, message.parts[0].kind):
	// the agent skips them, as servers do, and the journal says so. Noted
	// by the v1.0 codec over JSON-RPC and HTTP+JSON and the v0.2/v0.3
	// codec, at most MaxIgnored.
	Ignored []string
}

// MaxIgnored bounds the ignored members a request's decoding notes: a
// client sending thousands of unknown keys costs the journal a few lines.
const MaxIgnored = 16

// Result is the canonical answer to a unary request; which member is set
// depends on the operation.
type Result struct {
	Task        *Task
	Message     *Message
	Page        *TaskPage
	PushConfig  *PushConfig
	PushConfigs []PushConfig
	// NextPushConfigsToken is the token of the next page of a v1.0
	// ListTaskPushNotificationConfigs ("" on the last page).
	NextPushConfigsToken string
	// Card is an already rendered agent card (extended card operations).
	Card []byte
	// Empty is set for operations whose result is empty (push delete).
	Empty bool
}
