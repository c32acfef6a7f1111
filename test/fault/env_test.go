package fault

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
)

const howTo = "set SECKILL_TEST_MYSQL_DSN (a DSN without a database name whose user may create seckill_* " +
	"databases, e.g. seckill:seckill@tcp(127.0.0.1:3306)/?parseTime=true&loc=UTC), " +
	"SECKILL_TEST_REDIS_ADDR (e.g. 127.0.0.1:6379) and SECKILL_TEST_REDIS_CLUSTER (seed addresses, " +
	"from scripts/redis-cluster.sh start); `make test` provides all three"

// Env is what the test binary found in its environment. TestMain fills it:
// it is the one place these tests read the environment.
type Env struct {
	MySQLDSN  string // SECKILL_TEST_MYSQL_DSN: the shared MySQL, no database name
	RedisAddr string // SECKILL_TEST_REDIS_ADDR: the shared Redis
	// RedisCluster is SECKILL_TEST_REDIS_CLUSTER: seed addresses of the
	// shared Redis Cluster.
	RedisCluster string
	Binary       string   // the server binary TestMain built
	ProcEnv      []string // the environment children start with: the test's less SECKILL_ variables (harness.ChildEnv)
}

// BuildServer compiles ./cmd/server of the module that holds the working
// directory into dir and returns the binary's path.
func BuildServer(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("build server: no go.mod found (go env GOMOD: %q, %v)", gomod, err)
	}
	bin := filepath.Join(dir, "seckill")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/server")
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/server: %v\n%s", err, out)
	}
	return bin, nil
}

// Setup is one test's world: the stores its servers use, a database name
// and a Redis prefix of its own, the secrets, and a directory for logs.
type Setup struct {
	Env
	MySQLBase       string // DSN without a database: the shared MySQL or a private one
	DBName          string // seckill_fault_<random>; the server creates and migrates it
	Prefix          string // Redis key prefix, unique per test
	AdminToken      string
	JWTSecret       string
	DrawKey         string // SECKILL_DRAW_KEY: draws' seeds derive from it
	ClaimIdle       time.Duration
	ShutdownTimeout time.Duration
	Dir             string
	Extra           []string // more VAR=value settings for the servers
}

// randomKey is a draw key: 32 random bytes, standard base64.
func randomKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// NewSetup checks that the shared services answer (failing the test with
// how to provide them if not) and returns a setup on them with fresh names.
// Cleanup drops the database and deletes the prefix's keys.
func NewSetup(tb testing.TB, env Env) *Setup {
	tb.Helper()
	if env.MySQLDSN == "" || env.RedisAddr == "" || env.RedisCluster == "" {
		tb.Fatalf("the fault tests need the shared MySQL, Redis and Redis Cluster: %s", howTo)
	}
	if env.Binary == "" {
		tb.Fatal("fault: no server binary (TestMain must call BuildServer)")
	}
	s := &Setup{Env: env, MySQLBase: env.MySQLDSN, DBName: "seckill_fault_" + harness.RandomHex(6),
		Prefix: "seckillfault:" + harness.RandomHex(6), AdminToken: "fault-admin-" + harness.RandomHex(12),
		JWTSecret: "fault-jwt-secret-" + harness.RandomHex(24), DrawKey: "fault:" + randomKey(), ClaimIdle: 2 * time.Second,
		ShutdownTimeout: 5 * time.Second, Dir: tb.TempDir()}
	pingMySQL(tb, env.MySQLDSN)
	for _, t := range env.Redises() {
		pingRedis(tb, t.Redis)
		tb.Cleanup(func() { deletePrefix(t.Redis, s.Prefix) })
	}
	// Best effort: a private MySQL may already be gone.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		harness.DropDatabase(ctx, s.MySQLBase, s.DBName)
	})
	return s
}

// Redises are the shared Redis and the shared Redis Cluster: the tests
// that must hold on both run once on each.
func (e Env) Redises() []testenv.Target {
	return []testenv.Target{
		{Name: "single", Redis: redisconn.Target{Addr: e.RedisAddr}},
		{Name: "cluster", Redis: redisconn.Target{Cluster: e.RedisCluster}},
	}
}

// DSN is the DSN of this test's database on MySQLBase.
func (s *Setup) DSN(tb testing.TB) string {
	tb.Helper()
	dsn, err := harness.WithDatabase(s.MySQLBase, s.DBName)
	if err != nil {
		tb.Fatal(err)
	}
	return dsn
}

// OpenDB connects to this test's database directly, for the checks.
func (s *Setup) OpenDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("mysql", s.DSN(tb))
	if err != nil {
		tb.Fatalf("open %s: %v", s.DBName, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func pingMySQL(tb testing.TB, dsn string) {
	tb.Helper()
	db, err := sql.Open("mysql", dsn)
	if err == nil {
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = db.PingContext(ctx)
	}
	if err != nil {
		tb.Fatalf("shared MySQL (SECKILL_TEST_MYSQL_DSN) does not answer: %v; %s", err, howTo)
	}
}

func pingRedis(tb testing.TB, t redisconn.Target) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rdb, err := redisconn.Open(ctx, t, 0)
	if err != nil {
		tb.Fatalf("shared Redis %s does not answer: %v; %s", t, err, howTo)
	}
	rdb.Close()
}

// deletePrefix is best effort: a private Redis may already be gone.
func deletePrefix(t redisconn.Target, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rdb, err := redisconn.Open(ctx, t, 0); err == nil {
		redisconn.DeletePrefix(ctx, rdb, prefix)
		rdb.Close()
	}
}
