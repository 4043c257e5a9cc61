// Command charts turns perf result files into PNG charts and Markdown tables, and compares two
// Dapr versions.
//
//	go run ./charts [-reports DIR]
//
// walks DIR (default "reports") for result.json files (DIR/v<version>/<test>/<transport>/) and
// writes, next to each, its charts (latency.png, overhead.png, ...) and a README.md with the
// tables; each DIR/v<version>/ also gets a README.md with one summary row per scenario.
//
//	go run ./charts [-reports DIR] compare [-out FILE] v1.16.5 v1.17.5
//
// compares the scenarios present under both DIR/v1.16.5 and DIR/v1.17.5 and writes a Markdown
// table per scenario to FILE (default DIR/README.md), with a bar chart of the overheads next to
// it.
//
// Every figure comes from the result files (perf.Report); nothing is parsed from logs.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run wires the flags to generate and compare; it returns the exit code: 0 done, 1 failed,
// 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("charts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reports := fs.String("reports", "reports", "directory of result files: `DIR`/v<version>/<test>/<transport>/result.json")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: charts [-reports DIR]\n"+
			"       charts [-reports DIR] compare [-out FILE] <versionA> <versionB>\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	var err error
	switch {
	case len(rest) == 0:
		err = generate(*reports, stdout)
	case rest[0] == "compare":
		cfs := flag.NewFlagSet("charts compare", flag.ContinueOnError)
		cfs.SetOutput(stderr)
		creports := cfs.String("reports", *reports, "directory holding the version directories")
		out := cfs.String("out", "", "Markdown `FILE` to write (default <reports>/README.md); the PNG goes next to it")
		cfs.Usage = func() {
			fmt.Fprint(stderr, "usage: charts [-reports DIR] compare [-out FILE] <versionA> <versionB>\n"+
				"  versions name directories under -reports, e.g. v1.16.5 v1.17.5\n")
			cfs.PrintDefaults()
		}
		if err := cfs.Parse(rest[1:]); err != nil {
			return 2
		}
		if cfs.NArg() != 2 {
			cfs.Usage()
			return 2
		}
		err = compare(*creports, cfs.Arg(0), cfs.Arg(1), *out, stdout)
	default:
		fmt.Fprintf(stderr, "charts: unknown command %q\n", rest[0])
		fs.Usage()
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
