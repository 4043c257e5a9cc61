package local

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer answers every line it reads with "<line> at <ns since start>", on 127.0.0.1.
func echoServer(t *testing.T) (addr string, got chan time.Time) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	got = make(chan time.Time, 100)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					got <- time.Now()
					if _, err := io.WriteString(c, strings.ToUpper(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), got
}

func TestDelayProxyHoldsWhatTheClientSends(t *testing.T) {
	target, got := echoServer(t)
	const delay = 30 * time.Millisecond
	p, err := startDelayProxy(target, delay)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })

	c, err := net.Dial("tcp", p.addr())
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	for _, line := range []string{"one\n", "two\n", "three\n"} {
		sent := time.Now()
		_, err := io.WriteString(c, line)
		require.NoError(t, err)
		answer, err := r.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, strings.ToUpper(line), answer, "bytes pass through unchanged, in order")
		arrived := <-got
		assert.GreaterOrEqual(t, arrived.Sub(sent), delay, "%q reached the server no sooner than the delay", line)
	}

	// Two lines written back to back are both delayed, and not one behind the other's delay.
	sent := time.Now()
	_, err = io.WriteString(c, "four\nfive\n")
	require.NoError(t, err)
	for range 2 {
		_, err := r.ReadString('\n')
		require.NoError(t, err)
		assert.GreaterOrEqual(t, (<-got).Sub(sent), delay)
	}
}

func TestDelayProxyWithoutDelayOnlyForwards(t *testing.T) {
	target, got := echoServer(t)
	p, err := startDelayProxy(target, 0)
	require.NoError(t, err)
	c, err := net.Dial("tcp", p.addr())
	require.NoError(t, err)
	_, err = io.WriteString(c, "ping\n")
	require.NoError(t, err)
	answer, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "PING\n", answer)
	<-got

	// Close ends the connections through it, and refuses new ones.
	require.NoError(t, p.Close())
	_, err = c.Read(make([]byte, 1))
	assert.Error(t, err, "the connection through the proxy is closed")
	_, err = net.DialTimeout("tcp", p.addr(), time.Second)
	assert.Error(t, err, "the proxy no longer accepts")
	require.NoError(t, p.Close(), "a second Close is harmless")
	_ = c.Close()
}
