package local

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// PortAllocator returns a TCP port on 127.0.0.1 that a process may bind. FreePort is the
// default; tests substitute their own through WithPortAllocator.
type PortAllocator func() (int, error)

// lowestPort is the lowest port FreePort hands out: above the registered ports most services
// listen on by default.
const lowestPort = 10000

// freePortTries bounds how many random ports FreePort tries before it falls back to port 0.
const freePortTries = 50

// FreePort returns a port on 127.0.0.1 that nothing listened on when it looked, drawn at random
// below the kernel's ephemeral range (net.ipv4.ip_local_port_range, from which it takes the
// source port of every outgoing connection): a port from that range, such as listening on port
// 0 gives, can be claimed by some connection's source port between the moment it is chosen and
// the moment its process binds it, and the process then fails with "address already in use".
// Below the range only a listener can take it. When the range starts too low to leave room, or
// freePortTries ports were all in use, it asks the kernel for port 0 as before.
func FreePort() (int, error) {
	if high := ephemeralStart(); high-lowestPort >= 1000 {
		for range freePortTries {
			port := lowestPort + rand.IntN(high-lowestPort)
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err == nil {
				_ = ln.Close()
				return port, nil
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralStart is the first port of the kernel's ephemeral range, read from
// /proc/sys/net/ipv4/ip_local_port_range ("32768\t60999"); Linux's default 32768 when that
// cannot be read.
func ephemeralStart() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(raw))
	if len(f) != 2 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 {
		return 32768
	}
	return n
}

// maxPortTries bounds how often ports.next asks the allocator for a port not yet handed out.
const maxPortTries = 20

// ports hands out distinct ports for one deployment from an allocator: the kernel may give a
// closed port out again, and two processes of one deployment must never share one.
type ports struct {
	alloc PortAllocator
	used  map[int]bool
}

func newPorts(alloc PortAllocator) *ports {
	return &ports{alloc: alloc, used: map[int]bool{}}
}

// next returns a port that this deployment has not used yet.
func (p *ports) next() (int, error) {
	for range maxPortTries {
		port, err := p.alloc()
		if err != nil {
			return 0, err
		}
		if port <= 0 || port > 65535 {
			return 0, fmt.Errorf("port allocator returned %d, not a TCP port", port)
		}
		if !p.used[port] {
			p.used[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("port allocator returned only ports already in use by this deployment (%d tries)", maxPortTries)
}
