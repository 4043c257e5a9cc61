package serve

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Command is the command line of a test app with flags of its own beyond ParseAppFlags': its
// FlagSet has -port and -host (both checked as they are set); the app adds its flags, then
// calls Parse.
//
//	c := serve.NewCommand("jobapp", stderr)
//	store := c.String("state-store", "statestore", "...")
//	if code, ok := c.Parse(args); !ok {
//		return code
//	}
type Command struct {
	*flag.FlagSet
	Port int    // -port: TCP port, 0 picks a free one
	Host string // -host: IP address to listen on; "" is Host (loopback)

	name   string
	stderr io.Writer
}

// NewCommand is the command line of the app name, writing its errors and usage to stderr.
func NewCommand(name string, stderr io.Writer) *Command {
	c := &Command{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), name: name, stderr: stderr}
	c.SetOutput(stderr)
	c.Var((*Port)(&c.Port), "port", "TCP `port` on "+Host+" (0 picks a free port)")
	c.Var((*hostFlag)(&c.Host), "host", "IP `address` to listen on (default "+Host+"); 0.0.0.0 serves every interface (in a pod)")
	return c
}

// Parse parses args (without the program name). When main must return at once it gives
// ok false and the exit code: ExitOK after -h, ExitUsage for a bad flag or value (the flag
// package names it) or an argument that is not a flag.
func (c *Command) Parse(args []string) (code int, ok bool) {
	if err := c.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if c.NArg() > 0 {
		return c.Usage("unexpected argument %q: %s takes flags only", c.Arg(0), c.name), false
	}
	return 0, true
}

// Usage writes "<name>: <message>" to stderr and returns ExitUsage, for a value the app checks
// itself after Parse.
func (c *Command) Usage(format string, a ...any) int {
	_, _ = fmt.Fprintf(c.stderr, c.name+": "+format+"\n", a...)
	return ExitUsage
}
