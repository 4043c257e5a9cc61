package node

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ImageFile is one regular file of an image's only layer: Path inside the image (such as
// "/app"), read from Source on the machine (a symbolic link gives its target's content), with
// Mode. A generated file (/etc/passwd, a configuration) has no Source and its content in Data.
type ImageFile struct {
	Path   string
	Source string
	Mode   int64
	Data   []byte // the content when Source is empty
}

// Image is a FROM-scratch image: its files, entrypoint, environment and user, named Name
// ("registry/repository:tag", the name pods use with an IfNotPresent pull policy).
type Image struct {
	Name       string
	Files      []ImageFile
	Entrypoint []string
	// Env is the processes' environment, "KEY=value", after PATH=/ (a PATH here replaces it):
	// LD_LIBRARY_PATH, say, for the programs a program execs.
	Env  []string
	User string // "uid:gid"; empty is root
}

// epoch is every timestamp inside an image: the tarballs are byte-for-byte the same for the
// same files, so an unchanged binary gives an unchanged image digest.
var epoch = time.Unix(0, 0).UTC()

// WriteImageTarball writes im as an OCI image layout in a tar file at path, the format
// `ctr images import` reads (OCI image spec v1.1, "image layout"): oci-layout, index.json
// naming the image through the io.containerd.image.name annotation, and blobs/sha256/ with the
// manifest, the config and one uncompressed layer. It needs no container runtime or daemon.
// The file is written to path+".tmp" first and renamed, so a partial file is never used.
func WriteImageTarball(path string, im Image) error {
	if !strings.Contains(im.Name, ":") || strings.HasSuffix(im.Name, ":") {
		return fmt.Errorf("image %q: Name must be registry/repository:tag", im.Name)
	}
	if len(im.Files) == 0 {
		return fmt.Errorf("image %s: no files", im.Name)
	}
	var layer bytes.Buffer
	lw := tar.NewWriter(&layer)
	dirs := map[string]bool{}
	for _, f := range im.Files {
		if !strings.HasPrefix(f.Path, "/") {
			return fmt.Errorf("image %s: file path %q must be absolute", im.Name, f.Path)
		}
		data := f.Data
		if f.Source != "" {
			var err error
			if data, err = os.ReadFile(f.Source); err != nil {
				return fmt.Errorf("image %s: %w", im.Name, err)
			}
		}
		rel := strings.TrimPrefix(f.Path, "/")
		for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
			if !dirs[d] {
				dirs[d] = true
				if err := lw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: epoch}); err != nil {
					return err
				}
			}
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o755
		}
		if err := lw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: mode, Size: int64(len(data)), ModTime: epoch}); err != nil {
			return err
		}
		if _, err := lw.Write(data); err != nil {
			return err
		}
	}
	// A writable /tmp, as distroless images have: daprd and Go's os.TempDir use it.
	if err := lw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: epoch}); err != nil {
		return err
	}
	if err := lw.Close(); err != nil {
		return err
	}
	layerDigest := digest(layer.Bytes())
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"created":      epoch.Format(time.RFC3339),
		"config": map[string]any{
			"User":       im.User,
			"Entrypoint": im.Entrypoint,
			"Env":        imageEnv(im.Env),
		},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{layerDigest}},
	})
	if err != nil {
		return err
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        descriptor("application/vnd.oci.image.config.v1+json", config),
		"layers":        []any{descriptor("application/vnd.oci.image.layer.v1.tar", layer.Bytes())},
	})
	if err != nil {
		return err
	}
	md := descriptor("application/vnd.oci.image.manifest.v1+json", manifest)
	md["annotations"] = map[string]string{
		"io.containerd.image.name":          im.Name,
		"org.opencontainers.image.ref.name": im.Name[strings.LastIndex(im.Name, ":")+1:],
	}
	index, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.index.v1+json",
		"manifests":     []any{md},
	})
	if err != nil {
		return err
	}

	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // after the rename it is gone already
	tw := tar.NewWriter(out)
	entries := []struct {
		name string
		data []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", index},
		{"blobs/sha256/" + hexOf(manifest), manifest},
		{"blobs/sha256/" + hexOf(config), config},
		{"blobs/sha256/" + strings.TrimPrefix(layerDigest, "sha256:"), layer.Bytes()},
	}
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: epoch}); err != nil {
			out.Close()
			return err
		}
	}
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: 0o644, Size: int64(len(e.data)), ModTime: epoch}); err != nil {
			out.Close()
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			out.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// imageEnv is an image's environment: PATH=/ unless env has a PATH, then env.
func imageEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			return env
		}
	}
	return append([]string{"PATH=/"}, env...)
}

// descriptor is an OCI content descriptor of data with media type mt.
func descriptor(mt string, data []byte) map[string]any {
	return map[string]any{"mediaType": mt, "digest": digest(data), "size": len(data)}
}

func digest(data []byte) string { return "sha256:" + hexOf(data) }

func hexOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
