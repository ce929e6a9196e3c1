package credentials

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

// TestVerifyAgainstDeclaredSchemes: a card with an API-key scheme and a
// bearer scheme as alternatives accepts either fixed test credential,
// answers 401 (unauthenticated) for none or a wrong one and 403
// (permission denied) for the forbidden token; basic needs both the user
// and the password.
func TestVerifyAgainstDeclaredSchemes(t *testing.T) {
	t.Parallel()
	card := &cards.Card{
		SecuritySchemes: map[string]cards.SecurityScheme{
			"key":    {Type: cards.SchemeAPIKey, In: "header", Name: "X-Key"},
			"bearer": {Type: cards.SchemeHTTP, Scheme: "bearer"},
			"basic":  {Type: cards.SchemeHTTP, Scheme: "basic"},
		},
		Security: []map[string][]string{{"key": nil}, {"bearer": nil}},
	}
	req := func(h ...string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	assert.Nil(t, Verify(card, req("X-Key", TestAPIKey), ""))
	assert.Nil(t, Verify(card, req("Authorization", "Bearer "+TestBearerToken), ""))
	for name, tc := range map[string]struct {
		r    *http.Request
		code int
		msg  string
	}{
		"none":      {req(), wire.CodeUnauthenticated, "authentication required"},
		"wrong key": {req("X-Key", "nope"), wire.CodeUnauthenticated, "not valid"},
		"forbidden": {req("Authorization", "Bearer "+TestForbiddenToken), wire.CodeUnauthorized, "not allowed"},
	} {
		e := Verify(card, tc.r, "why")
		if assert.NotNil(t, e, name) {
			assert.Equal(t, tc.code, e.Code, name)
			assert.Contains(t, e.Message, tc.msg, name)
			assert.Contains(t, e.Message, "why", name)
		}
	}

	basic := &cards.Card{SecuritySchemes: map[string]cards.SecurityScheme{"basic": {Type: cards.SchemeHTTP, Scheme: "basic"}}}
	r := req()
	r.SetBasicAuth(TestBasicUser, TestBasicPassword)
	assert.Nil(t, Verify(basic, r, ""))
	r.SetBasicAuth("someone", TestBasicPassword)
	assert.NotNil(t, Verify(basic, r, ""), "the right password for another user")

	open := &cards.Card{}
	assert.NotNil(t, Verify(open, req(), ""), "no scheme declared: any Authorization header, but one")
	assert.Nil(t, Verify(open, req("Authorization", "anything"), ""))
}
