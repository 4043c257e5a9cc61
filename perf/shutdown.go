package perf

import "time"

// AppShutdownTimeout bounds how long each of the framework's apps (apps/*, through
// apps/internal/serve) takes to shut down after SIGTERM or SIGINT: in-flight requests get this
// long, then the server is closed hard. A platform that stops an app waits at least this long
// before it kills it (local: this plus a margin).
const AppShutdownTimeout = 5 * time.Second
