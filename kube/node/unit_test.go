package node

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestWriteImageTarball checks the OCI layout: every blob is named by its SHA-256, the index
// names the manifest and the image, the manifest the config and layer, the config's diff_id
// is the layer's digest, and the layer holds the file with its content at its path.
func TestWriteImageTarball(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "bin")
	if err := os.WriteFile(src, []byte("#!binary content"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "im.tar")
	im := Image{Name: "daprperf.local/x:e2e", Files: []ImageFile{{Path: "/app", Source: src}}, Entrypoint: []string{"/app"}, User: "65532:65532"}
	if err := WriteImageTarball(out, im); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = b
	}
	for name, b := range files {
		if d, ok := strings.CutPrefix(name, "blobs/sha256/"); ok && d != "" {
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) != d {
				t.Errorf("blob %s has digest %x", name, sum)
			}
		}
	}
	var index struct {
		Manifests []struct {
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(files["index.json"], &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("index.json: %v %s", err, files["index.json"])
	}
	if got := index.Manifests[0].Annotations["io.containerd.image.name"]; got != im.Name {
		t.Errorf("image name annotation %q, want %q", got, im.Name)
	}
	blob := func(d string) []byte { return files["blobs/sha256/"+strings.TrimPrefix(d, "sha256:")] }
	var manifest struct {
		Config struct{ Digest string } `json:"config"`
		Layers []struct{ Digest, MediaType string }
	}
	if err := json.Unmarshal(blob(index.Manifests[0].Digest), &manifest); err != nil || len(manifest.Layers) != 1 {
		t.Fatalf("manifest: %v", err)
	}
	var config struct {
		Config struct {
			User       string
			Entrypoint []string
		} `json:"config"`
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(blob(manifest.Config.Digest), &config); err != nil {
		t.Fatal(err)
	}
	if config.Config.User != "65532:65532" || len(config.Config.Entrypoint) != 1 || config.Config.Entrypoint[0] != "/app" {
		t.Errorf("config %+v", config.Config)
	}
	if len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0] != manifest.Layers[0].Digest {
		t.Errorf("diff_ids %v, layer %s: an uncompressed layer's diff_id is its digest", config.RootFS.DiffIDs, manifest.Layers[0].Digest)
	}
	lr := tar.NewReader(strings.NewReader(string(blob(manifest.Layers[0].Digest))))
	found := false
	for {
		h, err := lr.Next()
		if err != nil {
			break
		}
		if h.Name == "app" {
			b, _ := io.ReadAll(lr)
			found = string(b) == "#!binary content" && h.Mode == 0o755
		}
	}
	if !found {
		t.Error("the layer has no /app with the file's content and mode 0755")
	}
	if err := WriteImageTarball(out, Image{Name: "no-tag", Files: im.Files}); err == nil {
		t.Error("a name without a tag was accepted")
	}
}

// TestDNSAnswers checks the cluster DNS on a fake API: a ClusterIP Service, a headless one
// (its ready endpoints only) and its endpoints by hostname, a pod name, an unknown cluster name (NXDOMAIN) and outside names
// (REFUSED, counted, never forwarded).
func TestDNSAnswers(t *testing.T) {
	ready, notReady := true, false
	host0, host1 := "app-0", "app-1"
	cs := fake.NewClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "ns"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.10"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "app-dapr", Namespace: "ns"}, Spec: corev1.ServiceSpec{ClusterIP: "None"}},
		&discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Name: "app-dapr-x", Namespace: "ns", Labels: map[string]string{"kubernetes.io/service-name": "app-dapr"}},
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: []string{"10.244.0.7"}, Hostname: &host0, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
				{Addresses: []string{"10.244.0.8"}, Hostname: &host1, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}},
			},
		},
	)
	d := &dnsServer{cs: cs}
	cases := []struct {
		name  string
		typ   dnsmessage.Type
		rcode dnsmessage.RCode
		want  []string
	}{
		{"api.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"10.96.0.10"}},
		{"API.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"10.96.0.10"}},
		{"api.ns.svc.cluster.local.", dnsmessage.TypeAAAA, dnsmessage.RCodeSuccess, nil},
		{"app-dapr.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"10.244.0.7"}},
		{"10-244-0-9.ns.pod.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"10.244.0.9"}},
		{"app-0.app-dapr.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"10.244.0.7"}},
		{"app-1.app-dapr.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, nil},
		{"app-2.app-dapr.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
		{"nope.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
		{"api.ns.svc.cluster.local.ns.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
		{"example.com.", dnsmessage.TypeA, dnsmessage.RCodeRefused, nil},
		{"cluster.local.example.com.", dnsmessage.TypeA, dnsmessage.RCodeRefused, nil},
	}
	for _, c := range cases {
		q := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
		_ = q.StartQuestions()
		_ = q.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(c.name), Type: c.typ, Class: dnsmessage.ClassINET})
		req, _ := q.Finish()
		var m dnsmessage.Message
		if err := m.Unpack(d.answer(req)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, a := range m.Answers {
			if r, ok := a.Body.(*dnsmessage.AResource); ok {
				got = append(got, netip.AddrFrom4(r.A).String())
			}
		}
		if m.Header.ID != 7 || m.Header.RCode != c.rcode || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s %v: id %d rcode %v answers %v; want rcode %v answers %v", c.name, c.typ, m.Header.ID, m.Header.RCode, got, c.rcode, c.want)
		}
	}
	if n := d.refused.Load(); n != 2 {
		t.Errorf("refused %d queries, want 2", n)
	}
}

// TestLibraryFiles parses ldd's output as glibc's ldd prints it: a library resolved by name, the
// loader by its path, the vDSO (no file) and a library named twice.
func TestLibraryFiles(t *testing.T) {
	out := []byte("\tlinux-vdso.so.1 (0x00007ffd5d1f2000)\n" +
		"\tlibssl.so.3 => /lib/x86_64-linux-gnu/libssl.so.3 (0x00007f2f0f2a1000)\n" +
		"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2f0ee00000)\n" +
		"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2f0ee00000)\n" +
		"\t/lib64/ld-linux-x86-64.so.2 (0x00007f2f0f4e4000)\n")
	got := libraryFiles(out)
	want := []string{"/lib/x86_64-linux-gnu/libssl.so.3", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("libraryFiles = %q, want %q", got, want)
	}
}

// TestRedisImage describes the in-cluster Redis image from the host's redis-server (make test
// installs it) and starts the image's loader command on the host with --version, which opens
// no port: the loader, the library path and the binary work together as the pod runs them.
func TestRedisImage(t *testing.T) {
	if _, err := os.Stat(redisServer); err != nil {
		t.Skipf("%s missing (Debian's redis-server; make test installs it): %v", redisServer, err)
	}
	im, err := redisImage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, f := range im.Files {
		paths[f.Path] = true
	}
	if !paths[redisServer] || !paths[im.Entrypoint[0]] || len(im.Files) < 3 {
		t.Fatalf("image files %v: want redis-server, the loader %s and its libraries", paths, im.Entrypoint[0])
	}
	if im.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (unprivileged)", im.User)
	}
	out, err := exec.CommandContext(t.Context(), im.Entrypoint[0], append(im.Entrypoint[1:4], "--version")...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Redis server v=") {
		t.Fatalf("%q --version: %v: %s", im.Entrypoint[:4], err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
	if err := WriteImageTarball(filepath.Join(t.TempDir(), "redis.tar"), im); err != nil {
		t.Fatal(err)
	}
}

// The metrics-server Deployment names the image writeImages imports, and no other: a version in
// the manifest's tag leaves the pod pulling an image no one imported once the version moves.
func TestMetricsServerManifestNamesTheImportedImage(t *testing.T) {
	data, err := manifests.ReadFile("manifests/metrics-server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "image:"); ok {
			images = append(images, strings.TrimSpace(v))
		}
	}
	if len(images) != 1 || images[0] != metricsServerImage {
		t.Errorf("manifests/metrics-server.yaml names images %q, want exactly [%q]", images, metricsServerImage)
	}
}

// .ci/run's background build compiles the images' binaries ahead of the first bring-up: the same
// packages with the same flags as writeImages, or the bring-up compiles them again.
func TestCIRunPrebuildsTheImageBinaries(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var step string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, " "+nodeprobePkg) && strings.Contains(line, "go build") {
			step = strings.Join(strings.Fields(line), " ")
		}
	}
	if step == "" {
		t.Fatalf(".ci/run has no go build of %s (the images' binaries)", nodeprobePkg)
	}
	want := `env CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o`
	if got := strings.Join(imageBuildFlags, " "); got != `-trimpath -ldflags -s -w` || !strings.Contains(step, want) {
		t.Errorf(".ci/run's build of the images' binaries %q does not build with writeImages' flags %q (want %q in it)", step, imageBuildFlags, want)
	}
	pkgs := []string{nodeprobePkg}
	for _, app := range imageApps {
		pkgs = append(pkgs, "./apps/"+app+"/cmd/"+app)
	}
	for _, p := range pkgs {
		if !strings.Contains(" "+step+" ", " "+p+" ") {
			t.Errorf(".ci/run's build of the images' binaries does not compile %s: %q", p, step)
		}
	}
}

// Each rendered Dapr chart names only the images writeImages imports for its release
// (daprperf.local/<part>:<version without v>); the default release has one; a release without
// one is refused before anything starts, naming the releases that have one.
func TestDaprManifestsNameTheirReleasesImages(t *testing.T) {
	files, err := fs.Glob(manifests, "manifests/dapr-v*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no rendered Dapr chart: %v", err)
	}
	for _, f := range files {
		version := strings.TrimSuffix(strings.TrimPrefix(f, "manifests/dapr-"), ".yaml")
		if err := checkDaprManifests(version); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		data, err := manifests.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tag := strings.TrimPrefix(version, "v")
		var images []string
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "image:"); ok {
				images = append(images, strings.Trim(strings.TrimSpace(v), `"`))
			}
		}
		if len(images) == 0 {
			t.Errorf("%s names no image", f)
		}
		for _, im := range images {
			part, ok := strings.CutPrefix(im, ImageRegistry+"/")
			if !ok || !strings.HasSuffix(part, ":"+tag) {
				t.Errorf("%s names image %q, want %s/<part>:%s", f, im, ImageRegistry, tag)
			}
		}
	}
	if err := checkDaprManifests(DefaultDaprVersion); err != nil {
		t.Errorf("the default release: %v", err)
	}
	err = checkDaprManifests("v1.0.0")
	if err == nil || !strings.Contains(err.Error(), "v1.0.0") || !strings.Contains(err.Error(), DefaultDaprVersion) {
		t.Errorf("a release without a chart: %v, want an error naming it and the releases that have one", err)
	}
}
