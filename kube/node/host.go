package node

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// kubeletSysctls are the host-wide kernel settings the kubelet writes at start
// (protectKernelDefaults: false; k8s.io/kubernetes pkg/kubelet/cm, setupKernelTunables). They
// are not per network namespace, so Start reads them and Stop writes them back.
var kubeletSysctls = []string{
	"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes",
}

func readSysctls(keys []string) (map[string]string, error) {
	m := map[string]string{}
	for _, k := range keys {
		b, err := os.ReadFile("/proc/sys/" + k)
		if err != nil {
			return nil, fmt.Errorf("kube node: read sysctl %s: %w", k, err)
		}
		m[k] = strings.TrimSpace(string(b))
	}
	return m, nil
}

func writeSysctls(m map[string]string) error {
	var errs []error
	for k, v := range m {
		cur, err := os.ReadFile("/proc/sys/" + k)
		if err == nil && strings.TrimSpace(string(cur)) == v {
			continue
		}
		if err := os.WriteFile("/proc/sys/"+k, []byte(v), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore sysctl %s=%s: %w", k, v, err))
		}
	}
	return errors.Join(errs...)
}

// cgroupRoots are the mounted cgroup hierarchies: /sys/fs/cgroup/<controller> on cgroup v1
// (this machine: v1 with a v2 mount at /sys/fs/cgroup/unified), /sys/fs/cgroup itself on v2.
func cgroupRoots() []string {
	var roots []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return []string{"/sys/fs/cgroup"}
	}
	entries, _ := os.ReadDir("/sys/fs/cgroup")
	for _, e := range entries {
		p := filepath.Join("/sys/fs/cgroup", e.Name())
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			roots = append(roots, p)
		}
	}
	return roots
}

// clusterCgroups are the cgroup trees of a cluster's kubelets that exist, in every hierarchy:
// <root>/kubepods (the first node's, or any lone kubelet's) and <root>/<NodeName>-<i> (the
// other nodes' cgroupRoots, their kubepods inside).
func clusterCgroups() []string {
	var out []string
	for _, r := range cgroupRoots() {
		if _, err := os.Stat(filepath.Join(r, "kubepods")); err == nil {
			out = append(out, filepath.Join(r, "kubepods"))
		}
		m, _ := filepath.Glob(filepath.Join(r, NodeName+"-*"))
		out = append(out, m...)
	}
	return out
}

// checkNoLeftovers refuses to start over another kubelet's cgroups: they would be this
// cluster's to remove at Stop.
func checkNoLeftovers() error {
	if cg := clusterCgroups(); len(cg) > 0 {
		return &PartError{Part: "host", Err: fmt.Errorf("%s exists: another kubelet runs here, or an earlier run was killed before its teardown (remove the empty cgroups with rmdir, deepest first)", strings.Join(cg, ", "))}
	}
	return nil
}

// kubepodsPIDs are the processes in any of the kubelets' cgroups: the containers.
func kubepodsPIDs() []int {
	seen := map[int]bool{}
	for _, top := range clusterCgroups() {
		_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			b, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					seen[pid] = true
				}
			}
			return nil
		})
	}
	var pids []int
	for pid := range seen {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	return pids
}

// killContainers sends SIGKILL to every container process (by the kubepods cgroups) and then
// to every process left in the sandbox's mount namespace but the holder and containerd
// (containerd's shims), by PID, and waits until they are gone.
func killContainers(sb *sandbox) error {
	if sb == nil || sb.holder == nil {
		return nil
	}
	holder := sb.pid()
	mnt, err := os.Readlink("/proc/" + strconv.Itoa(holder) + "/ns/mnt")
	if err != nil {
		return nil // the holder is gone: nothing of the sandbox is left
	}
	var victims []int
	victims = append(victims, kubepodsPIDs()...)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == holder || pid == os.Getpid() {
			continue
		}
		ns, err := os.Readlink("/proc/" + e.Name() + "/ns/mnt")
		if err != nil || ns != mnt {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if strings.HasSuffix(exe, "/containerd") {
			continue // stopped by its PID in order
		}
		victims = append(victims, pid)
	}
	for _, pid := range victims {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range victims {
		for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
			if time.Now().After(deadline) {
				return fmt.Errorf("process %d survived SIGKILL", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// removeKubepodsCgroups removes the kubelets' cgroup trees (clusterCgroups: kubepods, its QoS
// classes and pods, and the other nodes' cgroupRoots around theirs), deepest first, retrying
// while the last processes leave them.
func removeKubepodsCgroups() error {
	var last error
	for range 50 {
		last = nil
		for _, top := range clusterCgroups() {
			var dirs []string
			_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					dirs = append(dirs, p)
				}
				return nil
			})
			for i := len(dirs) - 1; i >= 0; i-- {
				if err := syscall.Rmdir(dirs[i]); err != nil && !errors.Is(err, syscall.ENOENT) {
					last = fmt.Errorf("rmdir %s: %w", dirs[i], err)
				}
			}
		}
		if last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return last
}

// HostState is the host's network and kernel configuration, one text per aspect: "ip addr",
// "ip route", "ip rule", "ip netns", "iptables-save", "ip6tables-save", "sysctl" (forwarding,
// bridge-netfilter, conntrack and the kubelet's kernel settings), "mounts" and "cgroups"
// (the kubelets' trees, clusterCgroups) and "processes" (ClusterProcesses). Counters and timestamps are taken out, so two snapshots of an unchanged
// host are equal. Compare a snapshot before Start with one after Stop.
func HostState() (map[string]string, error) {
	st := map[string]string{}
	counters := regexp.MustCompile(`\[\d+:\d+\]`)
	cmds := map[string][]string{
		"ip addr":        {"ip", "-d", "addr", "show"},
		"ip route":       {"ip", "route", "show", "table", "all"},
		"ip rule":        {"ip", "rule", "show"},
		"ip netns":       {"ip", "netns", "list"},
		"iptables-save":  {"iptables-save"},
		"ip6tables-save": {"ip6tables-save"},
	}
	for k, argv := range cmds {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, out)
		}
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "#") {
				continue // "# Generated by iptables-save ... on <date>"
			}
			lines = append(lines, counters.ReplaceAllString(l, "[-]"))
		}
		st[k] = strings.Join(lines, "\n")
	}
	var sys []string
	keys := append([]string{}, kubeletSysctls...)
	for _, pat := range []string{
		"net/ipv4/ip_forward", "net/ipv4/conf/*/forwarding", "net/ipv4/conf/*/route_localnet",
		"net/ipv6/conf/*/forwarding", "net/bridge/*", "net/netfilter/nf_conntrack_max",
		"net/netfilter/nf_conntrack_tcp_timeout_established", "net/netfilter/nf_conntrack_tcp_timeout_close_wait",
	} {
		m, _ := filepath.Glob("/proc/sys/" + pat)
		for _, p := range m {
			keys = append(keys, strings.TrimPrefix(p, "/proc/sys/"))
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, err := os.ReadFile("/proc/sys/" + k)
		if err == nil {
			sys = append(sys, k+" = "+strings.TrimSpace(string(b)))
		}
	}
	st["sysctl"] = strings.Join(sys, "\n")
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var mlines []string
	for _, l := range strings.Split(string(mounts), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 {
			mlines = append(mlines, f[4]+" "+strings.Join(f[6:], " ")) // mount point, options, fs
		}
	}
	sort.Strings(mlines)
	st["mounts"] = strings.Join(mlines, "\n")
	st["cgroups"] = strings.Join(clusterCgroups(), "\n")
	st["processes"] = strings.Join(ClusterProcesses(), "\n")
	return st, nil
}

// ClusterProcesses lists "<pid> <command line>" of every process whose command line names a
// cluster's temporary folder (every part and every containerd shim does): empty when no
// cluster of this package runs, or is left over.
func ClusterProcesses() []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), "/"+tempPrefix) {
			continue
		}
		out = append(out, e.Name()+" "+strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")))
	}
	sort.Strings(out)
	return out
}
