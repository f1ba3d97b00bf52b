package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// DeploymentSetting is one setting every working process of a deployment
// must share, as the database records it.
type DeploymentSetting struct {
	Name   string
	Value  string // shown in errors: redacted for a secret setting
	Digest string // what is compared: the SHA-256 of the full value
	By     string // the process that recorded it
	At     time.Time
}

// RecordDeploymentSettings records each of settings the database holds no
// value for yet, or all of them when replace, in one transaction, and
// returns what the database then holds for each name of settings. The
// caller compares: the first process to start records, the others agree.
func (db *DB) RecordDeploymentSettings(ctx context.Context, settings []DeploymentSetting, by string, replace bool) (map[string]DeploymentSetting, error) {
	out := make(map[string]DeploymentSetting, len(settings))
	now := time.Now().UTC()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		conflict := ` ON CONFLICT (name) DO NOTHING`
		if replace {
			conflict = ` ON CONFLICT (name) DO UPDATE SET value = excluded.value, digest = excluded.digest,
				recorded_by = excluded.recorded_by, recorded_ms = excluded.recorded_ms`
		}
		for _, s := range settings {
			if _, err := tx.ExecContext(ctx, `INSERT INTO deployment_settings (name, value, digest, recorded_by, recorded_ms)
				VALUES ($1, $2, $3, $4, $5)`+conflict, s.Name, s.Value, s.Digest, by, now.UnixMilli()); err != nil {
				return fmt.Errorf("record setting %s: %w", s.Name, err)
			}
		}
		for _, s := range settings {
			var got DeploymentSetting
			var ms int64
			if err := tx.QueryRowContext(ctx, `SELECT name, value, digest, recorded_by, recorded_ms FROM deployment_settings WHERE name = $1`,
				s.Name).Scan(&got.Name, &got.Value, &got.Digest, &got.By, &ms); err != nil {
				return fmt.Errorf("read setting %s: %w", s.Name, err)
			}
			got.At = time.UnixMilli(ms).UTC()
			out[s.Name] = got
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("deployment settings: %w", err)
	}
	return out, nil
}
