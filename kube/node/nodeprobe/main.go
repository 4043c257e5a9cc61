// Command nodeprobe is the test cluster's pause binary and its network probe, one static
// binary in the image daprperf.local/pause:e2e.
//
// Without arguments it blocks until SIGTERM or SIGINT, as a pod sandbox's pause process does.
// With arguments it runs probes and prints one line per probe, then exits 0:
//
//	lookup NAME  resolve NAME with the pod's resolver:  "lookup NAME ok ADDRS" or "lookup NAME fail ERROR"
//	dial ADDR    open a TCP connection to host:port:    "dial ADDR ok" or "dial ADDR fail ERROR"
//
// Each line ends with the probe's duration in milliseconds ("in 3ms"); each probe gives up
// after 5 s.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
		<-c
		return
	}
	if len(args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: nodeprobe [lookup NAME | dial HOST:PORT]...")
		os.Exit(2)
	}
	for i := 0; i < len(args); i += 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		t0 := time.Now()
		var res string
		switch args[i] {
		case "lookup":
			addrs, err := net.DefaultResolver.LookupHost(ctx, args[i+1])
			if err != nil {
				res = "fail " + err.Error()
			} else {
				res = "ok " + strings.Join(addrs, ",")
			}
		case "dial":
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", args[i+1])
			if err != nil {
				res = "fail " + err.Error()
			} else {
				c.Close()
				res = "ok"
			}
		default:
			fmt.Fprintf(os.Stderr, "nodeprobe: unknown probe %q: lookup or dial\n", args[i])
			os.Exit(2)
		}
		cancel()
		fmt.Printf("%s %s %s in %dms\n", args[i], args[i+1], res, time.Since(t0).Milliseconds())
	}
}
