package grpcbind

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"google.golang.org/grpc/codes"
)

func TestGRPCTimeoutHeader(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"1H": time.Hour, "2M": 2 * time.Minute, "3S": 3 * time.Second,
		"400m": 400 * time.Millisecond, "5u": 5 * time.Microsecond, "6n": 6, "99999999S": 99999999 * time.Second} {
		got, ok := grpcTimeout(v)
		assert.True(t, ok, v)
		assert.Equal(t, want, got, v)
	}
	for _, bad := range []string{"", "S", "10", "10x", "-1S", "123456789S", "1.5S"} {
		_, ok := grpcTimeout(bad)
		assert.False(t, ok, bad)
	}
}

func TestGRPCCodeOfHTTP(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]codes.Code{200: codes.OK, 204: codes.OK, 400: codes.Internal, 401: codes.Unauthenticated,
		403: codes.PermissionDenied, 404: codes.Unimplemented, 429: codes.Unavailable, 502: codes.Unavailable,
		503: codes.Unavailable, 504: codes.Unavailable, 500: codes.Unknown, 418: codes.Unknown} {
		assert.Equal(t, want, grpcCodeOfHTTP(status), "%d", status)
	}
}
