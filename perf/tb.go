package perf

import "context"

// TB is what a platform and a plan use of a test: the methods of testing.TB they call. The
// vocabulary names this interface rather than testing.TB so that the apps, which import perf
// for the types they share with the tester, do not link package testing. *testing.T and
// *testing.B satisfy it.
type TB interface {
	Cleanup(f func())
	Context() context.Context
	Error(args ...any)
	Errorf(format string, args ...any)
	Fail()
	FailNow()
	Failed() bool
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Helper()
	Log(args ...any)
	Logf(format string, args ...any)
	Name() string
	Skip(args ...any)
	SkipNow()
	Skipf(format string, args ...any)
	Skipped() bool
	TempDir() string
}
