// Command perfhistory keeps the history index of a report root (package perf/history:
// <root>/history/index.jsonl, one entry per result file) and prints it.
//
//	perfhistory rebuild <root>                            make the index from every result file under root
//	perfhistory add <root> <run dir or result.json>...    add runs; a run already there is not added twice
//	perfhistory list <root>                               the index as a table, oldest first
//
// rebuild skips a result file it cannot read and names it, with why, on stderr; it never drops
// an entry whose file is gone (it stays, marked missing). add refuses a file it cannot read or
// one outside root, and then writes nothing. list prints one line per entry: its start time
// (UTC), run id, scenario, daprd version, the machine's fingerprint hash ("~" after it when the
// result file did not record every fact of it: memory or kernel unknown), the overhead p90 in
// ms ("-" when the plan has none), and "missing" or "unreadable" when the file is gone or bad.
//
// Exit codes:
//
//	0  done
//	1  failed: the index or a result file could not be read or written, or a path is not
//	   under root; the message names the file, and the index is unchanged
//	2  usage: an unknown command or the wrong arguments
//	3  rebuild wrote the index but skipped result files it could not read (named on stderr)
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/daprperf/daprperf/perf/history"
)

const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitSkipped = 3
)

const usage = `usage:
  perfhistory rebuild <root>
  perfhistory add <root> <run dir or result.json>...
  perfhistory list <root>
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command of args, writing its output to stdout and errors to stderr, and returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, root, rest := args[0], args[1], args[2:]
	switch {
	case cmd == "rebuild" && len(rest) == 0:
		idx, warnings, err := history.Rebuild(root)
		for _, w := range warnings {
			fmt.Fprintln(stderr, "perfhistory:", w)
		}
		if err != nil {
			fmt.Fprintln(stderr, "perfhistory:", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s: %d entries (%d missing)\n", history.IndexPath(root), len(idx.Entries), missing(idx))
		if len(warnings) > 0 {
			return exitSkipped
		}
		return exitOK
	case cmd == "add" && len(rest) > 0:
		before, err := history.Load(root)
		if err != nil {
			fmt.Fprintln(stderr, "perfhistory:", err)
			return exitFailed
		}
		idx, err := history.Add(root, rest...)
		if err != nil {
			fmt.Fprintln(stderr, "perfhistory:", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s: %d entries (%d new, %d missing)\n", history.IndexPath(root), len(idx.Entries), len(idx.Entries)-len(before.Entries), missing(idx))
		return exitOK
	case cmd == "list" && len(rest) == 0:
		idx, err := history.Load(root)
		if err != nil {
			fmt.Fprintln(stderr, "perfhistory:", err)
			return exitFailed
		}
		if err := list(stdout, idx); err != nil {
			fmt.Fprintln(stderr, "perfhistory:", err)
			return exitFailed
		}
		return exitOK
	}
	fmt.Fprint(stderr, usage)
	return exitUsage
}

func missing(idx *history.Index) int {
	n := 0
	for _, e := range idx.Entries {
		if e.Missing {
			n++
		}
	}
	return n
}

// list writes idx as an aligned table, one entry a line, in the index's (time) order.
func list(w io.Writer, idx *history.Index) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "time (UTC)\trun id\tscenario\tdaprd\tmachine\toverhead p90\t")
	for _, e := range idx.Entries {
		machine := e.Machine.Hash
		if !e.Machine.Complete() {
			machine += "~"
		}
		p90 := "-"
		if f, ok := e.Figure(history.FigureOverheadP90); ok {
			p90 = fmt.Sprintf("%.3f ms", f.Value*1e3)
		}
		state := ""
		switch {
		case e.Missing:
			state = "missing"
		case e.ReadError != "":
			state = "unreadable"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.StartTime.UTC().Format(time.DateTime), e.RunID,
			e.Scenario, orDash(e.DaprVersion), machine, p90, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) { // tabwriter pads the last cells
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
