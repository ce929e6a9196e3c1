package httpserve

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// TestEchoLogsAndRecovers: a request gets one debug line; a handler that
// panics is answered 500 and the server goes on.
func TestEchoLogsAndRecovers(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	e := Echo(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	e.GET("/ok", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	e.GET("/boom", func(echo.Context) error { panic("boom") })
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/ok", nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, buf.String(), "path=/ok")
	assert.Contains(t, buf.String(), "status=200")
	w = httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/boom", nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
}
