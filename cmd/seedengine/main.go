// Command seedengine runs the seedengine service: the HTTP API and the job
// workers (serve), workers alone (worker), database migrations (migrate),
// API key management (apikey), uploads of raw dataset trees (upload) and
// the article of one page (extract).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

const usage = `seedengine discovers web data sources by country and category and decides how to retrieve them.

Usage: seedengine <command> [flags]

Commands:
  serve     run the HTTP API and the job workers
  worker    run the job workers only
  migrate   apply database migrations and exit
  apikey    create, list or revoke API keys
  upload    upload a local tree of raw dataset files to the object store
  extract   print the article of one HTML page as JSON
  version   print the version
  completion  print a shell completion script (bash, zsh or fish)

Run "seedengine <command> --help" for the flags of a command. Every flag can
also be set by an environment variable: --data-dir is SEEDENGINE_DATA_DIR.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, errHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "seedengine:", err)
		os.Exit(exitCode(err))
	}
}

// usageError marks errors in how the program was called; they exit with 2.
type usageError struct{ error }

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// run is the whole program behind main, with its environment passed in so
// tests can call it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{errors.New("a command is required")}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, getenv, stdout, stderr, true)
	case "worker":
		return runServe(ctx, rest, getenv, stdout, stderr, false)
	case "migrate":
		return runMigrate(ctx, rest, getenv, stdout, stderr)
	case "apikey":
		return runAPIKey(ctx, rest, getenv, stdout, stderr)
	case "upload":
		return runUpload(ctx, rest, getenv, stdout, stderr)
	case "extract":
		return runExtract(ctx, rest, getenv, stdout, stderr)
	case "version":
		return runVersion(rest, getenv, stdout)
	case "completion":
		return runCompletion(rest, stdout, stderr)
	case "__complete":
		return runComplete(ctx, rest, stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Errorf("unknown command %q (run seedengine --help)", cmd)}
}

func runVersion(args []string, getenv func(string) string, stdout io.Writer) error {
	if _, _, err := parseCommand("version", "Print the version, commit and Go version.", 0, args, getenv, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seedengine %s (commit %s, %s)\n", version(), commit(), runtime.Version())
	return nil
}

// parseCommand parses a subcommand's flags and rejects stray arguments.
func parseCommand(cmd, summary string, groups settingGroup, args []string, getenv func(string) string, stdout io.Writer, extra ...func(*flag.FlagSet)) (*Config, []string, error) {
	var ex func(*flag.FlagSet)
	if len(extra) > 0 {
		ex = extra[0]
	}
	c, rest, err := parseConfig(cmd, summary, groups, args, getenv, stdout, ex)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil, nil, err
		}
		return nil, nil, usageError{err}
	}
	return c, rest, nil
}

func noArgs(cmd string, rest []string) error {
	if len(rest) > 0 {
		return usageError{fmt.Errorf("%s: unexpected argument %q", cmd, rest[0])}
	}
	return nil
}
