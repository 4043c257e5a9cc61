package node

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestHostImageTree copies a folder as hostImage's trees do: files at their paths with their
// modes, a link to a file as a copy of it, a link to a folder, a dangling link, a skipped
// folder and a skipped file left out; the program's libraries and loader added, the entrypoint through the loader
// and LD_LIBRARY_PATH first in the environment.
func TestHostImageTree(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("share/a.txt", "a", 0o644)
	write("share/sub/run", "#!/bin/sh\n", 0o750)
	write("share/skipped/big", "x", 0o644)
	write("share/skipped.so", "x", 0o644)
	for name, target := range map[string]string{"share/link": "a.txt", "share/dirlink": "sub", "share/dangling": "nowhere", "share/self": "."} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	share := filepath.Join(dir, "share")
	im, err := hostImage(t.Context(), hostImageSpec{
		name: "daprperf.local/x:e2e", pkg: "dash", programs: []string{"/bin/sh"}, args: []string{"-c", "true"},
		trees: []string{share}, skip: []string{filepath.Join(share, "skipped"), filepath.Join(share, "skipped.so")},
		files: []ImageFile{{Path: "/etc/x.conf", Mode: 0o644, Data: []byte("x\n")}},
		env:   []string{"A=b"}, user: backendUser,
	})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]ImageFile{}
	for _, f := range im.Files {
		if _, dup := files[f.Path]; dup {
			t.Errorf("%s twice in the image", f.Path)
		}
		files[f.Path] = f
	}
	want := map[string]int64{share + "/a.txt": 0o644, share + "/sub/run": 0o750, share + "/link": 0o644, "/bin/sh": 0o755, "/etc/x.conf": 0o644}
	for p, mode := range want {
		if f, ok := files[p]; !ok || f.Mode != mode {
			t.Errorf("%s: in image %v, mode %o; want mode %o", p, ok, f.Mode, mode)
		}
	}
	for _, p := range []string{share + "/dirlink", share + "/dangling", share + "/self", share + "/skipped/big", share + "/skipped.so"} {
		if _, ok := files[p]; ok {
			t.Errorf("%s is in the image; want it left out", p)
		}
	}
	loader := im.Entrypoint[0]
	if _, ok := files[loader]; !ok || !strings.HasPrefix(filepath.Base(loader), "ld-linux") {
		t.Errorf("entrypoint %q: want the image's dynamic loader first", im.Entrypoint)
	}
	if got := im.Entrypoint[1:]; len(got) != 5 || got[0] != "--library-path" || got[2] != "/bin/sh" || got[3] != "-c" || got[4] != "true" {
		t.Errorf("entrypoint %q: want loader --library-path <dirs> /bin/sh -c true", im.Entrypoint)
	}
	if len(im.Env) != 2 || im.Env[0] != "LD_LIBRARY_PATH="+im.Entrypoint[2] || im.Env[1] != "A=b" {
		t.Errorf("env %q: want LD_LIBRARY_PATH=%s then A=b", im.Env, im.Entrypoint[2])
	}
	for _, d := range strings.Split(im.Entrypoint[2], ":") {
		found := false
		for p := range files {
			found = found || filepath.Dir(p) == d
		}
		if !found {
			t.Errorf("library path %s holds no file of the image", d)
		}
	}
}

// TestWriteImageTarballEnvAndData checks what hostImage's images add to the OCI layout: Env
// after PATH=/ (or in its place when it sets PATH), and a generated file's content.
func TestWriteImageTarballEnvAndData(t *testing.T) {
	out := filepath.Join(t.TempDir(), "im.tar")
	for _, c := range []struct {
		env, want []string
	}{
		{nil, []string{"PATH=/"}},
		{[]string{"LD_LIBRARY_PATH=/lib"}, []string{"PATH=/", "LD_LIBRARY_PATH=/lib"}},
		{[]string{"PATH=/bin", "A=b"}, []string{"PATH=/bin", "A=b"}},
	} {
		im := Image{Name: "daprperf.local/x:e2e", Files: []ImageFile{{Path: "/etc/passwd", Mode: 0o644, Data: []byte("x:x:1:1::/:/bin/sh\n")}},
			Entrypoint: []string{"/x"}, Env: c.env}
		if err := WriteImageTarball(out, im); err != nil {
			t.Fatal(err)
		}
		img, err := readImageTarball(out)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(img.env, c.want) {
			t.Errorf("Env %q: config has %q, want %q", c.env, img.env, c.want)
		}
		if f := img.files["etc/passwd"]; string(f.data) != "x:x:1:1::/:/bin/sh\n" || f.mode != 0o644 {
			t.Errorf("etc/passwd: %q mode %o", f.data, f.mode)
		}
	}
}

// TestBackendImages describes the image of every installed backend (make test installs them
// all: make test-deps) and checks its files, its entrypoint and the pod that runs it: every
// program a container or probe starts is in the image, with the loader and library path of
// the entrypoint; mounts name the pod's volumes; the image is unprivileged; and its tarball is
// byte-for-byte the same when written twice. The sizes are logged.
func TestBackendImages(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if !b.installed() {
				t.Skipf("%s is not installed (apt-get install %s, or make test-deps)", b.name, b.pkg)
			}
			im, err := b.image(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			files := map[string]bool{}
			for _, f := range im.Files {
				if files[f.Path] || !strings.HasPrefix(f.Path, "/") {
					t.Errorf("file %q: twice, or not absolute", f.Path)
				}
				files[f.Path] = true
			}
			if im.User != backendUser {
				t.Errorf("user %q, want %s", im.User, backendUser)
			}
			for _, p := range wantBackendFiles(t, b.name, im) {
				if !files[p] {
					t.Errorf("%s is not in the image", p)
				}
			}
			pod := b.pod(im, inCluster)
			volumes := map[string]corev1.Volume{}
			for _, v := range pod.Volumes {
				volumes[v.Name] = v
				if v.ConfigMap != nil && (b.config == nil || v.ConfigMap.Name != b.name) {
					t.Errorf("volume %s: ConfigMap %s; want the backend's own (%s), with data", v.Name, v.ConfigMap.Name, b.name)
				}
			}
			for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
				if c.Image != im.Name || c.ImagePullPolicy != corev1.PullNever {
					t.Errorf("container %s: image %s pull %s; want %s, never pulled", c.Name, c.Image, c.ImagePullPolicy, im.Name)
				}
				cmds := [][]string{c.Command}
				if c.ReadinessProbe != nil && c.ReadinessProbe.Exec != nil {
					cmds = append(cmds, c.ReadinessProbe.Exec.Command)
				}
				for _, cmd := range cmds {
					if cmd != nil && (len(cmd) < 4 || !slices.Equal(cmd[:3], im.Entrypoint[:3]) || !files[cmd[3]]) {
						t.Errorf("container %s runs %q: want the entrypoint's loader and library path, and a program of the image", c.Name, cmd)
					}
				}
				for _, m := range c.VolumeMounts {
					if _, ok := volumes[m.Name]; !ok {
						t.Errorf("container %s mounts %s, which the pod does not have", c.Name, m.Name)
					}
				}
			}
			main := pod.Containers[0]
			if main.Name != b.name || main.ReadinessProbe == nil || len(main.Ports) != 1 || main.Ports[0].ContainerPort != b.port {
				t.Errorf("container %s ports %v probe %v: want %s on %d with a readiness probe", main.Name, main.Ports, main.ReadinessProbe, b.name, b.port)
			}
			dir := t.TempDir()
			one, two := filepath.Join(dir, "1.tar"), filepath.Join(dir, "2.tar")
			for _, p := range []string{one, two} {
				if err := WriteImageTarball(p, im); err != nil {
					t.Fatal(err)
				}
			}
			a, _ := os.ReadFile(one)
			bb, _ := os.ReadFile(two)
			if !bytes.Equal(a, bb) {
				t.Error("the image's tarball differs from one write to the next")
			}
			t.Logf("%s: %d files, tarball %.1f MB", im.Name, len(im.Files), float64(len(a))/1e6)
		})
	}
}

// wantBackendFiles are files the image of the backend must hold besides its libraries.
func wantBackendFiles(t *testing.T, name string, im Image) []string {
	t.Helper()
	want := []string{im.Entrypoint[0], im.Entrypoint[3]}
	switch name {
	case PostgreSQLService:
		dir := newestPostgres()
		v := filepath.Base(dir)
		want = append(want, dir+"/bin/postgres", dir+"/bin/initdb", dir+"/bin/pg_isready", "/bin/sh", "/etc/passwd",
			dir+"/lib/plpgsql.so", "/usr/share/postgresql/"+v+"/postgres.bki", "/usr/share/zoneinfo/UTC")
	case RabbitMQService:
		script, err := filepath.EvalSymlinks(rabbitmqScript)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, script, "/usr/bin/dirname", "/usr/bin/basename", "/usr/bin/df", "/usr/bin/getconf", "/etc/nsswitch.conf",
			erlangRoot+"/bin/erl", erlangRoot+"/bin/start_sasl.boot")
	}
	return want
}

// imageTarball is what readImageTarball finds in an OCI layout tarball.
type imageTarball struct {
	entrypoint, env []string
	user            string
	files           map[string]layerFile // by path in the layer, "usr/bin/x"
	dirs            map[string]int64     // mode by path, "usr/bin"
}

type layerFile struct {
	data []byte
	mode int64
}

// readImageTarball reads the OCI layout WriteImageTarball writes: index, manifest, config and
// the one layer's files and folders. Any other kind of layer entry is an error.
func readImageTarball(path string) (*imageTarball, error) {
	outer, err := readTar(path)
	if err != nil {
		return nil, err
	}
	blob := func(digest string) []byte { return outer["blobs/sha256/"+strings.TrimPrefix(digest, "sha256:")].data }
	var index struct {
		Manifests []struct{ Digest string } `json:"manifests"`
	}
	var manifest struct {
		Config struct{ Digest string }   `json:"config"`
		Layers []struct{ Digest string } `json:"layers"`
	}
	var config struct {
		Config struct {
			User       string
			Entrypoint []string
			Env        []string
		} `json:"config"`
	}
	if err := json.Unmarshal(outer["index.json"].data, &index); err != nil || len(index.Manifests) != 1 {
		return nil, fmt.Errorf("index.json: %v", err)
	}
	if err := json.Unmarshal(blob(index.Manifests[0].Digest), &manifest); err != nil || len(manifest.Layers) != 1 {
		return nil, fmt.Errorf("manifest: %v", err)
	}
	if err := json.Unmarshal(blob(manifest.Config.Digest), &config); err != nil {
		return nil, fmt.Errorf("config: %v", err)
	}
	img := &imageTarball{entrypoint: config.Config.Entrypoint, env: config.Config.Env, user: config.Config.User,
		files: map[string]layerFile{}, dirs: map[string]int64{}}
	if err := readLayer(blob(manifest.Layers[0].Digest), img); err != nil {
		return nil, err
	}
	return img, nil
}

// readTar reads every entry of the tar file at path, by name.
func readTar(path string) (map[string]layerFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]layerFile{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out[h.Name] = layerFile{data: b, mode: h.Mode}
	}
}

// readLayer adds the folders and regular files of an uncompressed layer to img.
func readLayer(layer []byte, img *imageTarball) error {
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			img.dirs[strings.TrimSuffix(h.Name, "/")] = h.Mode
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			img.files[h.Name] = layerFile{data: b, mode: h.Mode}
		default:
			return fmt.Errorf("layer entry %s has type %q: the images hold folders and regular files only", h.Name, h.Typeflag)
		}
	}
}
