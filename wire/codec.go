package wire

// Codec translates between the canonical model and one dialect's JSON. A
// codec is stateless and safe for concurrent use; package codecs returns
// the codec of a dialect (codecs.For), implemented in internal packages.
type Codec interface {
	// Dialect names the dialect the codec speaks.
	Dialect() Dialect
	// Methods maps the dialect's JSON-RPC method names to operations.
	Methods() map[string]Op
	// DecodeParams decodes the JSON-RPC params of op (for v1.0 also the
	// HTTP+JSON request body, which has the same shape) into a Request. Op,
	// Dialect and the decoded fields are set; Method and Binding are left to
	// the caller. A missing or malformed field is an InvalidParams error that
	// names the field.
	DecodeParams(op Op, params []byte) (*Request, *Error)
	// EncodeResult renders the result of a unary op as the JSON value of a
	// JSON-RPC "result" (for v1.0 also the HTTP+JSON response body).
	EncodeResult(op Op, res *Result) ([]byte, error)
	// EncodeEvent renders one stream event as the JSON value of a JSON-RPC
	// "result" (for v1.0 also the data of an HTTP+JSON SSE event).
	EncodeEvent(ev Event) ([]byte, error)
	// EncodeErrorData renders the "data" member of a JSON-RPC error object,
	// or nil when e carries nothing to say.
	EncodeErrorData(e *Error) []byte
	// EncodePush renders the body of a push notification about ev.
	EncodePush(ev Event) ([]byte, error)
}

// LookupMethod finds the dialect and operation of a JSON-RPC method name.
// A dialect that borrows another's method names (Descriptor.MethodNamesOf:
// v0.2 has v0.3's) is never reported; AnswerDialect picks it when the
// agent's card is of that dialect.
func LookupMethod(name string) (Dialect, Op, bool) {
	for _, desc := range descriptors {
		if desc.MethodNamesOf != "" {
			continue
		}
		if op, ok := desc.Methods[name]; ok {
			return desc.Dialect, op, true
		}
	}
	return "", "", false
}
