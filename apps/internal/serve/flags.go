package serve

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/daprperf/daprperf/apps/internal/faults"
)

// AppFlags is the command line of the test apps.
type AppFlags struct {
	Port   int            // -port: TCP port on Host, 0 picks a free one
	Host   string         // -host: IP address to listen on; "" is Host (loopback)
	Faults faults.Options // -fail-fraction, -delay, -slow-fraction, -slow-delay, -stall-at, -stall
}

// ParseAppFlags parses the test apps' flags from args (without the program
// name): -port, -host, -fail-fraction, -delay (a Go duration such as 2ms),
// -slow-fraction with -slow-delay, and -stall-at with -stall.
// A bad value is an error naming the flag; the flag package has already
// written it, with the usage, to stderr. flag.ErrHelp is returned for -h.
func ParseAppFlags(name string, args []string, stderr io.Writer) (AppFlags, error) {
	var f AppFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var((*Port)(&f.Port), "port", "TCP `port` on "+Host+" (0 picks a free port)")
	fs.Var((*hostFlag)(&f.Host), "host", "IP `address` to listen on (default "+Host+"); 0.0.0.0 serves every interface (in a pod)")
	fs.Var((*failFraction)(&f.Faults.FailFraction), "fail-fraction",
		"`fraction` of requests answered with a failure, in [0, 1]; deterministic: 0.1 fails every 10th")
	fs.Var((*delay)(&f.Faults.Delay), "delay", "fixed delay before every answer, a Go `duration` such as 2ms (>= 0)")
	fs.Var((*failFraction)(&f.Faults.SlowFraction), "slow-fraction",
		"`fraction` of requests, in [0, 1], that wait -slow-delay instead of -delay; deterministic like -fail-fraction")
	fs.Var((*delay)(&f.Faults.SlowDelay), "slow-delay", "the delay of the slow requests, a Go `duration` (>= 0)")
	fs.Uint64Var(&f.Faults.StallAt, "stall-at", 0, "request `number` (from 1) that starts a stall holding every answer for -stall (0: none)")
	fs.Var((*delay)(&f.Faults.Stall), "stall", "how long the stall holds every answer, a Go `duration` (>= 0)")
	if err := fs.Parse(args); err != nil {
		return AppFlags{}, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: %s takes flags only", fs.Arg(0), name)
		_, _ = fmt.Fprintln(stderr, err)
		fs.Usage()
		return AppFlags{}, err
	}
	return f, nil
}

// Port is a flag.Value for a TCP port: an integer in [0, MaxPort].
//
//	var port serve.Port
//	fs.Var(&port, "port", "TCP port (0 picks a free port)")
type Port int

// String implements flag.Value.
func (p *Port) String() string { return strconv.Itoa(int(*p)) }

// Set implements flag.Value; it rejects values out of [0, MaxPort].
func (p *Port) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	if err := CheckPort(v); err != nil {
		return err
	}
	*p = Port(v)
	return nil
}

// failFraction is the flag.Value of -fail-fraction.
type failFraction float64

func (f *failFraction) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

func (f *failFraction) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	if err := faults.CheckFailFraction(v); err != nil {
		return err
	}
	*f = failFraction(v)
	return nil
}

// delay is the flag.Value of -delay.
type delay time.Duration

func (d *delay) String() string { return time.Duration(*d).String() }

func (d *delay) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a Go duration such as 2ms")
	}
	if err := faults.CheckDelay(v); err != nil {
		return err
	}
	*d = delay(v)
	return nil
}

// hostFlag is the flag.Value of -host: an IP address (CheckHost).
type hostFlag string

func (h *hostFlag) String() string { return string(*h) }

func (h *hostFlag) Set(s string) error {
	if err := CheckHost(s); err != nil {
		return err
	}
	*h = hostFlag(s)
	return nil
}
