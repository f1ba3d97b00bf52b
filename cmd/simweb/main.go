// Command simweb runs the simulated web of internal/simweb on its own, for
// manual runs and benchmarks: seedengine, curl, dig or httpx point at it
// instead of the internet.
//
//	go run ./cmd/simweb --sites 10000 --seed 1 --mix dead=0.1,slow=0.05,blocked=0.05 \
//	    --hosts-out /tmp/hosts.tsv --env-out /tmp/simweb.env
//
// With --catalogue it also serves the realistic sites of simweb's catalogue
// and lists each entry's name, domain_id, and expected seed, dated from the
// moment it starts.
//
// It prints the listen addresses, the connect-to entries, the CA file and the
// matching SEEDENGINE_* settings, then serves until SIGINT or SIGTERM.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/seedengine/seedengine/internal/simweb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "simweb:", err)
		os.Exit(1)
	}
}

// run starts the web, reports it on stdout and serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simweb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sites := fs.Int("sites", 1000, "number of sites to generate")
	seed := fs.Int64("seed", 1, "generator seed; the same seed gives the same sites")
	mixFlag := fs.String("mix", "", "scenario shares, e.g. dead=0.1,slow=0.05,blocked=5% (groups: dead, blocked, tls, redirect; or any scenario name); the rest is healthy")
	httpAddr := fs.String("http", "", "HTTP listen address (127.0.0.1:port; default: any free port)")
	httpsAddr := fs.String("https", "", "HTTPS listen address (127.0.0.1:port; default: any free port)")
	dnsAddr := fs.String("dns", "", "DNS listen address, UDP and TCP (127.0.0.1:port; default: any free port)")
	caDir := fs.String("ca-dir", "", "directory for simweb-ca.pem (default: a new temporary directory)")
	hostsOut := fs.String("hosts-out", "", "write the generated sites to this file, one \"host<TAB>scenario<TAB>layout\" line each")
	envOut := fs.String("env-out", "", "write the SEEDENGINE_* settings for this web to this file")
	verbose := fs.Bool("v", false, "log every request and DNS query to stderr")
	catalogue := fs.Bool("catalogue", false, "also serve the realistic site catalogue (internal/simweb Catalogue) and list each entry's domain and expected seed")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: simweb [flags]\n\nRuns a simulated web on 127.0.0.1 until interrupted.\n\nScenarios:", scenarioNames())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *sites < 0 {
		return fmt.Errorf("--sites must not be negative")
	}
	mix, err := simweb.ParseMix(*mixFlag)
	if err != nil {
		return fmt.Errorf("--mix: %w", err)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	web, err := simweb.Start(simweb.Config{
		Seed: *seed, Logger: logger,
		HTTPAddr: *httpAddr, HTTPSAddr: *httpsAddr, DNSAddr: *dnsAddr,
	})
	if err != nil {
		return err
	}
	defer web.Close()
	generated := web.Generate(*sites, mix)
	var entries []simweb.CatalogueEntry
	if *catalogue {
		entries = web.AddCatalogue(time.Now())
	}

	dir := *caDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "simweb-"); err != nil {
			return err
		}
	}
	caFile, err := web.WriteCAFile(dir)
	if err != nil {
		return err
	}
	if *hostsOut != "" {
		if err := writeHosts(*hostsOut, generated); err != nil {
			return err
		}
	}
	env := settings(web, caFile)
	if *envOut != "" {
		if err := os.WriteFile(*envOut, []byte(strings.Join(env, "\n")+"\n"), 0o644); err != nil {
			return fmt.Errorf("write env file: %w", err)
		}
	}
	report(stdout, web, generated, caFile, env, *seed)
	if len(entries) > 0 {
		reportCatalogue(stdout, entries)
	}

	<-ctx.Done()
	fmt.Fprintln(stdout, "simweb: stopping")
	return web.Close()
}

func scenarioNames() string {
	var names []string
	for _, s := range simweb.Scenarios() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// settings are the seedengine settings that point the fetcher at this web.
func settings(web *simweb.Web, caFile string) []string {
	return []string{
		"SEEDENGINE_DNS_SERVER=" + web.DNSAddr(),
		"SEEDENGINE_CONNECT_TO=" + strings.Join(web.ConnectTo(), ","),
		"SEEDENGINE_EXTRA_CA_FILE=" + caFile,
		"SEEDENGINE_ALLOW_PRIVATE_NETWORKS=127.0.0.0/8",
	}
}

func writeHosts(path string, sites []simweb.Site) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write hosts file: %w", err)
	}
	bw := bufio.NewWriter(f)
	for _, s := range sites {
		fmt.Fprintf(bw, "%s\t%s\t%s\n", s.Host, s.Scenario, s.Layout)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write hosts file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write hosts file: %w", err)
	}
	return nil
}

func report(w io.Writer, web *simweb.Web, sites []simweb.Site, caFile string, env []string, seed int64) {
	counts := map[simweb.Scenario]int{}
	example := map[simweb.Scenario]string{}
	for _, s := range sites {
		counts[s.Scenario]++
		if _, ok := example[s.Scenario]; !ok {
			example[s.Scenario] = s.Host
		}
	}
	scenarios := simweb.Scenarios()
	sort.SliceStable(scenarios, func(i, j int) bool { return counts[scenarios[i]] > counts[scenarios[j]] })

	fmt.Fprintf(w, "simweb: %d sites, seed %d\n\n", len(sites), seed)
	fmt.Fprintf(w, "  http   %s\n  https  %s\n  dns    %s (udp and tcp)\n  ca     %s\n\n", web.HTTPAddr(), web.HTTPSAddr(), web.DNSAddr(), caFile)
	fmt.Fprintln(w, "scenario             sites  example")
	for _, s := range scenarios {
		if counts[s] > 0 {
			fmt.Fprintf(w, "  %-18s %5d  %s\n", s, counts[s], example[s])
		}
	}
	entries := web.ConnectTo()
	fmt.Fprintf(w, "\nconnect-to (%d entries, first match wins):\n", len(entries))
	const show = 6
	for i, e := range entries {
		if i == show && len(entries) > show+2 {
			fmt.Fprintf(w, "  … %d more (see SEEDENGINE_CONNECT_TO)\n", len(entries)-show-2)
		}
		if i < show || i >= len(entries)-2 || len(entries) <= show+2 {
			fmt.Fprintln(w, "  "+e)
		}
	}
	fmt.Fprintln(w, "\nseedengine settings:")
	for _, e := range env {
		if len(e) > 300 {
			e = e[:300] + "…"
		}
		fmt.Fprintln(w, "  "+e)
	}
	if h, ok := example[simweb.ScenarioHealthy]; ok {
		_, httpPort, _ := strings.Cut(web.HTTPAddr(), ":")
		_, httpsPort, _ := strings.Cut(web.HTTPSAddr(), ":")
		_, dnsPort, _ := strings.Cut(web.DNSAddr(), ":")
		fmt.Fprintf(w, "\ntry:\n  curl --cacert %s --connect-to :443:127.0.0.1:%s https://%s/feed/\n", caFile, httpsPort, h)
		fmt.Fprintf(w, "  curl --connect-to :80:127.0.0.1:%s http://%s/robots.txt\n", httpPort, h)
		fmt.Fprintf(w, "  dig @127.0.0.1 -p %s %s A\n", dnsPort, h)
	}
	fmt.Fprintln(w, "\nserving until interrupted (Ctrl-C)")
}

// reportCatalogue lists the catalogue entries and the seed each expects.
func reportCatalogue(w io.Writer, entries []simweb.CatalogueEntry) {
	fmt.Fprintf(w, "\ncatalogue: %d entries (name, domain_id, content_type fetch_type entry_url)\n", len(entries))
	for _, e := range entries {
		fmt.Fprintf(w, "  %-30s %-48s %s %s %s\n", e.Name, e.DomainID, e.Expect.ContentType, e.Expect.FetchType, e.Expect.EntryURL)
	}
}
