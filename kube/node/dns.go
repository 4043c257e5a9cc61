package node

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ClusterDomain is the DNS domain of the test cluster (the kubelet's clusterDomain).
const ClusterDomain = "cluster.local"

// dnsServer is the cluster's DNS: an authoritative server for ClusterDomain only, answering
// from the API server, that never forwards a query anywhere. It answers
//   - A <service>.<namespace>.svc.cluster.local: the Service's ClusterIP, or for a headless
//     Service its ready endpoints' addresses (Dapr's name resolver uses <app-id>-dapr headless
//     Services); AAAA and other types of an existing name: no records;
//   - A <hostname>.<service>.<namespace>.svc.cluster.local: the address of the ready endpoint
//     of headless Service <service> with that hostname (a StatefulSet's pod: the scheduler's
//     etcd peers find each other as dapr-scheduler-server-<n>.dapr-scheduler-server);
//   - A <a-b-c-d>.<namespace>.pod.cluster.local: a.b.c.d, as Kubernetes' DNS specification says;
//   - any other name under cluster.local: NXDOMAIN;
//   - any name outside it: REFUSED, at once.
//
// It runs in the test process, its sockets created inside the sandbox on the node address, so
// pods reach it at the address the kubelet's clusterDNS names.
type dnsServer struct {
	cs      kubernetes.Interface
	udp     net.PacketConn
	tcp     net.Listener
	wg      sync.WaitGroup
	refused atomic.Int64 // queries for names outside ClusterDomain
	queries atomic.Int64
}

// startDNS listens on addr (udp and tcp, inside s) and serves until close.
func startDNS(s *sandbox, addr string, cs kubernetes.Interface) (*dnsServer, error) {
	d := &dnsServer{cs: cs}
	err := s.in(func() error {
		var err error
		if d.udp, err = net.ListenPacket("udp", addr); err != nil {
			return err
		}
		d.tcp, err = net.Listen("tcp", addr)
		return err
	})
	if err != nil {
		if d.udp != nil {
			d.udp.Close()
		}
		return nil, &PartError{Part: "cluster DNS", Err: err}
	}
	d.wg.Add(2)
	go d.serveUDP()
	go d.serveTCP()
	return d, nil
}

func (d *dnsServer) serveUDP() {
	defer d.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := d.udp.ReadFrom(buf)
		if err != nil {
			return
		}
		req := append([]byte(nil), buf[:n]...)
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			if resp := d.answer(req); resp != nil {
				_, _ = d.udp.WriteTo(resp, from)
			}
		}()
	}
}

func (d *dnsServer) serveTCP() {
	defer d.wg.Done()
	for {
		c, err := d.tcp.Accept()
		if err != nil {
			return
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer c.Close()
			for {
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				req := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, req); err != nil {
					return
				}
				resp := d.answer(req)
				if resp == nil {
					return
				}
				out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
				if _, err := c.Write(append(out, resp...)); err != nil {
					return
				}
			}
		}()
	}
}

// close stops serving and waits for the queries in flight.
func (d *dnsServer) close() {
	d.udp.Close()
	d.tcp.Close()
	d.wg.Wait()
}

// answer is the response to the DNS message req, or nil when req does not parse.
func (d *dnsServer) answer(req []byte) []byte {
	d.queries.Add(1)
	var p dnsmessage.Parser
	h, err := p.Start(req)
	if err != nil {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	rh := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired}
	name := strings.ToLower(q.Name.String())
	var ips []netip.Addr
	switch {
	case h.OpCode != 0 || q.Class != dnsmessage.ClassINET:
		rh.RCode = dnsmessage.RCodeNotImplemented
	case name != ClusterDomain+"." && !strings.HasSuffix(name, "."+ClusterDomain+"."):
		// Not ours, and this server forwards nothing.
		d.refused.Add(1)
		rh.RCode = dnsmessage.RCodeRefused
	default:
		rh.Authoritative = true
		found, addrs, err := d.lookup(strings.TrimSuffix(name, "."+ClusterDomain+"."))
		switch {
		case err != nil:
			rh.RCode = dnsmessage.RCodeServerFailure
		case !found:
			rh.RCode = dnsmessage.RCodeNameError
		case q.Type == dnsmessage.TypeA:
			ips = addrs
		}
	}
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), rh)
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(q) != nil || b.StartAnswers() != nil {
		return nil
	}
	for _, ip := range ips {
		if !ip.Is4() {
			continue
		}
		rr := dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 5}
		if b.AResource(rr, dnsmessage.AResource{A: ip.As4()}) != nil {
			return nil
		}
	}
	resp, err := b.Finish()
	if err != nil {
		return nil
	}
	return resp
}

// lookup resolves rel, a name with ".cluster.local." taken off: whether it exists, and its
// IPv4 addresses.
func (d *dnsServer) lookup(rel string) (bool, []netip.Addr, error) {
	parts := strings.Split(rel, ".")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	switch {
	case len(parts) == 3 && parts[2] == "svc":
		return d.service(ctx, parts[1], parts[0])
	case len(parts) == 4 && parts[3] == "svc":
		return d.endpointHost(ctx, parts[2], parts[1], parts[0])
	case len(parts) == 3 && parts[2] == "pod":
		ip, err := netip.ParseAddr(strings.ReplaceAll(parts[0], "-", "."))
		if err != nil || !ip.Is4() {
			return false, nil, nil
		}
		return true, []netip.Addr{ip}, nil
	}
	return false, nil, nil
}

// endpointHost is the A records of the ready endpoints with hostname host of the Service name
// in ns (a headless Service's; the EndpointSlice controller marks every endpoint ready when the
// Service publishes not-ready addresses); it exists when some endpoint has that hostname.
func (d *dnsServer) endpointHost(ctx context.Context, ns, name, host string) (bool, []netip.Addr, error) {
	return d.readyEndpoints(ctx, ns, name, func(ep discoveryv1.Endpoint) bool { return ep.Hostname != nil && *ep.Hostname == host })
}

// readyEndpoints is the addresses of the ready endpoints of the Service name in ns that match
// keeps, and whether any endpoint, ready or not, matched.
func (d *dnsServer) readyEndpoints(ctx context.Context, ns, name string, keep func(discoveryv1.Endpoint) bool) (bool, []netip.Addr, error) {
	slices, err := d.cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + name})
	if err != nil {
		return false, nil, err
	}
	found := false
	var ips []netip.Addr
	for _, sl := range slices.Items {
		for _, ep := range sl.Endpoints {
			if !keep(ep) {
				continue
			}
			found = true
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, a := range ep.Addresses {
				if ip, err := netip.ParseAddr(a); err == nil {
					ips = append(ips, ip)
				}
			}
		}
	}
	return found, ips, nil
}

// service is the A records of Service name in ns.
func (d *dnsServer) service(ctx context.Context, ns, name string) (bool, []netip.Addr, error) {
	svc, err := d.cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	if svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != "None" {
		ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err != nil {
			return false, nil, err
		}
		return true, []netip.Addr{ip}, nil
	}
	_, ips, err := d.readyEndpoints(ctx, ns, name, func(discoveryv1.Endpoint) bool { return true })
	return err == nil, ips, err
}
