package server

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/a2amock/a2amock/journal"
	"github.com/labstack/echo/v4"
)

// TotalCountHeader is the response header of GET /_a2amock/journal that
// holds how many entries matched the filter, before ?limit= cut the list.
const TotalCountHeader = "X-Total-Count"

// serveJournal is GET /_a2amock/journal?since=&agent=&task=&kind=&limit=.
// With agent=, entries from before the agent was created (a removed agent of
// the same name) or last reset are left out.
func (s *Server) serveJournal(c echo.Context) error {
	since, err := intParam(c, "since")
	if err != nil {
		return err
	}
	limit, err := intParam(c, "limit")
	if err != nil {
		return err
	}
	if limit < 0 {
		return fieldError(c, http.StatusBadRequest, "limit", "limit must be 0 (no limit) or more")
	}
	var kinds []EntryKind
	if v := c.QueryParam("kind"); v != "" {
		for _, k := range strings.Split(v, ",") {
			k := EntryKind(strings.TrimSpace(k))
			if !slices.Contains(journal.Kinds, k) {
				names := make([]string, len(journal.Kinds))
				for i, k := range journal.Kinds {
					names[i] = string(k)
				}
				return fieldError(c, http.StatusBadRequest, "kind", "kind "+strconv.Quote(string(k))+" is not one of "+strings.Join(names, ", "))
			}
			kinds = append(kinds, k)
		}
	}
	name := c.QueryParam("agent")
	if a, ok := s.lookupAgent(name); ok && name != "" {
		since = max(since, a.journalFrom.Load())
	}
	entries, total := s.journal.Page(since, journal.Match(name, c.QueryParam("task"), kinds), int(limit))
	c.Response().Header().Set(TotalCountHeader, strconv.Itoa(total))
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// serveReset is POST /_a2amock/reset: every agent, or with ?agent= one
// agent (its tasks, its behaviors' state and its journal view), so that a
// test on a shared server resets only its own agents.
func (s *Server) serveReset(c echo.Context) error {
	name := c.QueryParam("agent")
	if name == "" {
		s.Reset()
		return c.NoContent(http.StatusNoContent)
	}
	a, ok := s.lookupAgent(name)
	if !ok {
		return unknownAgent(c, s, name)
	}
	a.reset()
	a.journalFrom.Store(s.journal.LastSeq())
	return c.NoContent(http.StatusNoContent)
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

func unknownAgent(c echo.Context, s *Server, name string) error {
	return fieldError(c, http.StatusNotFound, "agent", "no agent named "+strconv.Quote(name)+" (agents: "+strings.Join(s.AgentNames(), ", ")+")")
}
