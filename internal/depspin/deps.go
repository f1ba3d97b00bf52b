// Package depspin pins dependencies while the adapters are being written.
package depspin

import (
	_ "github.com/danielgtaylor/huma/v2"
	_ "github.com/danielgtaylor/huma/v2/adapters/humago"
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/johannesboyne/gofakes3"
	_ "github.com/johannesboyne/gofakes3/backend/s3mem"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverdatabasesql"
	_ "github.com/riverqueue/river/riverdriver/riversqlite"
	_ "github.com/riverqueue/river/rivermigrate"
	_ "github.com/riverqueue/river/rivertype"
	_ "github.com/stretchr/testify/require"
	_ "gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
	_ "golang.org/x/time/rate"
	_ "modernc.org/sqlite"
)
