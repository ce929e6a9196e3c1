package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// FieldError is one problem with a field of a control-API request body:
// Field is its path (e.g. card.skills[0].id).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Line and Column locate the problem in a scenario text, when known.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// FieldErrors is every problem found in a body; a ScenarioLoader returns it
// so that the control API names the fields at fault.
type FieldErrors []FieldError

// Error renders one problem per line.
func (fe FieldErrors) Error() string {
	lines := make([]string, len(fe))
	for i, e := range fe {
		lines[i] = e.Field + ": " + e.Message
	}
	return strings.Join(lines, "\n")
}

// The refusals of CreateAgent and RemoveAgent the API answers with their
// own status.
var (
	ErrAgentExists   = errors.New("an agent of that name exists")
	ErrTooManyAgents = errors.New("the server hosts as many run-time agents as it may")
	ErrNoSuchAgent   = errors.New("no agent of that name")
	ErrStaticAgent   = errors.New("the agent was configured at start; only agents created through the control API can be removed")
)

// LimitError is ErrTooManyAgents with the limit in its text.
type LimitError struct{ Limit int }

// Error says how many run-time agents the server already hosts.
func (e LimitError) Error() string {
	return fmt.Sprintf("the server already hosts %d run-time agents; remove some first", e.Limit)
}

// Is makes errors.Is(err, ErrTooManyAgents) hold.
func (e LimitError) Is(target error) bool { return target == ErrTooManyAgents }

func controlError(c echo.Context, status int, rpcStatus, msg string, details []string) error {
	body := map[string]any{"error": map[string]any{"code": status, "status": rpcStatus, "message": msg}}
	if details != nil {
		body["errors"] = details
	}
	return c.JSON(status, body)
}

func intParam(c echo.Context, name string) (int64, error) {
	v := c.QueryParam(name)
	if v == "" {
		if _, given := c.QueryParams()[name]; given {
			return 0, fieldError(c, http.StatusBadRequest, name, name+" is empty: give an integer or leave it out")
		}
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fieldError(c, http.StatusBadRequest, name, name+" must be an integer")
	}
	return n, nil
}

// fieldError answers a control-API request with a 4xx that names the field
// at fault. It returns a non-nil error so handlers can return it as is;
// the echo error handler sees a committed response and writes nothing.
func fieldError(c echo.Context, status int, field, msg string) error {
	rpcStatus := "INVALID_ARGUMENT"
	switch status {
	case http.StatusNotFound:
		rpcStatus = "NOT_FOUND"
	case http.StatusConflict:
		rpcStatus = "ALREADY_EXISTS"
	case http.StatusRequestEntityTooLarge:
		rpcStatus = "RESOURCE_EXHAUSTED"
	}
	return writeFieldError(c, status, rpcStatus, field, msg)
}

func writeFieldError(c echo.Context, status int, rpcStatus, field, msg string) error {
	if err := c.JSON(status, map[string]any{"error": map[string]any{"code": status, "status": rpcStatus, "message": msg, "field": field}}); err != nil {
		return err
	}
	return errAnswered
}

// controlFieldError is controlError with the field at fault named.
func controlFieldError(c echo.Context, status int, rpcStatus, field, msg string, details []string) error {
	body := map[string]any{"error": map[string]any{"code": status, "status": rpcStatus, "message": msg, "field": field}}
	if details != nil {
		body["errors"] = details
	}
	return c.JSON(status, body)
}

// errAnswered marks a handler that has written its error answer.
var errAnswered = echo.NewHTTPError(http.StatusBadRequest)

func (api *API) unknownAgent(c echo.Context, name string) error {
	return fieldError(c, http.StatusNotFound, "agent", "no agent named "+strconv.Quote(name)+" (agents: "+strings.Join(api.agentNames(), ", ")+")")
}

// PrefixFieldErrors turns a loader's error into field errors: paths of a
// whole scenario document go under "scenario." (under is "scenario"), paths
// of a one-agent fragment lose their "agents[0]." prefix (under is "").
func PrefixFieldErrors(err error, fallback, under string) FieldErrors {
	var fe FieldErrors
	if !errors.As(err, &fe) {
		return FieldErrors{{Field: fallback, Message: err.Error()}}
	}
	out := make(FieldErrors, len(fe))
	for i, e := range fe {
		f := e.Field
		line, col := e.Line, e.Column
		if under == "" {
			// Positions in a document composed from the body mean nothing
			// to the client.
			f = strings.TrimPrefix(strings.TrimPrefix(f, "agents[0]."), "agents[0]")
			line, col = 0, 0
		} else if f != "" {
			f = under + "." + f
		}
		if f == "" {
			f = fallback
		}
		out[i] = FieldError{Field: f, Message: e.Message, Line: line, Column: col}
	}
	return out
}

// BehaviorFieldErrors turns the error of ParseBehaviors into field errors,
// one per bad spec under its index.
func BehaviorFieldErrors(err error) FieldErrors {
	var out FieldErrors
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		field := "behaviors"
		msg := e.Error()
		if strings.HasPrefix(msg, "behaviors[") {
			if i := strings.Index(msg, "]"); i > 0 {
				field, msg = msg[:i+1], strings.TrimSpace(msg[i+1:])
			}
		}
		out = append(out, FieldError{Field: field, Message: msg})
	}
	return out
}

// answerFieldErrors answers with the first problem as the error and every
// problem in "errors".
func answerFieldErrors(c echo.Context, status int, fe FieldErrors) error {
	msg := fe[0].Message
	if fe[0].Line > 0 {
		msg = fmt.Sprintf("%s (line %d, column %d)", msg, fe[0].Line, fe[0].Column)
	}
	if len(fe) > 1 {
		msg = fmt.Sprintf("%s (and %d more problem(s); nothing was created)", msg, len(fe)-1)
	}
	body := map[string]any{"error": map[string]any{"code": status, "status": "INVALID_ARGUMENT", "message": msg, "field": fe[0].Field}, "errors": fe}
	if err := c.JSON(status, body); err != nil {
		return err
	}
	return errAnswered
}

// jsonErrorField names the field a JSON decoding error is about.
func jsonErrorField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		if f, e := strconv.Unquote(strings.TrimPrefix(msg, "json: unknown field ")); e == nil {
			return f
		}
	}
	return "body"
}
