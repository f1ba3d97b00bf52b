package simweb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/miekg/dns"
)

const dnsTTL = 300

// listenDNS binds UDP and TCP on one port, as resolvers expect to retry a
// truncated UDP answer over TCP at the same address. With an OS-chosen port
// the TCP port may be taken; a few attempts find a free pair.
func listenDNS(addr string) (net.PacketConn, net.Listener, error) {
	attempts := 1
	if _, port, err := net.SplitHostPort(addr); err == nil && port == "0" {
		attempts = 20
	}
	var lastErr error
	for range attempts {
		pc, err := net.ListenPacket("udp4", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("listen dns udp %s: %w", addr, err)
		}
		ln, err := net.Listen("tcp4", pc.LocalAddr().String())
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		lastErr = err
	}
	return nil, nil, fmt.Errorf("listen dns tcp next to udp: %w", lastErr)
}

// startDNS serves the zone on both sockets and returns once both servers
// accept queries, so Close never races their start. Only started servers are
// recorded, because miekg/dns refuses to shut down one that is not.
func (w *Web) startDNS() error {
	handler := dns.HandlerFunc(w.serveDNS)
	udp := &dns.Server{PacketConn: w.dnsPC, Handler: handler}
	tcp := &dns.Server{Listener: w.dnsLn, Handler: handler}
	for _, srv := range []*dns.Server{udp, tcp} {
		started := make(chan struct{})
		errc := make(chan error, 1)
		srv.NotifyStartedFunc = func() { close(started) }
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			errc <- srv.ActivateAndServe()
		}()
		select {
		case <-started:
		case err := <-errc:
			return fmt.Errorf("start dns server: %w", err)
		case <-time.After(5 * time.Second):
			return errors.New("start dns server: timed out")
		}
		if srv == udp {
			w.dnsUDP = srv
		} else {
			w.dnsTCP = srv
		}
	}
	return nil
}

func (w *Web) stopDNS() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var errs []error
	for _, srv := range []*dns.Server{w.dnsUDP, w.dnsTCP} {
		if srv != nil {
			errs = append(errs, srv.ShutdownContext(ctx))
		}
	}
	// Shutdown closes the sockets of started servers; these closes are for
	// a start that failed half-way, and their errors mean nothing.
	if w.dnsPC != nil {
		w.dnsPC.Close()
	}
	if w.dnsLn != nil {
		w.dnsLn.Close()
	}
	return errors.Join(errs...)
}

// serveDNS answers like the authoritative server of every simulated zone:
// A 127.0.0.1 for live names and their www., NODATA (NOERROR, no answer, SOA
// in authority) for other types, NXDOMAIN for unknown names, and what the
// site's scenario asks for otherwise. Answers are authoritative and claim
// recursion, because Go's resolver treats a non-authoritative empty answer
// without recursion as a lame referral.
func (w *Web) serveDNS(rw dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	m.RecursionAvailable = true
	if len(req.Question) != 1 || req.Opcode != dns.OpcodeQuery {
		m.Rcode = dns.RcodeNotImplemented
		_ = rw.WriteMsg(m)
		return
	}
	q := req.Question[0]
	name := normalizeHost(q.Name)
	site, www := w.lookup(name)

	rcode := dns.RcodeSuccess
	sc := ScenarioHealthy
	switch {
	case site == nil:
		rcode = dns.RcodeNameError
	default:
		sc = site.effective(www)
		switch sc {
		case ScenarioNXDomain:
			rcode = dns.RcodeNameError
		case ScenarioServFail:
			rcode = dns.RcodeServerFailure
		case ScenarioDNSTimeout:
			w.logDNS(name, q.Qtype, sc, "no_answer")
			return
		}
	}
	m.Rcode = rcode
	if rcode == dns.RcodeSuccess {
		if q.Qtype == dns.TypeA && q.Qclass == dns.ClassINET {
			m.Answer = append(m.Answer, &dns.A{
				Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: dnsTTL},
				A:   net.IPv4(127, 0, 0, 1).To4(),
			})
		} else {
			m.Ns = append(m.Ns, &dns.SOA{
				Hdr:     dns.RR_Header{Name: dns.Fqdn(site.Host), Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: dnsTTL},
				Ns:      "ns1.simweb.invalid.",
				Mbox:    "hostmaster.simweb.invalid.",
				Serial:  1,
				Refresh: 3600,
				Retry:   600,
				Expire:  86400,
				Minttl:  60,
			})
		}
	}
	w.logDNS(name, q.Qtype, sc, dns.RcodeToString[rcode])
	_ = rw.WriteMsg(m)
}

func (w *Web) logDNS(name string, qtype uint16, sc Scenario, result string) {
	if !w.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	w.log.LogAttrs(context.Background(), slog.LevelDebug, "simweb_dns_query",
		slog.String("event", "simweb_dns_query"),
		slog.String("name", name),
		slog.String("qtype", dns.TypeToString[qtype]),
		slog.String("scenario", string(sc)),
		slog.String("result", result))
}
