package harness

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
)

// WithDatabase returns base, a DSN without a database, naming db, with the
// settings the server needs (parseTime, UTC). It fails on a malformed base.
func WithDatabase(base, db string) (string, error) {
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		return "", fmt.Errorf("mysql dsn %q: %w", base, err)
	}
	cfg.DBName, cfg.ParseTime, cfg.Loc = db, true, time.UTC
	return cfg.FormatDSN(), nil
}

// DropDatabase drops db on the server base names, if it exists.
func DropDatabase(ctx context.Context, base, db string) error {
	conn, err := sql.Open("mysql", base)
	if err != nil {
		return fmt.Errorf("drop database %s: %w", db, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+db+"`"); err != nil {
		return fmt.Errorf("drop database %s: %w", db, err)
	}
	return nil
}
