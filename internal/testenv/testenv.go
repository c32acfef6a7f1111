// Package testenv gives tests real MySQL and Redis servers. A test finds them
// in this order: SECKILL_TEST_MYSQL_DSN / SECKILL_TEST_REDIS_ADDR when set
// (and fails if they do not answer); otherwise containers started once per test
// binary by testcontainers-go; otherwise it fails saying how to provide them.
// Every test gets its own MySQL database and its own Redis key prefix, so tests
// run in parallel against shared servers.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"
	tcmysql "github.com/testcontainers/testcontainers-go/modules/mysql"
	tcredis "github.com/testcontainers/testcontainers-go/modules/redis"
	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/database"
)

const howTo = "run `make test` (it starts local MySQL and Redis), or set " +
	"SECKILL_TEST_MYSQL_DSN (a DSN without a database name whose user may create databases seckill_*) " +
	"and SECKILL_TEST_REDIS_ADDR, or start a Docker engine for testcontainers"

// server is one service every test of a binary shares: the address its
// variable names, else a container started the first time a test asks.
type server struct {
	name, env string
	start     func() (string, error)

	once sync.Once
	addr string
	err  error
}

var (
	mysqlServer = &server{name: "MySQL", env: "SECKILL_TEST_MYSQL_DSN", start: startMySQLContainer}
	redisServer = &server{name: "Redis", env: "SECKILL_TEST_REDIS_ADDR", start: startRedisContainer}
)

// get is the server's address (a DSN for MySQL), or fails tb saying how to
// provide one.
func (s *server) get(tb testing.TB) string {
	tb.Helper()
	s.once.Do(func() {
		if addr := lookupEnv(s.env); addr != "" {
			s.addr = addr
			return
		}
		s.addr, s.err = s.start()
	})
	if s.err != nil {
		tb.Fatalf("testenv: no %s for tests: %v; %s", s.name, s.err, howTo)
	}
	return s.addr
}

// DB is a fresh, migrated MySQL database for one test.
type DB struct {
	Gorm *gorm.DB
	DSN  string // the DSN of this test's database
}

// MySQL creates a database for this test, migrates it and drops it in cleanup.
func MySQL(tb testing.TB) DB {
	tb.Helper()
	base := mysqlServer.get(tb)
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		tb.Fatalf("testenv: SECKILL_TEST_MYSQL_DSN: %v", err)
	}
	cfg.DBName = "seckill_test_" + randomHex(tb, 6)
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	dsn := cfg.FormatDSN()
	ctx := context.Background()
	if err := database.Migrate(ctx, dsn); err != nil { // creates the database
		tb.Fatalf("testenv: mysql at %s does not answer or cannot be migrated: %v (%s)", cfg.Addr, err, howTo)
	}
	db, err := database.Open(ctx, dsn)
	if err != nil {
		tb.Fatalf("testenv: mysql at %s does not answer: %v (%s)", cfg.Addr, err, howTo)
	}
	tb.Cleanup(func() {
		db.Exec("DROP DATABASE IF EXISTS `" + cfg.DBName + "`")
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
	return DB{Gorm: db, DSN: dsn}
}

// Redis returns a client and a key prefix of this test's own; cleanup deletes
// every key under the prefix.
func Redis(tb testing.TB) (*redis.Client, string) {
	tb.Helper()
	addr := redisServer.get(tb)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		tb.Fatalf("testenv: redis at %s does not answer: %v (%s)", addr, err, howTo)
	}
	prefix := "seckilltest:" + randomHex(tb, 6)
	tb.Cleanup(func() {
		iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		rdb.Close()
	})
	return rdb, prefix
}

// RedisAddr is the address of the test Redis server.
func RedisAddr(tb testing.TB) string { tb.Helper(); return redisServer.get(tb) }

// The containers live as long as the test binary; Ryuk reaps them after.
func startMySQLContainer() (string, error) {
	ctx := context.Background()
	ctr, err := tcmysql.Run(ctx, "mysql:8.4",
		tcmysql.WithDatabase("seckill"), tcmysql.WithUsername("root"), tcmysql.WithPassword("root"))
	if err != nil {
		return "", err
	}
	dsn, err := ctr.ConnectionString(ctx, "parseTime=true")
	if err != nil {
		testcontainers.TerminateContainer(ctr)
		return "", err
	}
	return dsn, nil
}

func startRedisContainer() (string, error) {
	ctx := context.Background()
	ctr, err := tcredis.Run(ctx, "redis:7")
	if err != nil {
		return "", err
	}
	host, err := ctr.Host(ctx)
	if err != nil {
		return "", err
	}
	port, err := ctr.MappedPort(ctx, "6379/tcp")
	if err != nil {
		return "", err
	}
	return host + ":" + port.Port(), nil
}

func randomHex(tb testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b)
}
