package client_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seedengine/seedengine/client"
)

// The examples run against a real seedengine serve on loopback, with an
// admin key, fetching from a site of this test (news.example.com and
// every other name are routed to it with --connect-to; nothing leaves
// the machine). SEEDENGINE_URL and SEEDENGINE_TOKEN name a running
// service instead; outside the repository, without them, the examples
// are not run.
var (
	serverURL string
	token     string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if u := os.Getenv("SEEDENGINE_URL"); u != "" {
		serverURL, token = u, os.Getenv("SEEDENGINE_TOKEN")
		return m.Run()
	}
	if _, err := os.Stat(filepath.Join("..", "cmd", "seedengine")); err != nil {
		fmt.Println("client: not in the seedengine repository and SEEDENGINE_URL not set: the examples need a server")
		return 0
	}
	site, cert, err := startSite()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer site.Close()
	dir, err := os.MkdirTemp("", "seedengine-client-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	stop, err := startServer(dir, site, cert)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	return m.Run()
}

// startServer builds seedengine from the repository and runs serve with
// an empty data directory; it creates the admin key the examples use.
func startServer(dir string, site *httptest.Server, cert []byte) (stop func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "seedengine")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/seedengine")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build seedengine: %v: %s", err, out)
	}
	ca := filepath.Join(dir, "site-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert}), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"), "--log-format", "json",
		"--connect-to", "::"+strings.TrimPrefix(site.URL, "https://"), "--extra-ca-file", ca,
		"--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SEEDENGINE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct{ Event, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Event == "http_listening" {
				addr <- line.Addr
			}
		}
	}()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	select {
	case a := <-addr:
		serverURL = "http://" + a
	case <-ctx.Done():
		stop()
		return nil, fmt.Errorf("serve did not listen: %w", ctx.Err())
	}
	// No key exists yet, so the API is open on loopback: make the first.
	open, err := client.NewClientWithResponses(serverURL)
	if err != nil {
		stop()
		return nil, err
	}
	for {
		r, err := open.CreateKeyWithResponse(ctx, client.CreateKeyJSONRequestBody{Name: "examples", Scope: client.KeyCreateRequestScopeAdmin})
		if err == nil && r.JSON201 != nil {
			token = r.JSON201.Token
			return stop, nil
		}
		select {
		case <-ctx.Done():
			stop()
			return nil, fmt.Errorf("create a key: %v %v", err, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// startSite serves serveSite over TLS with a certificate of its own for
// example.com, example.org and their subdomains; cert is its DER, which
// serve trusts (--extra-ca-file).
func startSite() (*httptest.Server, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "seedengine client examples"},
		DNSNames:              []string{"example.com", "*.example.com", "example.org", "*.example.org"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	site := httptest.NewUnstartedServer(http.HandlerFunc(serveSite))
	site.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	site.StartTLS()
	return site, der, nil
}

// serveSite is a news site: robots.txt, a home page that declares its
// RSS feed, the feed with three recent articles, and nothing else.
func serveSite(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Example News</title>`+
			`<link rel="alternate" type="application/rss+xml" title="Example News" href="/feed.xml"></head>`+
			`<body><h1>Example News</h1></body></html>`)
	case "/feed.xml":
		w.Header().Set("Content-Type", "application/rss+xml")
		now := time.Now().UTC()
		site := "https://" + r.Host
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Example News</title><link>%s/</link>`, site)
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(w, `<item><title>Article %d</title><link>%s/articles/%d</link><pubDate>%s</pubDate></item>`,
				i, site, i, now.Add(-time.Duration(i)*time.Hour).Format(time.RFC1123Z))
		}
		fmt.Fprint(w, `</channel></rss>`)
	default:
		http.NotFound(w, r)
	}
}

// TestExamplesHaveAServer fails when TestMain could not give the examples
// a server: without one, they would not run at all.
func TestExamplesHaveAServer(t *testing.T) {
	if serverURL == "" || token == "" {
		t.Fatal("no server for the examples")
	}
}
