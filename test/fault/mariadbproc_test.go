package fault

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// MariaDB is a private mariadbd on a loopback port with a datadir of its
// own. It runs with --skip-grant-tables, so root connects over TCP without
// a password; a restart reuses the port and the datadir.
type MariaDB struct {
	*Proc
	Port    int
	DataDir string
}

// StartMariaDB initialises a datadir under dir with mariadb-install-db,
// starts mariadbd on a free port and waits until it answers.
func StartMariaDB(tb testing.TB, env []string, dir string) *MariaDB {
	tb.Helper()
	install := lookBin(tb, "mariadb-install-db")
	server := lookBin(tb, "mariadbd")
	m := &MariaDB{Port: FreePort(tb), DataDir: filepath.Join(dir, "mariadb-data")}
	logPath := filepath.Join(dir, "mariadb.log")
	initDB(tb, env, install, m.DataDir, logPath)
	m.Proc = NewProc(tb, "mariadb", logPath, env, server, "--no-defaults",
		"--datadir="+m.DataDir, "--port="+strconv.Itoa(m.Port), "--bind-address=127.0.0.1",
		"--socket="+filepath.Join(dir, "mariadb.sock"), "--skip-grant-tables", "--user=root")
	m.Up(tb)
	return m
}

// lookBin finds a binary on PATH or in /usr/sbin (which PATH may lack).
func lookBin(tb testing.TB, name string) string {
	tb.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := filepath.Join("/usr/sbin", name); fileExists(p) {
		return p
	}
	tb.Fatalf("a private MariaDB needs %s (apt-get install mariadb-server)", name)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func initDB(tb testing.TB, env []string, install, datadir, logPath string) {
	tb.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(install, "--no-defaults", "--datadir="+datadir,
		"--auth-root-authentication-method=normal", "--skip-test-db")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, f, f
	if err := cmd.Run(); err != nil {
		out, _ := os.ReadFile(logPath)
		tb.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
}

// BaseDSN is a DSN without a database for this server.
func (m *MariaDB) BaseDSN() string {
	return "root@tcp(127.0.0.1:" + strconv.Itoa(m.Port) + ")/?parseTime=true&loc=UTC"
}

// Up starts mariadbd (again) and waits up to 60s for it to answer a ping;
// it returns how long that took.
func (m *MariaDB) Up(tb testing.TB) time.Duration {
	tb.Helper()
	db, err := sql.Open("mysql", m.BaseDSN())
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	return m.Proc.Up(tb, 60*time.Second, db.PingContext)
}

// Stop shuts mariadbd down with SIGTERM (a clean InnoDB shutdown) and waits
// up to 60s; it returns how long that took.
func (m *MariaDB) Stop(tb testing.TB) time.Duration {
	tb.Helper()
	code, took := m.Term(tb, 60*time.Second)
	if code != 0 {
		tb.Logf("mariadbd exited with code %d after SIGTERM", code)
	}
	return took
}
