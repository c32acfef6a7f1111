package runner

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/database"
	"github.com/seckill/seckill/internal/harness"
)

// seckillEnv is what the benchmark changes from the server's defaults.
// Every request comes from 127.0.0.1, so the per-IP purchase limit (500/s by
// default, meant for one office or carrier NAT) would measure the limit and
// nothing else; it is raised out of the way, and so is the cap on event
// streams per IP (20 by default), or the held pages' and followers' streams
// would measure the cap. The per-shopper limit, purchase
// tokens and the admission gate stay at their defaults: each request is a
// different shopper with a valid token, as in a real sale.
var seckillEnv = []string{
	"SECKILL_RATE_IP=1000000:1000000",
	"SECKILL_SSE_PER_IP=0",
	// Tokens are minted once, before the rounds; they must outlive the run.
	"SECKILL_PURCHASE_TOKEN_TTL=1h",
}

// seckillServer is the real server binary, run with a database and a Redis
// key prefix of its own.
type seckillServer struct {
	*harness.Proc
	url    string
	api    *harness.Client
	admin  string
	secret string // the JWT secret, for minting shoppers and purchase tokens
	mysql  string // the base DSN, without a database
	dbName string
	rdb    *redis.Client
	prefix string
	env    []string // the server's settings less its listening address
	binary string
}

// startSeckill migrates a fresh database and starts `seckill serve` on it,
// waiting for /healthz.
func startSeckill(ctx context.Context, cfg Config, rdb *redis.Client, dir, tag string) (*seckillServer, error) {
	s := &seckillServer{admin: harness.RandomHex(24), secret: harness.RandomHex(32), mysql: cfg.MySQLDSN,
		dbName: "seckill_bench_" + tag, rdb: rdb, prefix: "seckill-bench-" + tag, binary: cfg.Seckill}
	dsn, err := harness.WithDatabase(cfg.MySQLDSN, s.dbName)
	if err != nil {
		return nil, err
	}
	if err := database.Migrate(ctx, dsn); err != nil { // creates the database
		return nil, err
	}
	s.env = append([]string{
		"SECKILL_MYSQL_DSN=" + dsn, "SECKILL_REDIS_ADDR=" + cfg.RedisAddr,
		"SECKILL_REDIS_PREFIX=" + s.prefix, "SECKILL_ADMIN_TOKEN=" + s.admin, "SECKILL_JWT_SECRET=" + s.secret,
	}, seckillEnv...)
	if err := s.spawn(ctx, filepath.Join(dir, "seckill.log")); err != nil {
		s.cleanup(ctx)
		return nil, err
	}
	return s, nil
}

// startPeer starts another `seckill serve` with s's settings on another
// port: a second instance behind the same load balancer, sharing the
// database, the Redis prefix and the secrets. Stop it with Stop; the
// database and keys stay s's to remove.
func (s *seckillServer) startPeer(ctx context.Context, logPath string) (*seckillServer, error) {
	peer := *s
	peer.Proc, peer.url, peer.api = nil, "", nil
	if err := peer.spawn(ctx, logPath); err != nil {
		return nil, err
	}
	return &peer, nil
}

// spawn starts the process on a free port and waits for /healthz.
func (s *seckillServer) spawn(ctx context.Context, logPath string) error {
	addr, err := harness.FreeAddr()
	if err != nil {
		return err
	}
	// A developer's shell may carry SECKILL_ settings (a dev admin token,
	// limits turned off): the server runs at its defaults except where the
	// benchmark says.
	env := harness.ChildEnv(os.Environ(), append([]string{"SECKILL_HTTP_ADDR=" + addr}, s.env...)...)
	s.Proc = harness.NewProc("seckill", logPath, env, s.binary, "serve")
	if err := s.Start(); err != nil {
		return err
	}
	s.url = "http://" + addr
	s.api = harness.NewClient(s.url, s.admin)
	if err := s.WaitReady(ctx, time.Minute, harness.HTTPOK(s.url+"/healthz")); err != nil {
		s.Stop(20 * time.Second)
		return err
	}
	return nil
}

// close stops the server and removes its database and keys.
func (s *seckillServer) close(ctx context.Context) {
	s.Stop(20 * time.Second)
	s.cleanup(ctx)
}

func (s *seckillServer) cleanup(ctx context.Context) {
	harness.DropDatabase(context.WithoutCancel(ctx), s.mysql, s.dbName)
	deleteKeys(context.WithoutCancel(ctx), s.rdb, s.prefix)
}

// deleteKeys unlinks the keys under prefix a thousand at a time. A run
// leaves keys per shopper, hundreds of thousands of them; deleting one key
// per command, as redisconn.DeletePrefix must to work on a cluster, would
// take minutes on the single Redis the benchmark uses.
func deleteKeys(ctx context.Context, rdb *redis.Client, prefix string) error {
	iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == 1000 {
			rdb.Unlink(ctx, batch...)
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		rdb.Unlink(ctx, batch...)
	}
	return iter.Err()
}
