// Package serve is the plumbing shared by the daprperf app mains: flag
// parsing, a listener on loopback, the "listening on" line, and a server
// that runs until SIGTERM or SIGINT and then shuts down within ShutdownTimeout.
//
// A test app main is one call:
//
//	os.Exit(serve.Main("httpapp", os.Args[1:], os.Stdout, os.Stderr,
//		func(ctx context.Context, ln net.Listener, o faults.Options) error {
//			return serve.HTTP(ctx, ln, httpapp.NewHandler(o))
//		}))
//
// A main with other flags uses the pieces: Port as a flag.Value, Listen,
// Announce, SignalContext, then HTTP or GRPC.
package serve

import (
	"fmt"
	"io"
	"net"
	"strconv"
)

// Host is the address the apps bind by default: loopback. -host 0.0.0.0 serves every
// interface, which a pod needs when another pod calls it directly (the kube baseline).
const Host = "127.0.0.1"

// MaxPort is the largest TCP port.
const MaxPort = 65535

// CheckPort returns an error, without the flag name, when port is not in
// [0, MaxPort]; 0 means a free port chosen by the kernel.
func CheckPort(port int) error {
	if port < 0 || port > MaxPort {
		return fmt.Errorf("must be in [0, %d] (0 picks a free port)", MaxPort)
	}
	return nil
}

// Listen opens a TCP listener on Host:port; port 0 picks a free port, which
// Port(ln) then tells.
func Listen(port int) (net.Listener, error) { return ListenOn(Host, port) }

// ListenOn opens a TCP listener on host:port; host is an IP address (CheckHost), "" is Host.
func ListenOn(host string, port int) (net.Listener, error) {
	if host == "" {
		host = Host
	}
	if err := CheckPort(port); err != nil {
		return nil, fmt.Errorf("listen: port %d: %w", port, err)
	}
	if err := CheckHost(host); err != nil {
		return nil, fmt.Errorf("listen: host %q: %w", host, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return ln, nil
}

// CheckHost returns an error, without the flag name, when host is not an IP address.
func CheckHost(host string) error {
	if net.ParseIP(host) == nil {
		return fmt.Errorf("not an IP address (want %s, or 0.0.0.0 for every interface)", Host)
	}
	return nil
}

// ListenPort returns the TCP port ln listens on, or 0 if it is not TCP.
func ListenPort(ln net.Listener) int {
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Announce writes the one line that tells a supervisor the app is ready:
//
//	listening on 127.0.0.1:<port>
//
// (the address ln listens on) followed by a newline. Nothing else is written to w.
func Announce(w io.Writer, ln net.Listener) error {
	host := Host
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		host = a.IP.String()
	}
	_, err := fmt.Fprintf(w, "%s%s\n", AnnouncePrefix, net.JoinHostPort(host, strconv.Itoa(ListenPort(ln))))
	return err
}

// AnnouncePrefix starts the line Announce writes; the address follows it.
const AnnouncePrefix = "listening on "
