package order

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"gorm.io/gorm"
)

// Rows per INSERT: at most maxChunk; chunks of a multiple of preparedStep
// rows go through a statement prepared once per connection, the rest as
// text. Parsing the text of a few hundred rows' values was about a seventh
// of MySQL's CPU per row persisted; ten prepared sizes keep the server's
// count of prepared statements small (max_prepared_stmt_count is global).
const (
	maxChunk     = 500
	preparedStep = 50
)

// inserts prepares the INSERTs on the pool, lazily, once per SQL text;
// database/sql then prepares each on a connection the first time a
// transaction there uses it.
type inserts struct {
	db    *sql.DB // nil: every INSERT as text
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func newInserts(db *gorm.DB) *inserts {
	sqlDB, ok := db.Statement.ConnPool.(*sql.DB)
	if !ok {
		sqlDB = nil // a store over a transaction
	}
	return &inserts{db: sqlDB}
}

// prepare readies, once, every INSERT that goes prepared. It runs before a
// batch's transaction: preparing on the pool takes a free connection, which
// must never be waited for while the batch holds its sales' row locks (the
// transactions holding the pool's connections may be waiting for those
// locks). A text MySQL will not prepare goes as text.
func (ins *inserts) prepare(ctx context.Context) {
	if ins.db == nil {
		return
	}
	ins.mu.Lock()
	defer ins.mu.Unlock()
	if ins.stmts != nil {
		return
	}
	stmts := map[string]*sql.Stmt{}
	for n := preparedStep; n <= maxChunk; n += preparedStep {
		for _, skip := range []bool{false, true} {
			q := insertSQL(n, skip)
			if st, err := ins.db.PrepareContext(ctx, q); err == nil {
				stmts[q] = st
			}
		}
	}
	ins.stmts = stmts
}

func (ins *inserts) stmt(q string) (*sql.Stmt, bool) {
	ins.mu.Lock()
	defer ins.mu.Unlock()
	st, ok := ins.stmts[q]
	return st, ok
}

// insertRows writes rows with multi-row INSERTs built here rather than by
// GORM's Create, whose reflection cost per row showed in the persisters'
// profile; updated_at takes the column's default. With skipTaken, a row
// whose order id or (sale, active shopper) is taken is skipped instead of
// failing the statement (ON DUPLICATE KEY UPDATE with no change, not
// INSERT IGNORE, which would also turn bad values and foreign key failures
// into silently dropped rows); it returns how many rows went in.
func (ins *inserts) insertRows(tx *gorm.DB, rows []row, skipTaken bool) (int64, error) {
	var in int64
	for len(rows) > 0 {
		n := min(len(rows), maxChunk)
		if n >= preparedStep {
			n -= n % preparedStep
		}
		got, err := ins.exec(tx, insertSQL(n, skipTaken), n >= preparedStep, insertArgs(rows[:n]))
		if err != nil {
			return in, fmt.Errorf("insert orders: %w", err)
		}
		in, rows = in+got, rows[n:]
	}
	return in, nil
}

// exec runs q in tx, through its prepared statement when prepared is set
// and one can be had; a statement MySQL will not prepare (the server's
// limit reached, say) is sent as text instead.
func (ins *inserts) exec(tx *gorm.DB, q string, prepared bool, args []any) (int64, error) {
	sqlTx, inTx := tx.Statement.ConnPool.(*sql.Tx)
	if prepared && inTx && ins.db != nil {
		ctx := tx.Statement.Context
		if st, ok := ins.stmt(q); ok {
			res, err := sqlTx.StmtContext(ctx, st).ExecContext(ctx, args...)
			if err == nil {
				return res.RowsAffected()
			}
			if !notPrepared(err) {
				return 0, err
			}
		}
	}
	r := tx.Exec(q, args...)
	return r.RowsAffected, r.Error
}

// notPrepared says whether err is MySQL refusing to prepare a statement,
// which leaves the transaction as it was.
func notPrepared(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1461 || me.Number == 1243 || me.Number == 1615) // too many prepared; unknown handler; needs re-prepare
}

func insertSQL(n int, skipTaken bool) string {
	const cols = "(id, item_id, variant_id, user_id, quantity, unit_price_cents, status, redis_released, idempotency_key, stream_ms, stream_seq, created_at)"
	const one = "(?,?,?,?,?,?,?,?,?,?,?,?)"
	q := "INSERT INTO orders " + cols + " VALUES " + strings.Repeat(one+",", n-1) + one
	if skipTaken {
		// A skipped row counts 0 rows affected, an inserted one 1; that
		// needs the driver's default of counting changed rows, not found
		// ones (database.Open keeps clientFoundRows off).
		q += " ON DUPLICATE KEY UPDATE id = id"
	}
	return q
}

func insertArgs(rows []row) []any {
	args := make([]any, 0, 12*len(rows))
	for _, r := range rows {
		args = append(args, r.ID, r.ItemID, r.VariantID, r.UserID, r.Quantity, r.UnitPriceCents, r.Status, r.RedisReleased, r.IdempotencyKey,
			r.StreamMs, r.StreamSeq, r.CreatedAt)
	}
	return args
}
