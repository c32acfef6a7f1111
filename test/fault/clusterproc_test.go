package fault

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/redisconn"
)

// Cluster is a private Redis Cluster of redis-server processes, for tests
// that kill one of its nodes. Nodes keep an append-only file fsynced on
// every write and their nodes.conf, so a restarted node comes back with its
// data and its place in the cluster.
type Cluster struct {
	Nodes  []*ClusterNode
	Target redisconn.Target
}

// ClusterNode is one redis-server of a Cluster.
type ClusterNode struct {
	*Proc
	Addr string
}

// StartCluster starts masters × (1 + replicas) nodes on free loopback ports,
// joins them with redis-cli --cluster create and waits until every node sees
// the cluster ok. nodeTimeout is cluster-node-timeout: how long a master may
// be unreachable before its replica takes over.
func StartCluster(tb testing.TB, env []string, dir string, masters, replicas int, nodeTimeout time.Duration) *Cluster {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("a private Redis Cluster needs redis-server on PATH (apt-get install redis-server): %v", err)
	}
	c := &Cluster{}
	var addrs []string
	for i := range masters * (1 + replicas) {
		port := strconv.Itoa(clusterPort(tb))
		data := filepath.Join(dir, "cluster-"+port)
		if err := os.MkdirAll(data, 0o755); err != nil {
			tb.Fatal(err)
		}
		n := &ClusterNode{Addr: "127.0.0.1:" + port}
		n.Proc = NewProc(tb, "redis-node-"+strconv.Itoa(i), filepath.Join(dir, "cluster-"+port+".log"), env, bin,
			"--port", port, "--bind", "127.0.0.1", "--dir", data, "--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10),
			"--appendonly", "yes", "--appendfsync", "always", "--save", "",
			// A replica's first sync starts at once instead of after the
			// default 5 s, so a master killed early still has a replica that
			// holds its data and may take over.
			"--repl-diskless-sync-delay", "0")
		n.Up(tb)
		c.Nodes, addrs = append(c.Nodes, n), append(addrs, n.Addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		tb.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.Target = redisconn.Target{Cluster: strings.Join(addrs, ",")}
	c.WaitOK(tb, 30*time.Second)
	c.waitReplicasSynced(tb, masters*replicas, 30*time.Second)
	return c
}

// waitReplicasSynced waits until n nodes are replicas whose link to their
// master is up: only a replica that has synced may take over.
func (c *Cluster) waitReplicasSynced(tb testing.TB, n int, timeout time.Duration) {
	tb.Helper()
	err := poll(timeout, 50*time.Millisecond, func() error {
		synced := 0
		for _, node := range c.Nodes {
			if node.linkUp() {
				synced++
			}
		}
		if synced < n {
			return fmt.Errorf("%d of %d replicas synced", synced, n)
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("cluster replicas: %v", err)
	}
}

func (n *ClusterNode) linkUp() bool {
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	info, err := rdb.Info(ctx, "replication").Result()
	return err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_link_status:up")
}

// clusterPort is a free port whose cluster bus port (port + 10000) is free too.
func clusterPort(tb testing.TB) int {
	tb.Helper()
	for range 100 {
		p := FreePort(tb)
		if p+10000 > 65535 {
			continue
		}
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+10000)); err == nil {
			ln.Close()
			return p
		}
	}
	tb.Fatal("no free port pair for a cluster node")
	return 0
}

// Up starts the node (again) and waits until it answers PING.
func (n *ClusterNode) Up(tb testing.TB) time.Duration {
	tb.Helper()
	return upRedis(tb, n.Proc, n.Addr)
}

// WaitOK waits until every running node reports cluster_state:ok and every
// slot is served by a master that answers; it returns how long that took.
func (c *Cluster) WaitOK(tb testing.TB, timeout time.Duration) time.Duration {
	tb.Helper()
	began := time.Now()
	err := poll(timeout, 50*time.Millisecond, func() error {
		for _, n := range c.Nodes {
			if !n.Running() {
				continue
			}
			if err := nodeOK(n.Addr); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("cluster: %v", err)
	}
	return time.Since(began)
}

func nodeOK(addr string) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	info, err := rdb.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return &clusterStateError{addr}
	}
	return nil
}

type clusterStateError struct{ addr string }

func (e *clusterStateError) Error() string { return "cluster_state is not ok on " + e.addr }

// MasterOf returns the node that serves key's slot now.
func (c *Cluster) MasterOf(tb testing.TB, rdb redis.UniversalClient, key string) *ClusterNode {
	tb.Helper()
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		tb.Fatalf("MasterOf needs a cluster client, have %T", rdb)
	}
	ctx := context.Background()
	cc.ReloadState(ctx)
	m, err := cc.MasterForKey(ctx, key)
	if err != nil {
		tb.Fatalf("master of %s: %v", key, err)
	}
	for _, n := range c.Nodes {
		if n.Addr == m.Options().Addr {
			return n
		}
	}
	tb.Fatalf("master of %s is %s, not a node of this cluster", key, m.Options().Addr)
	return nil
}

// Role is "master" or "slave" as the node says in ROLE, or "" if it does not
// answer.
func (n *ClusterNode) Role() string {
	res := n.roleReply()
	if len(res) == 0 {
		return ""
	}
	role, _ := res[0].(string)
	return role
}

// roleReply is the node's answer to ROLE, or nil if it does not answer
// within a second: a node being killed or restarted must not stall a test.
func (n *ClusterNode) roleReply() []any {
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := rdb.Do(ctx, "ROLE").Slice()
	if err != nil {
		return nil
	}
	return res
}

// ReplicasOf returns the nodes that replicate m, as they say in ROLE.
func (c *Cluster) ReplicasOf(m *ClusterNode) []*ClusterNode {
	var out []*ClusterNode
	for _, n := range c.Nodes {
		if n != m && n.masterAddr() == m.Addr {
			out = append(out, n)
		}
	}
	return out
}

// masterAddr is the master a replica follows ("" for a master or no answer).
func (n *ClusterNode) masterAddr() string {
	res := n.roleReply()
	if len(res) < 3 || res[0] != "slave" {
		return ""
	}
	host, _ := res[1].(string)
	port, _ := res[2].(int64)
	return host + ":" + strconv.FormatInt(port, 10)
}

// WaitPromoted waits until one of replicas says it is a master, then until
// the cluster is ok; it returns the new master and how long it all took.
func (c *Cluster) WaitPromoted(tb testing.TB, replicas []*ClusterNode, timeout time.Duration) (*ClusterNode, time.Duration) {
	tb.Helper()
	began := time.Now()
	var promoted *ClusterNode
	err := poll(timeout, 20*time.Millisecond, func() error {
		for _, r := range replicas {
			if r.Role() == "master" {
				promoted = r
				return nil
			}
		}
		return &clusterStateError{"no replica promoted yet"}
	})
	if err != nil {
		tb.Fatalf("no replica took over within %v", timeout)
	}
	c.WaitOK(tb, timeout)
	return promoted, time.Since(began)
}
