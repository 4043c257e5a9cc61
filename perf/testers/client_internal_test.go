package testers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A split load aimed at the first tester's daprd goes to each tester's own.
func TestRetarget(t *testing.T) {
	a := Client{URL: "http://127.0.0.1:4000", SidecarHTTP: "http://127.0.0.1:3500", SidecarGRPC: "127.0.0.1:50001"}
	b := Client{URL: "http://127.0.0.1:4001", SidecarHTTP: "http://127.0.0.1:35001", SidecarGRPC: "127.0.0.1:50002"}
	for target, want := range map[string]string{
		"http://127.0.0.1:3500/v1.0/invoke/app/method/test": "http://127.0.0.1:35001/v1.0/invoke/app/method/test",
		"http://127.0.0.1:3500":                             "http://127.0.0.1:35001",
		"127.0.0.1:50001":                                   "127.0.0.1:50002",
		"http://127.0.0.1:35000/test":                       "http://127.0.0.1:35000/test", // another port: an app
		"127.0.0.1:6379":                                    "127.0.0.1:6379",
	} {
		got, err := retarget(target, a, b)
		require.NoError(t, err)
		assert.Equal(t, want, got, target)
	}
	_, err := retarget("127.0.0.1:50001", a, Client{URL: "http://127.0.0.1:4002"})
	assert.ErrorContains(t, err, "has no daprd")
}
