package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/outage"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// openDatabase opens and migrates the database. A PostgreSQL server that
// does not answer yet (a machine booting, a failover) is waited for up to
// --db-wait, with back-off from 250 ms to 5 s and a log line per try, so
// that no supervisor's restart loop is needed; an error that waiting cannot
// mend (a bad URL, a wrong password, a missing database) ends it at once.
func openDatabase(ctx context.Context, c *Config, log *slog.Logger) (*sqlstore.DB, error) {
	deadline := time.Now().Add(c.DBWait)
	wait := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		db, err := sqlstore.OpenWith(ctx, c.DatabaseURL, sqlstore.Options{MaxOpenConns: c.DBMaxConns})
		if err == nil {
			if err = db.Migrate(ctx); err != nil {
				db.Close()
				err = fmt.Errorf("migrate database: %w", err)
			}
		} else {
			err = settingError("database-url", "open database", err)
		}
		if err == nil {
			if attempt > 1 {
				log.Info("database reachable", "event", "db_ready", "attempts", attempt)
			}
			return db, nil
		}
		var usage usageError
		if errors.As(err, &usage) || !sqlstore.IsPostgresURL(c.DatabaseURL) || !outage.Is(err) || ctx.Err() != nil {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w (waited %s, --db-wait)", err, c.DBWait)
		}
		wait = min(wait, left)
		log.Warn("database not reachable yet; waiting", "event", "db_wait", "attempt", attempt,
			"retry_in", wait.String(), "gives_up_in", left.Round(time.Second).String(), "err", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// sharedSetting is a setting that must agree, with why it must.
type sharedSetting struct {
	name  string
	why   string
	value func(c *Config) (string, error)
}

// sharedSettings are the settings every process that works jobs must
// share: they decide what a job does, so two workers with different values
// would give a batch two answers. Each is compared by the SHA-256 of its
// value. An API-only serve (--workers 0) checks them too: the jobs it
// enqueues carry its max-attempts, and its metadata sync route answers by
// its remote.
var sharedSettings = []sharedSetting{
	{"job-timeout", "River's rescuer (run by one process) must not take a live job for a dead one",
		func(c *Config) (string, error) { return c.JobTimeout.String(), nil }},
	{"job-rescue-after", "River's rescuer runs on whichever process leads",
		func(c *Config) (string, error) { return c.JobRescueAfter.String(), nil }},
	{"dead-process-after", "every process judges the others' heartbeats",
		func(c *Config) (string, error) { return c.DeadProcessAfter.String(), nil }},
	{"max-attempts", "the jobs a process enqueues carry it",
		func(c *Config) (string, error) { return strconv.Itoa(c.MaxAttempts), nil }},
	{"metadata-git-url", "finished research batches sync the snapshot there, and one process pushes",
		func(c *Config) (string, error) { return c.MetadataGitURL, nil }},
	{"metadata-git-branch", "", func(c *Config) (string, error) { return c.MetadataGitBranch, nil }},
	{"metadata-git-path", "", func(c *Config) (string, error) { return c.MetadataGitPath, nil }},
	{"authority-rules", "it classifies every researched URL",
		func(c *Config) (string, error) { return fileDigest(c.AuthorityRules) }},
	{"user-agent-contact", "sites see it and answer by it",
		func(c *Config) (string, error) { return c.UserAgentContact, nil }},
	{"dns-server", "it decides which sites are reachable (liveness verdicts)",
		func(c *Config) (string, error) { return c.DNSServer, nil }},
	{"connect-to", "", func(c *Config) (string, error) { return strings.Join(c.ConnectTo, ","), nil }},
	{"allow-private-networks", "", func(c *Config) (string, error) { return strings.Join(c.AllowPrivateNetworks, ","), nil }},
	{"extra-ca-file", "", func(c *Config) (string, error) { return fileDigest(c.ExtraCAFile) }},
	{"contract-max-requests", "it bounds each contract run's search",
		func(c *Config) (string, error) { return strconv.Itoa(c.ContractMaxRequests), nil }},
	{"contract-deadline", "", func(c *Config) (string, error) { return c.ContractDeadline.String(), nil }},
	{"harvest-dedupe-window", "it decides which article URLs every process records as new items",
		func(c *Config) (string, error) { return c.HarvestDedupeWindow.String(), nil }},
	{"alert-webhook-url", "the health changes any process records are alerted there",
		func(c *Config) (string, error) { return c.AlertWebhookURL, nil }},
	{"alert-webhook-secret", "", func(c *Config) (string, error) { return c.AlertWebhookSecret, nil }},
}

// fileDigest names a file setting's content: "" when unset, else the path
// with the SHA-256 of what it holds, so an edited file counts as a change.
func fileDigest(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return path + " (sha256 " + hex.EncodeToString(sum[:8]) + "…)", nil
}

// checkDeployment compares this process's shared settings with those the
// database records for the deployment, recording them when none are (the
// first process) or when record is set (a deliberate change, made by
// starting one process with --record-settings). A difference is a
// one-line error naming the setting.
func checkDeployment(ctx context.Context, db *sqlstore.DB, c *Config, record bool, log *slog.Logger) error {
	mine := make([]sqlstore.DeploymentSetting, 0, len(sharedSettings))
	for _, s := range sharedSettings {
		v, err := s.value(c)
		if err != nil {
			return usageError{fmt.Errorf("--%s: %v", s.name, err)}
		}
		sum := sha256.Sum256([]byte(v))
		shown := v
		if c.secrets[s.name] && v != "" {
			shown = redactURL(v)
		}
		mine = append(mine, sqlstore.DeploymentSetting{Name: s.name, Value: shown, Digest: hex.EncodeToString(sum[:])})
	}
	host, _ := os.Hostname()
	by := fmt.Sprintf("%s pid %d", host, os.Getpid())
	recorded, err := db.RecordDeploymentSettings(ctx, mine, by, record)
	if err != nil {
		return err
	}
	if record {
		log.Info("recorded this process's shared settings for the deployment", "event", "deployment_settings_recorded")
	}
	for _, s := range mine {
		r := recorded[s.Name]
		if r.Digest == s.Digest {
			continue
		}
		why := ""
		if i := slices.IndexFunc(sharedSettings, func(x sharedSetting) bool { return x.name == s.Name }); i >= 0 && sharedSettings[i].why != "" {
			why = " (" + sharedSettings[i].why + ")"
		}
		return usageError{fmt.Errorf("--%s: this process has %s but the deployment's processes share %s, recorded by %s at %s%s; "+
			"start every process with the same value, or start one with --record-settings to change it for all",
			s.Name, quoteSetting(s.Value), quoteSetting(r.Value), r.By, r.At.Format(time.RFC3339), why)}
	}
	return nil
}

func quoteSetting(v string) string {
	if v == "" {
		return "none"
	}
	return strconv.Quote(seedengine.Truncate(v, 200))
}
