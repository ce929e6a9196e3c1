package httpserve

import (
	"io"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Echo returns an echo router as the mock's servers use it: no banner, no
// echo logging, panics recovered into 500s without a stack, and one debug
// line per request to log (nil discards).
func Echo(log *slog.Logger) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Logger.SetOutput(io.Discard)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: true}))
	if log != nil {
		e.Use(logRequests(log))
	}
	return e
}

// logRequests logs one debug line per request, measured in wall time.
func logRequests(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !log.Enabled(c.Request().Context(), slog.LevelDebug) {
				return next(c)
			}
			start := time.Now()
			err := next(c)
			log.Debug("request", "method", c.Request().Method, "path", c.Request().URL.Path,
				"status", c.Response().Status, "bytes", c.Response().Size, "duration", time.Since(start))
			return err
		}
	}
}
