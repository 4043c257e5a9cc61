package httpapp

import (
	"io"
	"net/http"
)

// Paths daprd itself calls on an HTTP app, outside of any invocation: the
// app configuration and the pub/sub subscriptions (read as JSON at startup),
// and the default app health check. They are answered 200 at once, never
// delayed, failed or counted, so FailFraction stays exact over the
// invocation traffic and daprd does not log JSON errors.
const (
	daprConfigPath    = "/dapr/config"
	daprSubscribePath = "/dapr/subscribe"
	healthzPath       = "/healthz"
)

func isDaprProbe(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	switch r.URL.Path {
	case daprConfigPath, daprSubscribePath, healthzPath:
		return true
	}
	return false
}

// writeProbe answers a Dapr probe: an empty configuration ({}), no
// subscriptions ([]), or Body for the health check.
func writeProbe(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case daprConfigPath:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
	case daprSubscribePath:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "[]")
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, Body)
	}
}
