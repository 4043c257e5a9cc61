package kube

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// forward is one port-forward to a pod: 127.0.0.1:<local> -> <pod>:<remote> for each port,
// over SPDY through the API server, as kubectl port-forward does.
type forward struct {
	pod   string
	ports map[int32]uint16 // remote (pod) port -> local port on 127.0.0.1
	stop  chan struct{}
	done  chan struct{} // closed when ForwardPorts returned
	once  sync.Once
	out   bytes.Buffer // the forwarder's own messages, for errors
	err   error        // what ForwardPorts returned; read after done
}

// startForward forwards each of remote (pod ports) from a free port on 127.0.0.1 to pod in ns,
// and returns once the listeners are up. Close stops it.
func startForward(cfg *rest.Config, cs kubernetes.Interface, ns, pod string, remote []int32) (*forward, error) {
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("port-forward to %s: %w", pod, err)
	}
	u := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	specs := make([]string, len(remote))
	for i, p := range remote {
		specs[i] = fmt.Sprintf("0:%d", p) // 0: a free local port
	}
	f := &forward{pod: pod, ports: map[int32]uint16{}, stop: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan struct{})
	pf, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, specs, f.stop, ready, &f.out, &f.out)
	if err != nil {
		return nil, fmt.Errorf("port-forward to %s: %w", pod, err)
	}
	go func() {
		f.err = pf.ForwardPorts()
		close(f.done)
	}()
	select {
	case <-ready:
	case <-f.done:
		return nil, fmt.Errorf("port-forward to %s: %v (%s)", pod, f.err, bytes.TrimSpace(f.out.Bytes()))
	}
	got, err := pf.GetPorts()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("port-forward to %s: %w", pod, err)
	}
	for _, p := range got {
		f.ports[int32(p.Remote)] = p.Local
	}
	return f, nil
}

// Local is the 127.0.0.1 port that forwards to remote, or 0 when it is not forwarded.
func (f *forward) Local(remote int32) uint16 { return f.ports[remote] }

// Close stops the forward and waits until its listeners are closed; it is safe to call twice.
func (f *forward) Close() {
	f.once.Do(func() { close(f.stop) })
	<-f.done
}
