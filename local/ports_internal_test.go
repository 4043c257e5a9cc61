package local

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FreePort hands out ports below the kernel's ephemeral range, where no outgoing connection's
// source port can take them, that a listener can bind.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	high := ephemeralStart()
	if high-lowestPort < 1000 {
		t.Skipf("the ephemeral range starts at %d: FreePort falls back to port 0 here", high)
	}
	for range 20 {
		port, err := FreePort()
		require.NoError(t, err)
		assert.GreaterOrEqual(t, port, lowestPort)
		assert.Less(t, port, high, "below the ephemeral range")
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		require.NoError(t, err, "port %d is free", port)
		require.NoError(t, ln.Close())
	}
}

func TestPortsNeverHandOutAPortTwice(t *testing.T) {
	given := []int{4000, 4000, 4001}
	p := newPorts(func() (int, error) { port := given[0]; given = given[1:]; return port, nil })
	a, err := p.next()
	require.NoError(t, err)
	b, err := p.next()
	require.NoError(t, err)
	assert.Equal(t, []int{4000, 4001}, []int{a, b})
	_, err = newPorts(func() (int, error) { return 0, nil }).next()
	assert.ErrorContains(t, err, "not a TCP port")
}
