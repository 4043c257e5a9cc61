package local

import (
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// delayProxy forwards every TCP connection made to its loopback port to target, holding each
// chunk the client sends for delay before it writes it on; the answers flow back at once. It
// puts a known, real delay into a request's path: a request written in one piece reaches
// target delay later, and chunks keep their order and spacing, so that pipelined HTTP/2 frames
// are delayed alike and not queued behind each other. delay 0 only forwards: an A/B run's build
// A goes through one too, so that both builds pay the same extra hop and only B is delayed.
// It runs in the test process; Close stops it and every connection through it.
type delayProxy struct {
	ln     net.Listener
	target string
	delay  time.Duration

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// startDelayProxy listens on a free 127.0.0.1 port and forwards to target (host:port).
func startDelayProxy(target string, delay time.Duration) (*delayProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &delayProxy{ln: ln, target: target, delay: delay, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// port is the proxy's own port.
func (p *delayProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// addr is the proxy's address, 127.0.0.1:<port>.
func (p *delayProxy) addr() string { return "127.0.0.1:" + strconv.Itoa(p.port()) }

func (p *delayProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !p.track(c, s) {
			return
		}
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.forwardDelayed(c, s) }()
		go func() { defer p.wg.Done(); forward(c, s) }() // the answers, at once
	}
}

// track records a connection pair for Close; false (both closed) once the proxy is closed.
func (p *delayProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

// chunk is what one read from the client returned, and when it may be written on.
type chunk struct {
	data []byte
	due  time.Time
}

// forwardDelayed copies from to to, each chunk written no sooner than delay after it was read;
// at the end it half-closes to, so that the server sees the client's end.
func (p *delayProxy) forwardDelayed(from, to net.Conn) {
	if p.delay <= 0 {
		forward(to, from)
		return
	}
	timer, err := newHoldTimer()
	if err != nil { // out of file descriptors: the connection cannot be delayed, so it is refused
		_ = from.Close()
		_ = to.Close()
		return
	}
	defer timer.Close()
	queue := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range queue {
			err := timer.hold(time.Until(c.due))
			if err == nil {
				_, err = to.Write(c.data)
			}
			if err != nil {
				for range queue { // drain, so that the reader never blocks
				}
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			queue <- chunk{data: append([]byte(nil), buf[:n]...), due: time.Now().Add(p.delay)}
		}
		if err != nil {
			break
		}
	}
	close(queue)
	<-done
	closeWrite(to)
}

// forward copies from to to, then half-closes to.
func forward(to, from net.Conn) {
	_, _ = io.Copy(to, from)
	closeWrite(to)
}

// closeWrite half-closes a TCP connection: the peer reads its end, and can still answer.
func closeWrite(c net.Conn) {
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.CloseWrite()
	}
}

// Close stops accepting, closes every connection through the proxy and waits for its
// goroutines. Safe to call more than once.
func (p *delayProxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	err := p.ln.Close()
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}
