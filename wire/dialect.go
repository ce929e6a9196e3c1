package wire

import (
	"slices"
	"strings"

	"github.com/a2amock/a2amock/wire/internal/foreignfields"
)

// Adding a dialect touches this package and its tests: a Dialect constant
// and its place in Dialects, a codec (codec_vXY.go, registered in init), a
// descriptor in descriptors (TestDescriptorsConsistent checks it against
// the codec), and the dialect's JSON Schema vendored in
// internal/schemacheck/schema under the descriptor's SchemaFile. Only a new
// card shape needs more: a CardShape constant here and its parser and
// renderer in the cards package (checkRequired, fromWire, Render). The
// HTTP+JSON binding at an agent's REST base serves one dialect, the newest
// that lists it (ForBinding); serving two dialects on it would need
// version negotiation there. Over gRPC each dialect that sets GRPC has its
// own service (v1.0's lf.a2a.v1.A2AService, v0.3's a2a.v1.A2AService), so
// the path of a call names its dialect; ForBinding(BindingGRPC) is the
// newest. An older
// dialect's HTTP+JSON binding has its own base (Descriptor.RESTPath) and
// its own codec (codecs.ForREST). testkit.Client speaks v1.0 and v0.3 with its own
// shapes, on purpose, and is taught a dialect separately if at all.
// TestNoDialectRulesOutsideWire keeps dialect comparisons out of the rest
// of the tree.

// A Descriptor holds the rules of one dialect that the rest of the tree
// needs beyond the codec: what differs between dialects is looked up here
// rather than compared (`d == V10`) where it is used, so that adding a
// dialect means adding its codec and its descriptor. Descriptors are
// package data: read them, never modify them (the slices are shared).
type Descriptor struct {
	// Dialect is the dialect described.
	Dialect Dialect
	// Major is the protocol's major version. Dialects of one major version
	// form one method generation: an A2A-Version header of that major
	// matches their methods (StrictVersion), and behaviors that serve "the
	// other method set" (version-skew) tell dialects apart by it.
	Major int
	// MethodNamesOf names the dialect whose JSON-RPC method names this
	// dialect uses, when it has none of its own (v0.2 speaks v0.3's names):
	// LookupMethod reports that dialect, and an agent whose card is of this
	// dialect answers every one of those names in this dialect.
	MethodNamesOf Dialect
	// Ops lists the operations the dialect has, in the order of the Op
	// constants. Its codec has exactly one JSON-RPC method per op.
	Ops []Op
	// Methods maps the dialect's JSON-RPC method names to operations, one
	// per op in Ops; its codec's Methods returns it. The map is shared:
	// read it, never modify it.
	Methods map[string]Op
	// Bindings lists the bindings every agent of this dialect serves, JSON-RPC
	// first; a card of the dialect declares one interface per binding.
	Bindings []Binding
	// GRPC reports whether the dialect is served over gRPC when the server
	// enables that binding, on its own service (then the card also
	// declares a GRPC interface; for a dialect without Tenant, only the
	// card of the agent its tenantless calls reach).
	GRPC bool
	// GRPCService is the full name of the dialect's gRPC service, when
	// GRPC is set: its methods are called at /{GRPCService}/{Method}.
	GRPCService string
	// GRPCMethods maps the gRPC service's method names to operations; nil
	// when they are the dialect's JSON-RPC method names (Methods).
	GRPCMethods map[string]Op
	// RESTPath, when set, is where below an agent's base URL the dialect's
	// own HTTP+JSON binding is served and declared, for a dialect other
	// than the one ForBinding(BindingREST) names (whose base is the
	// server's): v0.3's /v1/... routes live under it, where no route of the
	// v1.0 binding's /{tenant}/... forms can be (a v1.0 path never has v1
	// after its tenant).
	RESTPath string

	// VersionHeaderOptional reports whether a request may omit A2A-Version:
	// no header means version 0.3 (v1.0 §1.6), which a strict agent accepts
	// only for the dialects that set this.
	VersionHeaderOptional bool
	// Advertised reports whether the dialect is named in the
	// supportedVersions of a VersionNotSupportedError.
	Advertised bool

	// FinalFlag reports whether status-update events carry `final`, the
	// last event of a stream having it true. A dialect without it ends a
	// stream by closing it after the terminal or interrupted event.
	FinalFlag bool
	// ResultEnvelope reports whether a send result is a wrapper object
	// ({"task": ...} or {"message": ...}); otherwise it is the bare task or
	// message, told apart by its `kind`.
	ResultEnvelope bool
	// Tenant reports whether requests carry a tenant.
	Tenant bool
	// ClientTaskIDs reports whether a send may name a task id the agent
	// does not know, creating a task with that id (v0.1's tasks/send);
	// otherwise an unknown task id is TaskNotFound.
	ClientTaskIDs bool
	// SubscribeTerminalFails reports whether subscribing to a task in a
	// terminal state is an UnsupportedOperationError; otherwise the stream
	// answers the task in its final state and closes.
	SubscribeTerminalFails bool

	// PushSendsTask reports whether webhooks receive the whole Task object
	// for each change of the task (as the v0.x docs and SDKs send it)
	// rather than the event itself.
	PushSendsTask bool
	// PushContentType is the Content-Type of a push notification.
	PushContentType string
	// PushTokenHeader is the header that carries a push config's token.
	PushTokenHeader string
	// PushURLField is the parameter path of the webhook URL of
	// set-push-config; InlinePushURLField that of a push config given
	// inline in a send's configuration. Errors about the URL name them.
	PushURLField, InlinePushURLField string

	// CardShape is the JSON shape of the dialect's Agent Card. The cards
	// package has a parser and a renderer per shape.
	CardShape CardShape
	// CardProtocolVersion is the card's protocolVersion member, "" for a
	// shape that has none.
	CardProtocolVersion string
	// CardMutualTLS reports whether the card's security schemes may be of
	// type mutualTLS (v0.2.6 has no such scheme).
	CardMutualTLS bool
	// CardStateTransitionHistory reports whether the card can declare
	// capabilities.stateTransitionHistory.
	CardStateTransitionHistory bool
	// SchemaFile is the file name of the dialect's official JSON Schema,
	// vendored under internal/schemacheck/schema.
	SchemaFile string
	// ForeignFields says, for a send's field that this dialect does not
	// define but another does (so an agent of this dialect ignores it),
	// what this dialect calls it: the usual cause of an ignored field is a
	// client written against the other version. Keys are paths with list
	// indexes as [] (message.parts[].kind).
	ForeignFields map[string]string

	// The dialect's spellings, from its codec: see StateName, ParseState
	// and RoleName.
	stateName  func(TaskState) string
	parseState func(string) (TaskState, bool)
	roleName   func(Role) string
}

// StateName spells task state s as the dialect writes it ("" for an
// unknown dialect).
func (d Descriptor) StateName(s TaskState) string {
	if d.stateName == nil {
		return ""
	}
	return d.stateName(s)
}

// ParseState reads a task state as the dialect writes it; ok is false for
// a name the dialect does not have.
func (d Descriptor) ParseState(name string) (TaskState, bool) {
	if d.parseState == nil {
		return "", false
	}
	return d.parseState(name)
}

// RoleName spells a message role as the dialect writes it ("" for an
// unknown dialect).
func (d Descriptor) RoleName(r Role) string {
	if d.roleName == nil {
		return ""
	}
	return d.roleName(r)
}

// parseStateV0 reads a v0.x state, known reporting which the dialect has.
func parseStateV0(known func(TaskState) bool) func(string) (TaskState, bool) {
	return func(name string) (TaskState, bool) {
		s := TaskState(name)
		return s, known(s)
	}
}

func roleV0(r Role) string { return string(r) }

// CardShape names one of the Agent Card's JSON shapes.
type CardShape string

// The card shapes. A new dialect whose card fits one of them needs no new
// code in the cards package.
const (
	// CardShapeV10 is the proto-shaped card with supportedInterfaces.
	CardShapeV10 CardShape = "supportedInterfaces"
	// CardShapeV03 is the card with url, preferredTransport,
	// additionalInterfaces and protocolVersion (v0.2.x and v0.3.0).
	CardShapeV03 CardShape = "url+protocolVersion"
	// CardShapeV01 is the card with url and authentication.
	CardShapeV01 CardShape = "url+authentication"
)

const (
	contentTypeA2AJSON = "application/a2a+json"
	contentTypeJSON    = "application/json"
)

// descriptors holds one descriptor per dialect, in the order of Dialects.
var descriptors = []Descriptor{
	{
		Dialect: V10, Major: 1, Methods: v10Methods,
		Ops: []Op{OpSend, OpStream, OpGetTask, OpListTasks, OpCancelTask, OpSubscribe,
			OpSetPushConfig, OpGetPushConfig, OpListPushConfigs, OpDeletePush, OpExtendedCard},
		Bindings: []Binding{BindingJSONRPC, BindingREST}, GRPC: true, GRPCService: "lf.a2a.v1.A2AService",
		Advertised:     true,
		ResultEnvelope: true, Tenant: true, SubscribeTerminalFails: true,
		PushContentType: contentTypeA2AJSON, PushTokenHeader: "A2A-Notification-Token",
		PushURLField: "url", InlinePushURLField: "configuration.taskPushNotificationConfig.url",
		CardShape:  CardShapeV10,
		SchemaFile: "a2a-v1.0.json", ForeignFields: foreignfields.V03InV10,
		stateName: StateToV10, parseState: StateFromV10, roleName: RoleToV10,
	},
	{
		Dialect: V03, Major: 0, Methods: v03Methods,
		Ops: []Op{OpSend, OpStream, OpGetTask, OpCancelTask, OpSubscribe,
			OpSetPushConfig, OpGetPushConfig, OpListPushConfigs, OpDeletePush, OpExtendedCard},
		Bindings: []Binding{BindingJSONRPC, BindingREST}, RESTPath: "/v0.3",
		GRPC: true, GRPCService: "a2a.v1.A2AService", GRPCMethods: v03GRPCMethods,
		VersionHeaderOptional: true, Advertised: true,
		FinalFlag:     true,
		PushSendsTask: true, PushContentType: contentTypeJSON, PushTokenHeader: "X-A2A-Notification-Token",
		PushURLField: "pushNotificationConfig.url", InlinePushURLField: "configuration.pushNotificationConfig.url",
		CardShape: CardShapeV03, CardProtocolVersion: "0.3.0", CardMutualTLS: true, CardStateTransitionHistory: true,
		SchemaFile: "a2a-v0.3.0.json", ForeignFields: foreignfields.V10InV0,
		stateName: StateToV03, parseState: parseStateV0(TaskState.Valid), roleName: roleV0,
	},
	{
		Dialect: V02, Major: 0, MethodNamesOf: V03, Methods: v02Methods,
		Ops: []Op{OpSend, OpStream, OpGetTask, OpCancelTask, OpSubscribe,
			OpSetPushConfig, OpGetPushConfig, OpListPushConfigs, OpDeletePush},
		Bindings:              []Binding{BindingJSONRPC},
		VersionHeaderOptional: true,
		FinalFlag:             true,
		PushSendsTask:         true, PushContentType: contentTypeJSON, PushTokenHeader: "X-A2A-Notification-Token",
		PushURLField: "pushNotificationConfig.url", InlinePushURLField: "configuration.pushNotificationConfig.url",
		CardShape: CardShapeV03, CardProtocolVersion: "0.2.6", CardStateTransitionHistory: true,
		SchemaFile: "a2a-v0.2.6.json", ForeignFields: foreignfields.V10InV0,
		stateName: StateToV03, parseState: parseStateV0(TaskState.Valid), roleName: roleV0,
	},
	{
		Dialect: V01, Major: 0, Methods: v01Methods,
		Ops:                   []Op{OpSend, OpStream, OpGetTask, OpCancelTask, OpSubscribe, OpSetPushConfig, OpGetPushConfig},
		Bindings:              []Binding{BindingJSONRPC},
		VersionHeaderOptional: true,
		FinalFlag:             true, ClientTaskIDs: true,
		PushSendsTask: true, PushContentType: contentTypeJSON, PushTokenHeader: "X-A2A-Notification-Token",
		PushURLField: "pushNotificationConfig.url", InlinePushURLField: "pushNotification.url",
		CardShape: CardShapeV01, CardStateTransitionHistory: true,
		SchemaFile: "a2a-v0.1.0.json",
		stateName:  StateToV01, parseState: parseStateV0(KnownStateV01), roleName: roleV0,
	},
}

// Describe returns the descriptor of d, or the zero Descriptor (every rule
// off) when d is not a known dialect.
func Describe(d Dialect) Descriptor {
	for i := range descriptors {
		if descriptors[i].Dialect == d {
			return descriptors[i]
		}
	}
	return Descriptor{}
}

// Descriptors returns every dialect's descriptor, newest first.
func Descriptors() []Descriptor { return slices.Clone(descriptors) }

// Known reports whether d is a dialect a2amock speaks.
func Known(d Dialect) bool { return Describe(d).Dialect != "" }

// Newest is the newest dialect: the one a card without a dialect is
// rendered in and a push falls back to.
func Newest() Dialect { return descriptors[0].Dialect }

// DialectNames lists the dialects newest first, joined by sep, the last
// two by last: DialectNames(", ", " or ") is "1.0, 0.3, 0.2 or 0.1".
func DialectNames(sep, last string) string {
	names := make([]string, len(descriptors))
	for i, d := range descriptors {
		names[i] = string(d.Dialect)
	}
	if len(names) < 2 {
		return strings.Join(names, sep)
	}
	return strings.Join(names[:len(names)-1], sep) + last + names[len(names)-1]
}

// LookupGRPCMethod finds the dialect and operation of a gRPC call by its
// path (/{service}/{method}), for the dialects served over gRPC.
func LookupGRPCMethod(path string) (Dialect, Op, bool) {
	svc, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok || !strings.HasPrefix(path, "/") {
		return "", "", false
	}
	for _, desc := range descriptors {
		if !desc.GRPC || desc.GRPCService != svc {
			continue
		}
		methods := desc.GRPCMethods
		if methods == nil {
			methods = desc.Methods
		}
		if op, ok := methods[method]; ok {
			return desc.Dialect, op, true
		}
	}
	return "", "", false
}

// ForBinding returns the dialect served on binding b: the newest dialect
// that lists b, or that is served over gRPC when b is BindingGRPC; "" when
// none is. HTTP+JSON at an agent's REST base serves one dialect (its
// requests do not name one); over gRPC an older dialect that sets GRPC
// has its own service beside this one's.
func ForBinding(b Binding) Dialect {
	for _, d := range descriptors {
		if slices.Contains(d.Bindings, b) || b == BindingGRPC && d.GRPC {
			return d.Dialect
		}
	}
	return ""
}

// RESTRoutesAt finds the dialect whose own HTTP+JSON routes
// ({RESTPath}/v1/...) path holds: it returns that dialect and the index in
// path where its RESTPath begins, or -1 when no dialect's are there. A
// path below an agent's base holds them at 0; a recorded path, which
// begins with the agent's base, further on.
func RESTRoutesAt(path string) (Dialect, int) {
	for _, d := range descriptors {
		if d.RESTPath == "" {
			continue
		}
		if i := strings.Index(path, d.RESTPath+"/v1/"); i >= 0 {
			return d.Dialect, i
		}
	}
	return "", -1
}

// Supports reports whether op exists in d.
func (d Descriptor) Supports(op Op) bool { return slices.Contains(d.Ops, op) }

// MethodName returns the JSON-RPC method name of op in d.
func MethodName(d Dialect, op Op) (string, bool) {
	for name, o := range Describe(d).Methods {
		if o == op {
			return name, true
		}
	}
	return "", false
}

// AnswerDialect returns the dialect that answers a JSON-RPC method that
// LookupMethod found in dialect found, on an agent whose card is of dialect
// card. Dialects share method names (tasks/get is v0.1's and v0.3's; v0.2
// has v0.3's): on a shared name the card says which dialect the agent
// speaks. A name only another dialect has (message/send on a v0.1 agent,
// any v1.0 name) is answered in that dialect whatever the card says: one
// endpoint serves every dialect.
func AnswerDialect(found, card Dialect, method string) Dialect {
	if card == found {
		return found
	}
	if Describe(card).MethodNamesOf == found {
		return card
	}
	if Describe(found).MethodNamesOf == "" {
		if _, shared := Describe(card).Methods[method]; shared {
			return card
		}
	}
	return found
}

// TaskAnswerDialect returns the dialect in which a request of dialect d
// about a task created in dialect taskDialect is answered when that differs
// from d; "" when d answers. Within one major version a task is answered in
// the shape of the dialect that created it, on every method the newer of
// the two dialects has: a task made by v0.1's tasks/send read or continued
// with v0.3's tasks/get or message/send is answered in v0.1, and one made
// by v0.3's message/send on a v0.1 agent read with the tasks/get they
// share is answered in v0.3. A dialect that borrows another's method names
// (v0.2) answers in itself, and a task created in one is answered as of
// the dialect whose names it borrows. taskDialect is called only when
// the answer depends on it (it may take a lock).
func TaskAnswerDialect(d Dialect, method string, taskDialect func() Dialect) Dialect {
	dd := Describe(d)
	if dd.Dialect == "" || dd.MethodNamesOf != "" || !maySwitchToTask(dd, method) {
		return ""
	}
	td := taskDialect()
	if of := Describe(td).MethodNamesOf; of != "" {
		td = of
	}
	tdd := Describe(td)
	if td == d || tdd.Dialect == "" || tdd.Major != dd.Major {
		return ""
	}
	newer := d
	if slices.Index(Dialects, td) < slices.Index(Dialects, d) {
		newer = td
	}
	if _, ok := Describe(newer).Methods[method]; !ok {
		return ""
	}
	return td
}

// maySwitchToTask reports whether a request of d by method could be
// answered in another dialect of d's major version, whichever it is.
func maySwitchToTask(dd Descriptor, method string) bool {
	for _, o := range descriptors {
		if o.Dialect == dd.Dialect || o.Major != dd.Major || o.MethodNamesOf != "" {
			continue
		}
		newer := dd.Dialect
		if slices.Index(Dialects, o.Dialect) < slices.Index(Dialects, dd.Dialect) {
			newer = o.Dialect
		}
		if _, ok := Describe(newer).Methods[method]; ok {
			return true
		}
	}
	return false
}

// DialectOfVersion returns the dialect a protocol version string names:
// its Major.Minor ("0.3.0" and "0.3" name 0.3). ok is false for a version
// a2amock does not speak.
func DialectOfVersion(v string) (Dialect, bool) {
	d := Dialect(majorMinor(v))
	return d, Known(d)
}

// majorMinor cuts a version such as "0.3.0" to "0.3".
func majorMinor(v string) string {
	if i := strings.IndexByte(v, '.'); i >= 0 {
		if j := strings.IndexByte(v[i+1:], '.'); j >= 0 {
			return v[:i+1+j]
		}
	}
	return v
}

// NoHeaderVersion is the version of a request without an A2A-Version
// header (v1.0 §1.6).
const NoHeaderVersion = V03

// AdvertisedVersions lists the advertised dialects, newest first, as the
// supportedVersions of a VersionNotSupportedError ("1.0, 0.3").
func AdvertisedVersions() string { return advertisedVersions }

var advertisedVersions = joinAdvertised()

func joinAdvertised() string {
	var vs []string
	for _, d := range descriptors {
		if d.Advertised {
			vs = append(vs, string(d.Dialect))
		}
	}
	return strings.Join(vs, ", ")
}

// CheckVersion applies the A2A-Version rules to a request of dialect d whose
// A2A-Version header (or query parameter) is v, "" when absent. Clients
// must send Major.Minor; a numeric patch is accepted too, leniently, but
// nothing more (1.0.0.0 is not a version). With strict, a request without
// the header is refused for a dialect whose requests must carry one, and a
// version of another major version than d's is refused.
func CheckVersion(v string, d Dialect, strict bool) *Error {
	supported := AdvertisedVersions()
	if v == "" {
		if strict && !Describe(d).VersionHeaderOptional {
			return Errorf(CodeVersionNotSupported, "version %s (no A2A-Version header) does not serve v%s methods; send A2A-Version: %s", NoHeaderVersion, d, d).With("supportedVersions", supported)
		}
		return nil
	}
	// A patch version is dropped: "1.0.2" is 1.0.
	if major, rest, ok := strings.Cut(v, "."); ok {
		if minor, patch, ok := strings.Cut(rest, "."); ok && !strings.Contains(patch, ".") && isDigits(patch) {
			v = v[:len(major)+1+len(minor)]
		}
	}
	if hd := Describe(Dialect(v)); hd.Dialect != "" {
		if strict && hd.Major != Describe(d).Major {
			return Errorf(CodeVersionNotSupported, "A2A-Version %s does not match the %s method set", v, d).With("supportedVersions", supported)
		}
		return nil
	}
	return Errorf(CodeVersionNotSupported, "A2A-Version %q is not supported; supported: %s", v, supported).With("supportedVersions", supported)
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
