package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Domain list limits.
const (
	defaultDomainLimit = 50
	maxDomainLimit     = 1000
)

// domainInsertRows is how many rows one statement of RegisterDomains
// writes: a 10,000-URL research chunk would otherwise cost 10,000 round
// trips. 500 rows × 7 arguments stays far below both engines' parameter
// limits (SQLite 32,766, PostgreSQL 65,535).
const domainInsertRows = 500

const domainColumns = `domain_id, registrable_domain, authority, authority_rule, source_type,
	country, first_seen, last_seen, partition_count`

// DomainService is the domain registry.
//
// RegisterDomains is one transaction in two phases of multi-row
// statements. First it links the domains to the partition (INSERT … ON
// CONFLICT DO NOTHING RETURNING), which tells it exactly which links are
// new; then it upserts the domains, adding those new links to
// partition_count in the same statement. That keeps partition_count exact
// under concurrent calls: on PostgreSQL a transaction that inserts a link
// another one has just inserted waits for it to end and then finds the row
// there, so only one of them counts it; on SQLite the single writer
// serialises the calls anyway.
//
// Both phases write rows in domain_id order, and no transaction takes a
// link after a domain row, so concurrent calls on PostgreSQL always wait on
// each other in one direction and cannot deadlock: a transaction in the
// link phase holds no domain rows, and links conflict only within one
// partition, where they are taken in the same order.
//
// On PostgreSQL each phase is one statement whatever the number of
// sightings, from arrays, and the domains already linked whose sighting
// changes nothing are left out of the upsert after a read
// (registerArrays), so a domain seen again is not locked, and so not
// written.
type DomainService struct {
	db *DB
}

var _ seedengine.DomainService = (*DomainService)(nil)

// NewDomainService returns a DomainService on db.
func NewDomainService(db *DB) *DomainService { return &DomainService{db: db} }

// RegisterDomains upserts the domains seen in p at time seen, in one
// transaction: new domains get first_seen = last_seen = seen; known ones get
// last_seen moved forward (and first_seen back, for a sighting older than
// any before) and their authority fields refreshed; the partition is
// added to each. A zero seen means now. Sightings may leave Authority,
// Country and RegistrableDomain empty, which are then taken from the ID;
// given, they must agree with it. Duplicate IDs count once, the last
// sighting's fields winning. EINVALID for an invalid partition or sighting,
// naming the field.
func (s *DomainService) RegisterDomains(ctx context.Context, p seedengine.Partition, seen time.Time, ds []seedengine.DomainSighting) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if len(ds) == 0 {
		return nil
	}
	sightings, err := normalizeSightings(ds)
	if err != nil {
		return err
	}
	if seen.IsZero() {
		seen = nowUTC()
	}
	seenArg := s.db.timeArg(seen)

	err = s.db.inTx(ctx, func(tx *sql.Tx) error {
		if s.db.engine == EnginePostgres {
			return s.registerArrays(ctx, tx, p, seenArg, sightings)
		}
		var batch batchStmts
		defer batch.close()
		linked := make(map[string]bool, len(sightings))
		for part := range slices.Chunk(sightings, domainInsertRows) {
			if err := s.linkPartition(ctx, tx, &batch, p, seenArg, part, linked); err != nil {
				return err
			}
		}
		for part := range slices.Chunk(sightings, domainInsertRows) {
			if err := s.upsertDomains(ctx, tx, &batch, seenArg, part, linked); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("register %d domains in %s: %w", len(sightings), partitionString(p), err)
	}
	return nil
}

// registerArrays is RegisterDomains on PostgreSQL, in three statements
// whatever the number of sightings, each taking its rows from arrays (a
// handful of parameters instead of seven a row):
//
//   - The links, as on SQLite: the rows inserted tell which are new.
//   - Of the domains that were linked already, a read (no lock) finds
//     those the sighting would not change: seen at no new time, with no
//     new rule. Those are left out. INSERT … ON CONFLICT DO UPDATE locks
//     every row it conflicts with, even where its WHERE clause then
//     writes nothing, and on PostgreSQL a row lock writes the row and
//     WAL; a known domain seen again at the same time (a retried chunk, a
//     batch's chunks sharing its time) now costs an index probe. A
//     concurrent registration may change such a row meanwhile; then this
//     one is ordered before it, which it could have been.
//   - The rest are upserted in one statement, in domain_id order, as on
//     SQLite, so concurrent registrations still lock rows in one order.
func (s *DomainService) registerArrays(ctx context.Context, tx *sql.Tx, p seedengine.Partition, seen any, sightings []seedengine.DomainSighting) error {
	ids := make([]string, len(sightings))
	for i, d := range sightings {
		ids[i] = d.ID
	}
	linked, err := stringSet(ctx, tx, `INSERT INTO domain_partitions (first_seen, country, category, date, domain_id)
		SELECT $1, $2, $3, $4, id FROM unnest($5::text[]) AS id ORDER BY id
		ON CONFLICT DO NOTHING RETURNING domain_id`, seen, p.Country, p.Category, p.Date, ids)
	if err != nil {
		return fmt.Errorf("link domains: %w", err)
	}
	var known domainArrays
	for _, d := range sightings {
		if !linked[d.ID] {
			known.add(d)
		}
	}
	var same map[string]bool
	if len(known.ids) > 0 {
		same, err = stringSet(ctx, tx, `SELECT d.domain_id
			FROM unnest($2::text[], $3::text[], $4::text[]) AS s(id, rule, st) JOIN domains d ON d.domain_id = s.id
			WHERE d.last_seen >= $1 AND d.first_seen <= $1
				AND (s.rule = '' OR s.rule = d.authority_rule)
				AND (s.st = '' OR s.st = d.source_type)`,
			seen, known.ids, known.rule, known.sourceType)
		if err != nil {
			return fmt.Errorf("find unchanged domains: %w", err)
		}
	}
	var write domainArrays
	var added []int32
	for _, d := range sightings {
		switch {
		case linked[d.ID]:
			added = append(added, 1)
		case same[d.ID]:
			continue
		default:
			added = append(added, 0)
		}
		write.add(d)
	}
	if len(write.ids) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO domains (first_seen, last_seen, domain_id, registrable_domain, authority,
		authority_rule, source_type, country, partition_count)
		SELECT $1::timestamptz, $1::timestamptz, id, reg, auth, rule, st, country, added
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[])
			AS s(id, reg, auth, rule, st, country, added)
		ORDER BY id`+domainConflict,
		seen, write.ids, write.registrable, write.authority, write.rule, write.sourceType, write.country, added); err != nil {
		return fmt.Errorf("upsert domains: %w", err)
	}
	return nil
}

// stringSet runs a query of one text column and returns its values as a
// set.
func stringSet(ctx context.Context, tx *sql.Tx, query string, args ...any) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// domainArrays holds sightings column by column, for unnest.
type domainArrays struct {
	ids, registrable, authority, rule, sourceType, country []string
}

func (a *domainArrays) add(d seedengine.DomainSighting) {
	a.ids = append(a.ids, d.ID)
	a.registrable = append(a.registrable, d.RegistrableDomain)
	a.authority = append(a.authority, string(d.Authority))
	a.rule = append(a.rule, d.AuthorityRule)
	a.sourceType = append(a.sourceType, d.Authority.SourceType())
	a.country = append(a.country, d.Country)
}

// linkPartition inserts the domain_partitions rows of part and adds the
// domain_ids of those that were new to linked.
func (s *DomainService) linkPartition(ctx context.Context, tx *sql.Tx, batch *batchStmts, p seedengine.Partition, seenArg any, part []seedengine.DomainSighting, linked map[string]bool) error {
	e := s.db.engine
	st, err := batch.stmt(ctx, tx, "link", len(part), func(n int) string { return buildDomainPartitionInsert(e, n) })
	if err != nil {
		return err
	}
	args := make([]any, 0, 4+len(part))
	args = append(args, seenArg, p.Country, p.Category, p.Date)
	for _, d := range part {
		args = append(args, d.ID)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("link domains: %w", err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("link domains: %w", err)
		}
		linked[id] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("link domains: %w", err)
	}
	return nil
}

// upsertDomains writes the domains of part, counting one more partition for
// those in linked.
func (s *DomainService) upsertDomains(ctx context.Context, tx *sql.Tx, batch *batchStmts, seenArg any, part []seedengine.DomainSighting, linked map[string]bool) error {
	e := s.db.engine
	st, err := batch.stmt(ctx, tx, "upsert", len(part), func(n int) string { return buildDomainUpsert(e, n) })
	if err != nil {
		return err
	}
	args := make([]any, 0, 1+7*len(part))
	args = append(args, seenArg)
	for _, d := range part {
		added := 0
		if linked[d.ID] {
			added = 1
		}
		args = append(args, d.ID, d.RegistrableDomain, string(d.Authority), d.AuthorityRule,
			d.Authority.SourceType(), d.Country, added)
	}
	if _, err := st.ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("upsert domains: %w", err)
	}
	return nil
}

// normalizeSightings validates the sightings, fills fields left empty from
// the ID, and returns them de-duplicated and sorted by ID: PostgreSQL
// refuses to upsert one row twice in a statement, and a fixed order makes
// concurrent transactions lock rows in the same order.
func normalizeSightings(ds []seedengine.DomainSighting) ([]seedengine.DomainSighting, error) {
	out := make([]seedengine.DomainSighting, len(ds))
	for i, d := range ds {
		a, country, registrable, err := seedengine.ParseDomainID(d.ID)
		if err != nil {
			return nil, err
		}
		if d.Authority == "" {
			d.Authority = a
		}
		if d.Country == "" {
			d.Country = country
		}
		if d.RegistrableDomain == "" {
			d.RegistrableDomain = registrable
		}
		if d.Authority != a || d.Country != country || d.RegistrableDomain != registrable {
			return nil, seedengine.FieldErrorf("domain_id",
				"domain_id must match the domain's authority, country and registrable domain")
		}
		if len(d.AuthorityRule) > maxAuthorityRuleLen {
			return nil, seedengine.FieldErrorf("authority_rule", "authority_rule must be at most %d bytes", maxAuthorityRuleLen)
		}
		out[i] = d
	}
	// A stable sort keeps the input order among equal IDs, so keeping the
	// last of each run keeps the last sighting.
	slices.SortStableFunc(out, func(a, b seedengine.DomainSighting) int { return strings.Compare(a.ID, b.ID) })
	n := 0
	for i := range out {
		if i+1 < len(out) && out[i+1].ID == out[i].ID {
			continue
		}
		out[n] = out[i]
		n++
	}
	return out[:n], nil
}

// maxAuthorityRuleLen bounds a stored rule name; rules are short names like
// "suffix:gov.sg", and an unbounded one would bloat every row.
const maxAuthorityRuleLen = 200

// buildDomainUpsert writes n domains: $1 is the sighting time, then seven
// arguments a row, the last one the partitions to add. A sighting that
// brings no authority_rule (a stored record without one) or source_type
// keeps the registered value instead of blanking it. last_seen and
// first_seen only ever widen, so a late, older sighting does not move
// last_seen back. The WHERE clause skips writing rows nothing would change,
// which on PostgreSQL saves a dead row version per known domain.
func buildDomainUpsert(e Engine, n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO domains (first_seen, last_seen, domain_id, registrable_domain, authority,
	authority_rule, source_type, country, partition_count) VALUES `)
	ph := bulkPlaceholders{engine: e, nshared: 1}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		ph.shared(&b, 1)
		b.WriteByte(',')
		ph.shared(&b, 1)
		b.WriteByte(',')
		ph.next(&b, 7)
		b.WriteByte(')')
	}
	b.WriteString(domainConflict)
	return b.String()
}

// domainConflict is the conflict clause of both engines' domain upserts:
// partition_count in the proposed row is the partitions to add.
const domainConflict = `
	ON CONFLICT (domain_id) DO UPDATE SET
		authority_rule = COALESCE(NULLIF(excluded.authority_rule, ''), domains.authority_rule),
		source_type = COALESCE(NULLIF(excluded.source_type, ''), domains.source_type),
		first_seen = CASE WHEN excluded.first_seen < domains.first_seen THEN excluded.first_seen ELSE domains.first_seen END,
		last_seen = CASE WHEN excluded.last_seen > domains.last_seen THEN excluded.last_seen ELSE domains.last_seen END,
		partition_count = domains.partition_count + excluded.partition_count
	WHERE excluded.partition_count > 0
		OR excluded.last_seen > domains.last_seen
		OR excluded.first_seen < domains.first_seen
		OR (excluded.authority_rule <> '' AND excluded.authority_rule <> domains.authority_rule)
		OR (excluded.source_type <> '' AND excluded.source_type <> domains.source_type)`

// buildDomainPartitionInsert links n domains to a partition: $1 is the
// time, $2–$4 the partition, then one domain_id a row. RETURNING yields
// only the rows inserted.
func buildDomainPartitionInsert(e Engine, n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO domain_partitions (first_seen, country, category, date, domain_id) VALUES `)
	ph := bulkPlaceholders{engine: e, nshared: 4}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for k := 1; k <= 4; k++ {
			ph.shared(&b, k)
			b.WriteByte(',')
		}
		ph.next(&b, 1)
		b.WriteByte(')')
	}
	b.WriteString(` ON CONFLICT DO NOTHING RETURNING domain_id`)
	return b.String()
}

// bulkPlaceholders writes the placeholders of a statement with many rows:
// the arguments shared by every row come first ($1…$nshared), then each
// row's own, in order. On SQLite a row's own are bare "?", which SQLite
// numbers in order after the highest number used so far; the shared ones
// must therefore appear first in the text. Numbered placeholders ($N, ?N)
// for every argument would make binding quadratic: the driver looks up
// each parameter's name in a list SQLite searches linearly, which for a
// 4,000-argument statement cost more than executing it.
type bulkPlaceholders struct {
	engine  Engine
	nshared int // arguments shared by every row
	n       int // row arguments written so far
}

// shared writes the placeholder of shared argument k (from 1).
func (ph *bulkPlaceholders) shared(b *strings.Builder, k int) {
	if ph.engine == EngineSQLite {
		b.WriteByte('?')
	} else {
		b.WriteByte('$')
	}
	b.WriteString(strconv.Itoa(k))
}

// next writes the placeholders of the next k row arguments.
func (ph *bulkPlaceholders) next(b *strings.Builder, k int) {
	for i := range k {
		if i > 0 {
			b.WriteByte(',')
		}
		ph.n++
		if ph.engine == EngineSQLite {
			b.WriteByte('?')
			continue
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(ph.nshared + ph.n))
	}
}

// batchStmts prepares each statement shape of a transaction once. A
// 10,000-row registration runs the same 500-row statements 20 times, and
// parsing a statement of 3,500 arguments each time would be a good part of
// the cost on SQLite.
type batchStmts struct {
	stmts map[batchKey]*sql.Stmt
}

type batchKey struct {
	name string
	rows int
}

func (b *batchStmts) stmt(ctx context.Context, tx *sql.Tx, name string, rows int, build func(int) string) (*sql.Stmt, error) {
	k := batchKey{name, rows}
	if st, ok := b.stmts[k]; ok {
		return st, nil
	}
	st, err := tx.PrepareContext(ctx, build(rows))
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", name, err)
	}
	if b.stmts == nil {
		b.stmts = map[batchKey]*sql.Stmt{}
	}
	b.stmts[k] = st
	return st, nil
}

func (b *batchStmts) close() {
	for _, st := range b.stmts {
		_ = st.Close()
	}
}

// FindDomainByID returns one domain with its partitions in country,
// category, date order and the latest liveness of its registrable domain.
// ENOTFOUND when there is none.
func (s *DomainService) FindDomainByID(ctx context.Context, id string) (*seedengine.Domain, error) {
	var (
		verdict, reason, detail, batchID sql.NullString
		checked                          scanTime
	)
	d, err := scanDomain(s.db.reader.QueryRowContext(ctx,
		`SELECT `+qualified("d", domainColumns)+`, l.verdict, l.reason, l.detail, l.checked_at, l.batch_id
		FROM domains d LEFT JOIN domain_liveness l ON l.domain = d.registrable_domain
		WHERE d.domain_id = $1`, id), &verdict, &reason, &detail, &checked, &batchID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "domain not found")
	}
	if err != nil {
		return nil, fmt.Errorf("find domain %q: %w", id, err)
	}
	if verdict.Valid {
		d.Liveness = &seedengine.LivenessSummary{
			Verdict:   seedengine.Verdict(verdict.String),
			Reason:    reason.String,
			Detail:    detail.String,
			CheckedAt: checked.Time,
			BatchID:   batchID.String,
		}
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT country, category, date FROM domain_partitions
		WHERE domain_id = $1 ORDER BY country, category, date`, id)
	if err != nil {
		return nil, fmt.Errorf("find domain %q: partitions: %w", id, err)
	}
	defer func() { _ = rows.Close() }()
	d.Partitions = []seedengine.Partition{}
	for rows.Next() {
		var p seedengine.Partition
		if err := rows.Scan(&p.Country, &p.Category, &p.Date); err != nil {
			return nil, fmt.Errorf("find domain %q: partitions: %w", id, err)
		}
		d.Partitions = append(d.Partitions, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find domain %q: partitions: %w", id, err)
	}
	return d, nil
}

// FindDomains returns domains matching f ordered by domain_id (byte order
// on both engines), without their partitions, and the total number matching
// f. Limit defaults to 50 and is capped at 1,000. The country is matched in
// any case. EINVALID for an invalid country, authority, partition or
// partition country, or for IDs that are set but empty or more than
// seedengine.MaxDomainFilterIDs.
func (s *DomainService) FindDomains(ctx context.Context, f seedengine.DomainFilter) ([]*seedengine.Domain, int, error) {
	var (
		where []string
		args  []any
		from  = "domains d"
	)
	country := ""
	if f.Country != "" {
		country = seedengine.NormalizeCountry(f.Country)
		if err := seedengine.ValidateCountry(country); err != nil {
			return nil, 0, err
		}
	}
	switch {
	case f.Authority != "":
		if !f.Authority.Valid() {
			return nil, 0, seedengine.FieldErrorf("authority", "authority must be one of gov, mil, edu, ngo, org, media, com, other")
		}
		// domain_id is "{authority}:{country}:{domain}": the filter is a
		// prefix range of the primary key, ":" sorting just before ";".
		prefix := string(f.Authority) + ":"
		if country != "" {
			prefix += country + ":"
		}
		args = append(args, prefix, prefix[:len(prefix)-1]+";")
		where = append(where, fmt.Sprintf("d.domain_id >= $%d AND d.domain_id < $%d", len(args)-1, len(args)))
	case country != "":
		args = append(args, country)
		where = append(where, "d.country = $"+strconv.Itoa(len(args)))
	}
	if f.PartitionCountry != "" {
		pc := seedengine.NormalizeCountry(f.PartitionCountry)
		if err := seedengine.ValidateCountry(pc); err != nil {
			return nil, 0, seedengine.FieldErrorf("partition_country", "partition_%s", seedengine.ErrorMessage(err))
		}
		// The primary key (domain_id, country, …) answers this per domain.
		args = append(args, pc)
		where = append(where, fmt.Sprintf(`EXISTS (SELECT 1 FROM domain_partitions pc
			WHERE pc.domain_id = d.domain_id AND pc.country = $%d)`, len(args)))
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 || len(f.IDs) > seedengine.MaxDomainFilterIDs {
			return nil, 0, seedengine.FieldErrorf("ids", "ids must name 1 to %d domain_ids", seedengine.MaxDomainFilterIDs)
		}
		ph := make([]string, len(f.IDs))
		for i, id := range f.IDs {
			args = append(args, id)
			ph[i] = "$" + strconv.Itoa(len(args))
		}
		where = append(where, "d.domain_id IN ("+strings.Join(ph, ", ")+")")
	}
	if f.Partition != nil {
		if err := f.Partition.Validate(); err != nil {
			return nil, 0, err
		}
		args = append(args, f.Partition.Country, f.Partition.Category, f.Partition.Date)
		n := len(args)
		from += fmt.Sprintf(` JOIN domain_partitions dp ON dp.domain_id = d.domain_id
			AND dp.country = $%d AND dp.category = $%d AND dp.date = $%d`, n-2, n-1, n)
	}
	limit, offset := pageBounds(f.Limit, f.Offset, defaultDomainLimit, maxDomainLimit)

	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// The window count saves a second round trip on the common pages; past
	// the last row it has nothing to ride on, hence the fallback below.
	query := `SELECT ` + qualified("d", domainColumns) + `, COUNT(*) OVER () FROM ` + from + cond +
		` ORDER BY d.domain_id LIMIT $` + strconv.Itoa(len(args)+1) + ` OFFSET $` + strconv.Itoa(len(args)+2)
	rows, err := s.db.reader.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find domains: %w", err)
	}
	defer func() { _ = rows.Close() }()
	domains := []*seedengine.Domain{}
	total := 0
	for rows.Next() {
		d, err := scanDomain(rows, &total)
		if err != nil {
			return nil, 0, fmt.Errorf("find domains: %w", err)
		}
		domains = append(domains, d)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find domains: %w", err)
	}
	if len(domains) == 0 && offset > 0 {
		if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+from+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("find domains: count: %w", err)
		}
	}
	return domains, total, nil
}

// pageBounds applies a list's default and maximum limit and clamps a
// negative offset to 0.
func pageBounds(limit, offset, def, maximum int) (int, int) {
	if limit <= 0 {
		limit = def
	}
	return min(limit, maximum), max(offset, 0)
}

// qualified prefixes every column of a comma-separated list with alias.
func qualified(alias, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

func scanDomain(row rowScanner, extra ...any) (*seedengine.Domain, error) {
	var (
		d               seedengine.Domain
		authority       string
		first, lastSeen scanTime
	)
	dest := []any{&d.ID, &d.RegistrableDomain, &authority, &d.AuthorityRule, &d.SourceType,
		&d.Country, &first, &lastSeen, &d.PartitionCount}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	d.Authority = seedengine.Authority(authority)
	d.FirstSeen = first.Time
	d.LastSeen = lastSeen.Time
	return &d, nil
}

// partitionString names a partition in error messages as its key path does.
func partitionString(p seedengine.Partition) string {
	return "country=" + seedengine.Truncate(p.Country, 16) + "/category=" + seedengine.Truncate(p.Category, 48) + "/date=" + seedengine.Truncate(p.Date, 16)
}
