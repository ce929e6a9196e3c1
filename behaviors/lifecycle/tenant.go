package lifecycle

import (
	"encoding/json"
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var tenantSpec = core.Spec{
	Name: "tenant",
	Doc: `Reproduces multi-tenant agents (v1.0 §8.3.2): every interface of the
served card declares tenant 'tenant', which clients must send with each
request (the tenant field of the JSON-RPC params, the /{tenant} prefix of
HTTP+JSON paths). mode=require: a request without that tenant, or with
another, is answered as not found (TaskNotFoundError for the task
operations, a 404 method-not-found for the others), as a tenant-scoped
agent would. mode=leak: the agent declares the tenant but ignores it: a
request naming any tenant, or none, is served every task, another
tenant's included (a cross-tenant leak). v1.0 dialect, both bindings.
Tests that a client carries the card's tenant into every request, and
(leak) that a client or gateway relying on tenant isolation notices when
an agent does not provide it. Evidence: a2a-go#357, spec §8.3.2.`,
	New: func() core.Behavior { return &Tenant{Tenant: "acme", Mode: "require"} },
}

// Tenant declares a tenant on the card and enforces or ignores it.
type Tenant struct {
	Tenant string `param:"tenant" doc:"the tenant the card's interfaces declare"`
	Mode   string `param:"mode" doc:"require or leak"`
}

// Validate implements Validator.
func (b *Tenant) Validate() error {
	if b.Tenant == "" {
		return fmt.Errorf("tenant must not be empty")
	}
	if b.Mode != "require" && b.Mode != "leak" {
		return fmt.Errorf("mode must be require or leak, not %q", b.Mode)
	}
	return nil
}

// Apply implements Behavior.
func (b *Tenant) Apply(x *core.Exchange) {
	if x.Op == core.OpCard {
		x.OnCardJSON(func(raw []byte) []byte { return setInterfaceTenant(raw, b.Tenant) })
		return
	}
	if !wire.Describe(x.Dialect).Tenant || x.Request == nil || b.Mode != "require" || x.Request.Tenant == b.Tenant {
		return
	}
	got := x.Request.Tenant
	if got == "" {
		got = "none"
	}
	if x.Request.TaskID != "" {
		x.RejectWith(wire.ErrTaskNotFound(x.Request.TaskID))
		return
	}
	x.RejectWith(wire.Errorf(wire.CodeMethodNotFound, "no tenant %q here: send tenant %q as the card's interfaces declare", got, b.Tenant).
		WithHTTPStatus(404)) // Not Found
}

// setInterfaceTenant sets the tenant of every interface of a rendered v1.0
// card.
func setInterfaceTenant(raw []byte, tenant string) []byte {
	var card map[string]any
	if json.Unmarshal(raw, &card) != nil {
		return raw
	}
	list, _ := card["supportedInterfaces"].([]any)
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			m["tenant"] = tenant
		}
	}
	out, err := json.Marshal(card)
	if err != nil {
		return raw
	}
	return out
}
