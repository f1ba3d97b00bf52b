package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

const apikeyUsage = `Usage: seedengine apikey <create|list|revoke> [flags]

  create --name NAME --scope read|write|admin
          create a key; the key is printed alone on the last line and
          cannot be shown again
  list    list keys (never their secrets)
  revoke ID|NAME
          revoke a key by id or name

Each subcommand takes the store flags (--data-dir, --database-url, …); run
"seedengine apikey create --help" to see them.
`

func runAPIKey(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, apikeyUsage)
		return usageError{fmt.Errorf("apikey: a subcommand is required: create, list or revoke")}
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "create":
		return runAPIKeyCreate(ctx, rest, getenv, stdout)
	case "list":
		return runAPIKeyList(ctx, rest, getenv, stdout)
	case "revoke":
		return runAPIKeyRevoke(ctx, rest, getenv, stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, apikeyUsage)
		return nil
	}
	return usageError{fmt.Errorf("apikey: unknown subcommand %q: want create, list or revoke", sub)}
}

// openKeys opens and migrates the database so key management works on a
// fresh data directory before the first serve.
func openKeys(ctx context.Context, c *Config) (*sqlstore.DB, *sqlstore.APIKeyService, error) {
	db, err := sqlstore.Open(ctx, c.DatabaseURL)
	if err != nil {
		return nil, nil, settingError("database-url", "open database", err)
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("migrate database: %w", err)
	}
	return db, sqlstore.NewAPIKeyService(db), nil
}

const apikeyCreateSummary = `Create an API key with --name and --scope. The key is printed alone on the
last line and cannot be shown again: only its hash is stored.`

func runAPIKeyCreate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	var name, scopeArg string
	c, rest, err := parseCommand("apikey create", apikeyCreateSummary, groupStore, args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "a label for the key (required)")
		fs.StringVar(&scopeArg, "scope", "", "what the key may do: read, write or admin (required)")
	})
	if err != nil {
		return err
	}
	if err := noArgs("apikey create", rest); err != nil {
		return err
	}
	if err := seedengine.ValidateAPIKeyName(name); err != nil {
		return usageError{fmt.Errorf("--name: %s", seedengine.ErrorMessage(err))}
	}
	scope, err := seedengine.ParseScope(scopeArg)
	if err != nil {
		return usageError{fmt.Errorf("--scope: %s", seedengine.ErrorMessage(err))}
	}
	db, keys, err := openKeys(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	k, token, err := keys.CreateAPIKey(ctx, name, scope)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	fmt.Fprintf(stdout, "created API key %s (name %q, scope %s); store it now, it is not shown again:\n%s\n", k.ID, k.Name, k.Scope, token)
	return nil
}

func runAPIKeyList(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	var output string
	c, rest, err := parseCommand("apikey list", "List API keys: id, name, scope, prefix, created and revoked times. Secrets are never shown.", groupStore, args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.StringVar(&output, "output", "table", "table (aligned columns) or json (an array of keys: id, name, scope, prefix, created_at, revoked_at when revoked)")
	})
	if err != nil {
		return err
	}
	if err := noArgs("apikey list", rest); err != nil {
		return err
	}
	if output != "table" && output != "json" {
		return usageError{fmt.Errorf("--output: %q must be table or json", output)}
	}
	db, keys, err := openKeys(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := keys.FindAPIKeys(ctx)
	if err != nil {
		return fmt.Errorf("list keys: %w", err)
	}
	if output == "json" {
		if list == nil {
			list = []*seedengine.APIKey{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tPREFIX\tCREATED\tREVOKED")
	for _, k := range list {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Scope, k.Prefix, k.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}

func runAPIKeyRevoke(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	c, rest, err := parseCommand("apikey revoke", "Revoke an API key, named by its id or its name: seedengine apikey revoke ID|NAME", groupStore, args, getenv, stdout)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{fmt.Errorf("apikey revoke: want exactly one key id or name, got %d arguments", len(rest))}
	}
	db, keys, err := openKeys(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	k, err := keys.RevokeAPIKey(ctx, rest[0])
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	fmt.Fprintf(stdout, "revoked API key %s (name %q)\n", k.ID, k.Name)
	return nil
}
