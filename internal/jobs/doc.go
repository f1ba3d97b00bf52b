// Package jobs runs batch work on River, a durable job queue that lives in
// the same database as the batches, so a batch and its jobs commit together
// and a crash loses neither.
//
// The queue owns the transactions of the batch engine, and internal/sqlstore
// writes rows inside them: CreateBatch writes a batch's rows and one River
// job per chunk in one transaction. Every chunk of a batch is one River
// job of the type its kind's service declares (research.ChunkJob, …),
// and the kinds are a registry passed to New, one Batch each (kinds.go).
// One generic worker runs them all: it marks the chunk started, hands it
// to the ChunkProcessor of the batch's kind, and records the outcome
// (sqlstore's CompleteChunkTx), the jobs of the chunks it spawned, the
// batch's finisher job when it finished and the River job's completion in
// one transaction. This package may import sqlstore; sqlstore knows
// nothing of River, and every query of River's tables is here
// (docs/architecture.md). Execution is at least once (a killed process's jobs run
// again), but a chunk's outcome counts exactly once: either the outcome and
// the job's completion both commit, or neither does and the job runs again,
// and a run that finds its chunk already recorded only completes the job.
//
// Failures: a processor error is retried with River's backoff (about 1 s,
// 16 s, 81 s, … after attempts 1, 2, 3) up to Config.MaxAttempts, then the
// chunk is failed and the job discarded; an EINVALID error or
// river.JobCancel fails the chunk at once and cancels the job. A job cut
// short by Stop is snoozed for a second without using an attempt.
//
// Restarts: jobs left running by a process that died are rescued by
// whichever process is River's leader once RescueStuckJobsAfter has passed.
// The leader checks when it is elected and then every 30 s (fixed, not
// configurable, in River v0.51.2), and a dead leader's lease runs out after
// up to 15 s, so a rescue takes RescueStuckJobsAfter plus up to about 45 s.
// A job killed on its last attempt is discarded by the rescuer without
// reaching the worker; the queue's sweep (sweep.go) then fails its chunk, so
// the batch finishes and shows the failure.
//
// Engines: on SQLite River uses the riversqlite driver on a pool of exactly
// one connection (SQLite has one writer; more connections only meet
// "database is locked"), so inside a transaction only that transaction may
// be used, and the queue must be stopped before the database is closed. On
// PostgreSQL it uses riverdatabasesql over pgx's stdlib driver. Both make a
// river.Client[*sql.Tx], so callers enqueue inside their own database/sql
// transaction on either engine. On PostgreSQL River LISTENs on one more
// connection, from a pgx pool of its own (Config.Listener,
// riverdatabasesql.NewWithPgxListener): a job committed by any process
// wakes every process's workers at once, and the poll
// (Config.PollInterval) is only the fallback. On SQLite River stands in
// for NOTIFY with its river_notification table; riversqlite's listener
// reads it every 50 ms, half of an idle process's CPU. The queue's own
// listener (sqlitelisten.go) reads it when the store announces a commit
// that wrote a row (Config.Notified, sqlstore.DB.Notified), at once, and
// otherwise every second, for rows another process wrote.
//
// River UI: UIHandler serves it for the queue's own client (ui.go).
package jobs
