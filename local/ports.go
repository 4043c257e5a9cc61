package local

import (
	"fmt"
	"net"
)

// PortAllocator returns a TCP port on 127.0.0.1 that a process may bind. FreePort is the
// default; tests substitute their own through WithPortAllocator.
type PortAllocator func() (int, error)

// FreePort asks the kernel for a free port on 127.0.0.1: it listens on port 0, takes the
// port and closes the listener. Another process may take the port before it is used.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
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
