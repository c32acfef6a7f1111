package runner

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is one benchmark run's settings: flags, each defaulting to a
// BENCH_* environment variable so `make bench` can be tuned without editing
// the Makefile.
type Config struct {
	Rounds        int           // -rounds, BENCH_ROUNDS: alternating rounds per throughput measure
	Duration      time.Duration // -duration, BENCH_DURATION: one wrk run
	Threads       int           // -threads, BENCH_THREADS: wrk threads
	Connections   int           // -connections, BENCH_CONNECTIONS: wrk connections
	ShopperRate   int           // -shopper-rate, BENCH_SHOPPER_RATE: shoppers minted per second of a run
	LatencyFor    time.Duration // -latency-duration, BENCH_LATENCY_DURATION
	PersistOrders int           // -persist-orders, BENCH_PERSIST_ORDERS: backlog drained per round
	ManyConns     int           // -many-conns, BENCH_MANY_CONNS
	ManyConnsFor  time.Duration // -many-conns-duration, BENCH_MANY_CONNS_DURATION
	HeldPages     int           // -held-pages, BENCH_HELD_PAGES: open sale pages in the pages measure
	HeldFor       time.Duration // -held-duration, BENCH_HELD_DURATION: the held pages measured alone
	Followers     int           // -follow-shoppers, BENCH_FOLLOW_SHOPPERS: shoppers per follow run
	MySQLDSN      string        // -mysql, BENCH_MYSQL_DSN: no database name; the user may create seckill* databases
	RedisAddr     string        // -redis, BENCH_REDIS_ADDR
	Seckill       string        // -seckill: the server binary under test
	Wrk           string        // -wrk
	ResultsDir    string        // -results: raw figures go to <dir>/bench-<UTC>.json
	Docs          string        // -docs: write the report here too ("" = do not)
	Only          []string      // -only: a subset of Measures, for quick runs while developing
}

// Measures are the names -only accepts.
var Measures = []string{"purchase", "drop", "soldout", "latency", "pages", "conns", "persist", "scaleout", "pow", "replica"}

// Wants says whether the run includes measure m.
func (c Config) Wants(m string) bool {
	if len(c.Only) == 0 {
		return true
	}
	for _, o := range c.Only {
		if o == m {
			return true
		}
	}
	return false
}

// ParseConfig reads flags from args over defaults from getenv. It returns an
// error naming the setting at fault.
func ParseConfig(args []string, getenv func(string) string) (Config, error) {
	e := envDefaults{getenv: getenv}
	var c Config
	var only string
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.IntVar(&c.Rounds, "rounds", e.integer("BENCH_ROUNDS", 3), "alternating rounds per throughput measure (at least 1; 3 for a report)")
	fs.DurationVar(&c.Duration, "duration", e.duration("BENCH_DURATION", 8*time.Second), "length of one wrk run")
	fs.IntVar(&c.Threads, "threads", e.integer("BENCH_THREADS", 2), "wrk threads")
	fs.IntVar(&c.Connections, "connections", e.integer("BENCH_CONNECTIONS", 128), "wrk connections")
	fs.IntVar(&c.ShopperRate, "shopper-rate", e.integer("BENCH_SHOPPER_RATE", 60000), "shoppers minted per second of a run; a run that would reuse one is refused")
	fs.DurationVar(&c.LatencyFor, "latency-duration", e.duration("BENCH_LATENCY_DURATION", 10*time.Second), "length of the paced latency run")
	fs.IntVar(&c.PersistOrders, "persist-orders", e.integer("BENCH_PERSIST_ORDERS", 100000), "orders in the backlog the persister drains")
	fs.IntVar(&c.ManyConns, "many-conns", e.integer("BENCH_MANY_CONNS", 10000), "keep-alive connections held at once")
	fs.DurationVar(&c.ManyConnsFor, "many-conns-duration", e.duration("BENCH_MANY_CONNS_DURATION", 10*time.Second), "length of the many-connections run")
	fs.IntVar(&c.HeldPages, "held-pages", e.integer("BENCH_HELD_PAGES", 1000), "open sale pages held in the pages measure")
	fs.DurationVar(&c.HeldFor, "held-duration", e.duration("BENCH_HELD_DURATION", 5*time.Second), "how long the held pages are measured alone")
	fs.IntVar(&c.Followers, "follow-shoppers", e.integer("BENCH_FOLLOW_SHOPPERS", 2000), "shoppers who buy and follow their order, per follow run")
	fs.StringVar(&c.MySQLDSN, "mysql", e.str("BENCH_MYSQL_DSN", "seckill:seckill@tcp(127.0.0.1:3306)/?parseTime=true&loc=UTC"), "MySQL DSN without a database")
	fs.StringVar(&c.RedisAddr, "redis", e.str("BENCH_REDIS_ADDR", "127.0.0.1:6379"), "Redis address")
	fs.StringVar(&c.Seckill, "seckill", "bin/seckill", "the seckill server binary")
	fs.StringVar(&c.Wrk, "wrk", "wrk", "the wrk binary")
	fs.StringVar(&c.ResultsDir, "results", "results", "directory for the raw JSON figures")
	fs.StringVar(&c.Docs, "docs", "", "also write the report to this Markdown file")
	fs.StringVar(&only, "only", e.str("BENCH_ONLY", ""), "comma-separated subset of "+strings.Join(Measures, ","))
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if e.err != nil {
		return Config{}, e.err
	}
	c.Only = splitList(only)
	return c, c.validate()
}

func (c Config) validate() error {
	switch {
	case c.Rounds < 1 || c.Threads < 1 || c.Connections < c.Threads:
		return errors.New("-rounds and -threads must be at least 1, -connections at least -threads")
	case c.Duration < time.Second || c.LatencyFor < time.Second || c.ManyConnsFor < time.Second || c.HeldFor < time.Second:
		return errors.New("durations must be at least 1s")
	case c.ShopperRate < 1 || c.PersistOrders < 1 || c.ManyConns < c.Threads || c.HeldPages < 1 || c.Followers < 1:
		return errors.New("-shopper-rate, -persist-orders, -many-conns, -held-pages and -follow-shoppers must be positive")
	}
	for _, o := range c.Only {
		if !contains(Measures, o) {
			return fmt.Errorf("-only %q: want some of %s", o, strings.Join(Measures, ","))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// envDefaults keeps the first malformed variable, so ParseConfig reads like
// a list of defaults.
type envDefaults struct {
	getenv func(string) string
	err    error
}

func (e *envDefaults) str(name, def string) string {
	if v := e.getenv(name); v != "" {
		return v
	}
	return def
}

// parse reads name with conv, or def when it is unset; the first value conv
// refuses is kept, with what was wanted instead.
func parse[T any](e *envDefaults, name string, def T, conv func(string) (T, error), want string) T {
	v := e.getenv(name)
	if v == "" {
		return def
	}
	x, err := conv(v)
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("%s=%q: want %s", name, v, want)
	}
	return x
}

func (e *envDefaults) integer(name string, def int) int {
	return parse(e, name, def, strconv.Atoi, "a whole number")
}

func (e *envDefaults) duration(name string, def time.Duration) time.Duration {
	return parse(e, name, def, time.ParseDuration, "a duration such as 8s")
}
