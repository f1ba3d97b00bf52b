package simweb_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/miekg/dns"

	"github.com/seedengine/seedengine/internal/simweb"
)

// BenchmarkHomeHTTP is one keep-alive GET of a generated home page: the cost
// simweb adds to every liveness probe.
func BenchmarkHomeHTTP(b *testing.B) {
	web, err := simweb.Start(simweb.Config{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer web.Close()
	sites := web.Generate(1000, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, "http://"+web.HTTPAddr()+"/", nil)
			req.Host = sites[i%len(sites)].Host
			i++
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkTLSNewHost is a full handshake for a name seen for the first time:
// certificate issuance plus handshake, what the first HTTPS probe of each
// domain costs.
func BenchmarkTLSNewHost(b *testing.B) {
	web, err := simweb.Start(simweb.Config{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer web.Close()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(web.CACertPEM())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		name := "bench" + strconv.Itoa(i) + ".example"
		web.AddSite(simweb.Site{Host: name})
		conn, err := tls.Dial("tcp", web.HTTPSAddr(), &tls.Config{ServerName: name, RootCAs: pool})
		if err != nil {
			b.Fatal(err)
		}
		conn.Close()
	}
}

// BenchmarkDNS is one A query over UDP.
func BenchmarkDNS(b *testing.B) {
	web, err := simweb.Start(simweb.Config{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer web.Close()
	sites := web.Generate(1000, nil)
	c := &dns.Client{}
	conn, err := c.DialContext(context.Background(), web.DNSAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := new(dns.Msg)
		m.SetQuestion(dns.Fqdn(sites[i%len(sites)].Host), dns.TypeA)
		r, _, err := c.ExchangeWithConn(m, conn)
		if err != nil || r.Rcode != dns.RcodeSuccess {
			b.Fatal(err, r)
		}
	}
}
