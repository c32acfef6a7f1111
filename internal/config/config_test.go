package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
)

func secrets(extra map[string]string) map[string]string {
	m := map[string]string{"SECKILL_ADMIN_TOKEN": "admin-token-0123456789", "SECKILL_JWT_SECRET": strings.Repeat("s", 32)}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load(testenv.Getenv(secrets(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8080" || c.Redis.Addr != "127.0.0.1:6379" || c.Redis.IsCluster() || c.RedisPrefix != "seckill" || !c.DemoLogin ||
		!strings.Contains(c.MySQLDSN, "tcp(127.0.0.1:3306)/seckill") || c.Workers != 2 || c.SessionTTL != 24*time.Hour ||
		c.PersistLinger != 300*time.Millisecond || c.BodyTimeout != 10*time.Second || c.StreamsPerIP != 20 || c.OpsCache != time.Second {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestOverrides(t *testing.T) {
	t.Parallel()
	c, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_HTTP_ADDR": ":9", "SECKILL_DEMO_LOGIN": "false",
		"SECKILL_WORKERS": "4", "SECKILL_CLAIM_IDLE": "5s", "SECKILL_REDIS_PREFIX": "shop1",
		"SECKILL_INSTANCE": "shop1-a", "SECKILL_BODY_TIMEOUT": "3s", "SECKILL_SSE_PER_IP": "0", "SECKILL_OPS_CACHE": "0s"})))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":9" || c.DemoLogin || c.Workers != 4 || c.ClaimIdle != 5*time.Second || c.RedisPrefix != "shop1" ||
		c.Instance != "shop1-a" || c.BodyTimeout != 3*time.Second || c.StreamsPerIP != 0 || c.OpsCache != 0 {
		t.Fatalf("overrides = %+v", c)
	}
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	tests := map[string]map[string]string{
		"no admin token":     {"SECKILL_ADMIN_TOKEN": "", "SECKILL_JWT_SECRET": strings.Repeat("s", 32)},
		"short admin":        secrets(map[string]string{"SECKILL_ADMIN_TOKEN": "short"}),
		"no jwt secret":      {"SECKILL_ADMIN_TOKEN": "admin-token-0123456789"},
		"short jwt secret":   secrets(map[string]string{"SECKILL_JWT_SECRET": strings.Repeat("s", 31)}),
		"bad bool":           secrets(map[string]string{"SECKILL_DEMO_LOGIN": "maybe"}),
		"bad int":            secrets(map[string]string{"SECKILL_WORKERS": "two"}),
		"zero workers":       secrets(map[string]string{"SECKILL_WORKERS": "0"}),
		"bad duration":       secrets(map[string]string{"SECKILL_CLAIM_IDLE": "soon"}),
		"bad proxy":          secrets(map[string]string{"SECKILL_TRUSTED_PROXIES": "10.0.0.1, proxy.local"}),
		"cluster no port":    secrets(map[string]string{"SECKILL_REDIS_ADDRS": "10.0.0.1:7000,10.0.0.2"}),
		"cluster bad url":    secrets(map[string]string{"SECKILL_REDIS_ADDRS": "redis://h:7000?nonsense=1"}),
		"cluster empty":      secrets(map[string]string{"SECKILL_REDIS_ADDRS": " , "}),
		"negative floor":     secrets(map[string]string{"SECKILL_ADMISSION_FLOOR": "-1"}),
		"bad floor":          secrets(map[string]string{"SECKILL_ADMISSION_FLOOR": "2k"}),
		"negative multiple":  secrets(map[string]string{"SECKILL_ADMISSION_MULTIPLE": "-1"}),
		"long linger":        secrets(map[string]string{"SECKILL_PERSIST_LINGER": "2s"}),
		"negative retire":    secrets(map[string]string{"SECKILL_RETIRE_EVERY": "-1m"}),
		"zero body timeout":  secrets(map[string]string{"SECKILL_BODY_TIMEOUT": "0s"}),
		"bad body timeout":   secrets(map[string]string{"SECKILL_BODY_TIMEOUT": "soon"}),
		"negative sse cap":   secrets(map[string]string{"SECKILL_SSE_PER_IP": "-1"}),
		"long ops cache":     secrets(map[string]string{"SECKILL_OPS_CACHE": "1m"}),
		"negative ops cache": secrets(map[string]string{"SECKILL_OPS_CACHE": "-1s"}),
		"bad pow":            secrets(map[string]string{"SECKILL_POW": "sometimes"}),
		"negative pow bits":  secrets(map[string]string{"SECKILL_POW_DIFFICULTY": "-1"}),
		"too many pow bits":  secrets(map[string]string{"SECKILL_POW_DIFFICULTY": "27"}),
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := config.Load(testenv.Getenv(m)); !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestRetireEvery: the retirer runs every minute unless told otherwise, and
// 0 turns it off.
func TestRetireEvery(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"": time.Minute, "0": 0, "10s": 10 * time.Second} {
		c, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_RETIRE_EVERY": in})))
		if err != nil || c.RetireEvery != want {
			t.Errorf("SECKILL_RETIRE_EVERY=%q: %v, %v; want %v", in, c.RetireEvery, err, want)
		}
	}
}

func TestRedisCluster(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"10.0.0.1:7000, 10.0.0.2:7000", "cluster 10.0.0.1:7000,10.0.0.2:7000"},
		{"10.0.0.1:7000", "cluster 10.0.0.1:7000"}, // one seed is still a cluster
		{"redis://u:secret@10.0.0.1:7000?addr=10.0.0.2:7001", "cluster 10.0.0.1:7000,10.0.0.2:7001"},
	}
	for _, tt := range tests {
		c, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_REDIS_ADDRS": tt.in})))
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		o, err := c.Redis.Options(0)
		if err != nil || !o.IsClusterMode || c.Redis.String() != tt.want {
			t.Errorf("%q: %s, cluster mode %v, err %v; want %s", tt.in, c.Redis, o != nil && o.IsClusterMode, err, tt.want)
		}
	}
}

func TestMinReplicas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		min, timeout string
		want         int
		wantTimeout  time.Duration
	}{
		{"", "", config.AutoReplicas, 200 * time.Millisecond},
		{"auto", "50ms", config.AutoReplicas, 50 * time.Millisecond},
		{"0", "", 0, 200 * time.Millisecond},
		{"2", "1s", 2, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.min+"/"+tt.timeout, func(t *testing.T) {
			c, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_REDIS_MIN_REPLICAS": tt.min,
				"SECKILL_REDIS_REPLICA_TIMEOUT": tt.timeout})))
			if err != nil {
				t.Fatal(err)
			}
			if c.MinReplicas != tt.want || c.ReplicaTimeout != tt.wantTimeout {
				t.Fatalf("MinReplicas, ReplicaTimeout = %d, %s; want %d, %s", c.MinReplicas, c.ReplicaTimeout, tt.want, tt.wantTimeout)
			}
		})
	}
}

func TestMinReplicasInvalid(t *testing.T) {
	t.Parallel()
	for _, extra := range []map[string]string{
		{"SECKILL_REDIS_MIN_REPLICAS": "-1"},
		{"SECKILL_REDIS_MIN_REPLICAS": "one"},
		{"SECKILL_REDIS_REPLICA_TIMEOUT": "0s"},
		{"SECKILL_REDIS_REPLICA_TIMEOUT": "3s"},
	} {
		if _, err := config.Load(testenv.Getenv(secrets(extra))); !errors.Is(err, config.ErrInvalid) {
			t.Errorf("%v: err = %v, want ErrInvalid", extra, err)
		}
	}
}

// TestAdmission: the gate's floor defaults to a few thousand a second, so a
// server out of the box never sheds what Redis serves easily; 0 is allowed
// (the cap is then multiple × stock left alone).
func TestAdmission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env             map[string]string
		multiple, floor int
	}{
		{nil, 10, 2000},
		{map[string]string{"SECKILL_ADMISSION_FLOOR": "0"}, 10, 0},
		{map[string]string{"SECKILL_ADMISSION_MULTIPLE": "0", "SECKILL_ADMISSION_FLOOR": "500"}, 0, 500},
	}
	for _, tt := range tests {
		c, err := config.Load(testenv.Getenv(secrets(tt.env)))
		if err != nil || c.AdmitMultiple != tt.multiple || c.AdmitFloor != tt.floor {
			t.Errorf("%v: multiple %d, floor %d, err %v; want %d and %d", tt.env, c.AdmitMultiple, c.AdmitFloor, err, tt.multiple, tt.floor)
		}
	}
}

// TestProofOfWork: on by default at the default difficulty; "off" (or
// false) turns it off.
func TestProofOfWork(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{"": true, "on": true, "off": false, "false": false, "1": true} {
		c, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_POW": in})))
		if err != nil || c.PoW != want || c.PoWDifficulty != config.DefaultPoWDifficulty {
			t.Errorf("SECKILL_POW=%q: %v at %d bits, %v; want %v", in, c.PoW, c.PoWDifficulty, err, want)
		}
	}
	c, err := config.Load(testenv.Getenv(secrets(map[string]string{"SECKILL_POW_DIFFICULTY": "0"})))
	if err != nil || c.PoWDifficulty != 0 {
		t.Errorf("SECKILL_POW_DIFFICULTY=0: %d, %v", c.PoWDifficulty, err)
	}
}
