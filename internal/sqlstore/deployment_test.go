package sqlstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// The first process records the shared settings; a later one reads them
// back unchanged; replace overwrites them.
func TestRecordDeploymentSettings(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		first := []sqlstore.DeploymentSetting{{Name: "job-timeout", Value: "10m0s", Digest: "a"}, {Name: "max-attempts", Value: "5", Digest: "b"}}
		got, err := db.RecordDeploymentSettings(ctx, first, "one", false)
		require.NoError(t, err)
		require.Equal(t, "a", got["job-timeout"].Digest)
		require.Equal(t, "one", got["job-timeout"].By)
		require.False(t, got["job-timeout"].At.IsZero())

		second := []sqlstore.DeploymentSetting{{Name: "job-timeout", Value: "20m0s", Digest: "c"}, {Name: "dns-server", Value: "", Digest: "d"}}
		got, err = db.RecordDeploymentSettings(ctx, second, "two", false)
		require.NoError(t, err)
		require.Equal(t, "a", got["job-timeout"].Digest, "the first value stands")
		require.Equal(t, "10m0s", got["job-timeout"].Value)
		require.Equal(t, "d", got["dns-server"].Digest, "a setting new to the deployment is recorded")
		require.NotContains(t, got, "max-attempts", "only the names asked for")

		got, err = db.RecordDeploymentSettings(ctx, second, "three", true)
		require.NoError(t, err)
		require.Equal(t, "c", got["job-timeout"].Digest)
		require.Equal(t, "three", got["job-timeout"].By)
	})
}
