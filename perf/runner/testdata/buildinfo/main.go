// Command buildinfo is a Go binary for the runner's tests of readDaprdBuild: it links
// github.com/prometheus/procfs, so its build information names that module with its version.
package main

import (
	"fmt"

	"github.com/prometheus/procfs"
)

func main() { fmt.Println(procfs.DefaultMountPoint) }
