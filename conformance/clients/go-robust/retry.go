package main

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfterTransport retries an answer of 429 or 503 that carries
// Retry-After, no sooner than it says, while the request's context allows;
// 503 and 429 come from in front of the agent, which never saw the request,
// so resending even a SendMessage is safe.
//
// It also presents the bearer token (A2AMOCK_BEARER_TOKEN) on A2A calls once
// the card turned out to require one, and retries a 401 to such a call a
// bounded number of times: identity providers refuse a valid token now and
// then, and a 401 means the agent did not act on the request.
type retryAfterTransport struct {
	base   http.RoundTripper
	bearer string
}

func (t *retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.bearer != "" && !strings.Contains(req.URL.Path, "/.well-known/") {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.bearer)
	}
	refused := 0
	for attempt := 0; ; attempt++ {
		resp, err := t.base.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusUnauthorized && t.bearer != "" && refused < 3 && (req.GetBody != nil || req.Body == nil) {
			refused++
			resp.Body.Close()
			if req, err = rewind(req); err != nil {
				return nil, err
			}
			timer := time.NewTimer(time.Duration(refused) * 20 * time.Millisecond)
			select {
			case <-timer.C:
			case <-req.Context().Done():
				timer.Stop()
				return nil, req.Context().Err()
			}
			continue
		}
		if err != nil || attempt >= 3 || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
			return resp, err
		}
		wait, ok := parseRetryAfter(resp.Header.Get("Retry-After"))
		if !ok || req.GetBody == nil && req.Body != nil {
			return resp, nil
		}
		if dl, has := req.Context().Deadline(); has && time.Until(dl) < wait {
			return resp, nil
		}
		resp.Body.Close()
		// A small margin over the advertised wait: Retry-After is measured
		// from when the answer was sent.
		timer := time.NewTimer(wait + 20*time.Millisecond)
		select {
		case <-timer.C:
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// rewind returns the request again with a fresh body.
func rewind(req *http.Request) (*http.Request, error) {
	if req.GetBody == nil {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = body
	return req, nil
}

func parseRetryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0), true
	}
	return 0, false
}
