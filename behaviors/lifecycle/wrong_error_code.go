package lifecycle

import (
	"errors"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var wrongErrorCodeSpec = core.Spec{
	Name: "wrong-error-code",
	Doc: `Reproduces agents that answer the right failure with the wrong code, e.g.
InvalidParams (-32602) where TaskNotFoundError (-32001) is due; the message
text is kept. Applies to unary answers and to errors refusing a stream before
it starts, of requests the agent could read: an error raised while reading
one (a parse error, an unknown method, params that do not decode) is
answered before any behavior sees the request. Tests that a client does not branch on the code alone where the
spec's code is load-bearing (retry, re-create, give up), and reports the
mismatch.`,
	New: func() core.Behavior { return &WrongErrorCode{From: wire.CodeTaskNotFound, To: wire.CodeInvalidParams} },
}

// WrongErrorCode rewrites one error code into another. It tests the
// client's error classification.
type WrongErrorCode struct {
	// From is the code the honest agent answers.
	From int `param:"from" doc:"error code the honest agent answers"`
	// To is the code sent instead.
	To int `param:"to" doc:"error code sent instead"`
}

// Validate implements Validator.
func (b *WrongErrorCode) Validate() error {
	if b.From == b.To {
		return errors.New("from and to must differ")
	}
	return nil
}

// Apply implements Behavior.
func (b *WrongErrorCode) Apply(x *core.Exchange) {
	x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
		if err == nil || err.Code != b.From {
			return res, err
		}
		e := *err
		e.Code = b.To
		return res, &e
	})
}
