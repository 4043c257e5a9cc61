package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/daprperf/daprperf/perf/report"
)

// Dir is the folder of the index under the report root, and File its name in it.
const (
	Dir  = "history"
	File = "index.jsonl"
)

// IndexPath is where the index of root is: <root>/history/index.jsonl.
func IndexPath(root string) string { return filepath.Join(root, Dir, File) }

// Index is the history of the runs under one report root: its entries, in time order (start
// time, then path).
type Index struct {
	Entries []Entry
}

func errorf(format string, args ...any) error { return fmt.Errorf("history: "+format, args...) }

// Load reads the index of root. A root without an index has an empty one. It is an error
// naming the file and the line when a line is not an entry of EntrySchema.
func Load(root string) (*Index, error) {
	return load(IndexPath(root))
}

func load(path string) (*Index, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Index{}, nil
	}
	if err != nil {
		return nil, errorf("read the index: %w", err)
	}
	idx := &Index{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20) // an entry with many rounds is a long line
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, errorf("%s:%d: not an index entry (one JSON object per line): %v", path, n, err)
		}
		if e.Schema != EntrySchema {
			return nil, errorf("%s:%d: entry schema %d, this reader knows %d", path, n, e.Schema, EntrySchema)
		}
		if e.Path == "" {
			return nil, errorf("%s:%d: entry without a path", path, n)
		}
		idx.Entries = append(idx.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, errorf("read %s: %w", path, err)
	}
	return idx, nil
}

// Rebuild makes the index of root from the result files under it (report.IsResultFile: the
// run folders, runs/<run id>/..., and the published versions, v<version>/...), read again,
// and writes it. It drops nothing the index had: an entry whose result file is gone is carried
// over marked Missing, and one whose file can no longer be read keeps its old content with
// ReadError set. A result file that cannot be read is skipped, and named with its error in
// warnings; so is an index that cannot be read, which is first set aside as
// index.jsonl.unreadable-<n> (never replaced) so that none of its entries is lost. An error
// is a failure to walk the root or to write the index; the index is then unchanged.
func Rebuild(root string) (idx *Index, warnings []string, err error) {
	unlock, err := lock(root)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	old, err := Load(root)
	if err != nil {
		aside, moveErr := setAside(IndexPath(root))
		if moveErr != nil {
			return nil, nil, errorf("%v; setting it aside: %w", err, moveErr)
		}
		warnings = append(warnings, fmt.Sprintf("%v: set aside as %s, its entries are not carried over", err, aside))
		old = &Index{}
	}
	paths, err := resultFiles(root)
	if err != nil {
		return nil, warnings, err
	}
	byPath := map[string]Entry{}
	for _, e := range old.Entries {
		byPath[e.Path] = e
	}
	next := &Index{}
	seen := map[string]bool{}
	for _, p := range paths {
		rel, err := relPath(root, p)
		if err != nil {
			return nil, warnings, err
		}
		seen[rel] = true
		rep, err := report.ReadReport(p)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("skipped %s: %v", p, err))
			if e, ok := byPath[rel]; ok {
				e.ReadError = err.Error()
				next.Entries = append(next.Entries, e)
			}
			continue
		}
		next.Entries = append(next.Entries, entryOf(rep, rel))
	}
	for _, e := range old.Entries {
		if !seen[e.Path] {
			next.Entries = append(next.Entries, e) // its file is gone (or moved): kept, marked below
		}
	}
	if err := next.write(root); err != nil {
		return nil, warnings, err
	}
	return next, warnings, nil
}

// Add adds to the index of root the result files at paths, each a result file or a folder
// whose result files are taken (a run folder, runs/<run id>), and writes it. Each must lie
// under root. A file already in the index (the same path relative to root) replaces its entry
// with what it holds now, so adding a run twice adds it once; every other entry stays. It is
// an error, naming the file, when a path is not under root, holds no result file, or a result
// file or the index cannot be read; nothing is written then.
func Add(root string, paths ...string) (*Index, error) {
	var entries []Entry
	for _, p := range paths {
		files, err := report.RunFiles(p)
		if err != nil {
			return nil, errorf("add %s: %w", p, err)
		}
		if len(files) == 0 {
			return nil, errorf("add %s: no result file (result.json or result-<n>.json) there", p)
		}
		for _, f := range files {
			rel, err := relPath(root, f)
			if err != nil {
				return nil, err
			}
			rep, err := report.ReadReport(f)
			if err != nil {
				return nil, errorf("add %s: %w", f, err)
			}
			entries = append(entries, entryOf(rep, rel))
		}
	}
	unlock, err := lock(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	idx, err := Load(root)
	if err != nil {
		return nil, fmt.Errorf("%w (perfhistory rebuild sets an unreadable index aside and makes it again)", err)
	}
	for _, e := range entries {
		if i := slices.IndexFunc(idx.Entries, func(o Entry) bool { return o.Path == e.Path }); i >= 0 {
			idx.Entries[i] = e
		} else {
			idx.Entries = append(idx.Entries, e)
		}
	}
	if err := idx.write(root); err != nil {
		return nil, err
	}
	return idx, nil
}

// write marks each entry whose result file is gone as Missing (and clears the mark of one that
// is back), sorts the entries and replaces the index file atomically: a temp file in the same
// folder, synced, then renamed over it.
func (idx *Index) write(root string) error {
	for i := range idx.Entries {
		e := &idx.Entries[i]
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(e.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			e.Missing = true
		case err == nil:
			e.Missing = false
		}
	}
	idx.sort()
	var buf bytes.Buffer
	for _, e := range idx.Entries {
		b, err := json.Marshal(e)
		if err != nil {
			return errorf("encode the entry of %s: %w", e.Path, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := IndexPath(root)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*.tmp")
	if err != nil {
		return errorf("write the index: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return errorf("write the index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return errorf("write the index: %w", err)
	}
	return nil
}

func (idx *Index) sort() {
	slices.SortStableFunc(idx.Entries, func(a, b Entry) int {
		if c := a.StartTime.Compare(b.StartTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// lock takes the index's exclusive lock, <root>/history/index.lock (flock(2)), creating the
// folder when needed, and returns its release. Writers take it for the whole read, merge and
// write, so that two of them never lose each other's entries.
func lock(root string) (func(), error) {
	dir := filepath.Join(root, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errorf("index folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "index.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, errorf("lock the index: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, errorf("lock the index: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // closing releases it too
		f.Close()
	}, nil
}

// setAside renames the index at path to the first free path.unreadable-<n>, n from 1, and
// returns that name; it never replaces a file.
func setAside(path string) (string, error) {
	for n := 1; ; n++ {
		aside := fmt.Sprintf("%s.unreadable-%d", path, n)
		if err := os.Link(path, aside); err == nil {
			return aside, os.Remove(path)
		} else if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
}

// resultFiles lists the result files under root (report.RunFiles), leaving out the index's folder.
func resultFiles(root string) ([]string, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, errorf("report root: %w", err)
	}
	files, err := report.RunFiles(root)
	if err != nil {
		return nil, errorf("%w", err)
	}
	skip := filepath.Join(root, Dir) + string(filepath.Separator)
	return slices.DeleteFunc(files, func(p string) bool { return strings.HasPrefix(p, skip) }), nil
}

// relPath is p relative to root with forward slashes; an error naming both when p is not under root.
func relPath(root, p string) (string, error) {
	ar, err := filepath.Abs(root)
	if err != nil {
		return "", errorf("report root %s: %w", root, err)
	}
	ap, err := filepath.Abs(p)
	if err != nil {
		return "", errorf("%s: %w", p, err)
	}
	rel, err := filepath.Rel(ar, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errorf("%s is not under the report root %s: the index names files relative to it", p, root)
	}
	return filepath.ToSlash(rel), nil
}
