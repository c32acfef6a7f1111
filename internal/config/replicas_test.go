package config_test

import (
	"errors"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
)

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
