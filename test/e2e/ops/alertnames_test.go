package ops

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
	"go.yaml.in/yaml/v3"
)

// The alert rules and the Grafana dashboard only name metrics the server
// exports: a renamed or misspelt metric would leave an alert that never
// fires and a panel that stays empty.
func TestAlertsAndDashboardNameExportedMetrics(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", s.Login(t, "a"), nil), e2etest.Want{Status: 202})
	exported := metricFamilies(s.Call(t, "GET", "/metrics", "", nil).Raw)

	used := map[string][]string{} // metric -> the files naming it
	name := func(file string, exprs []string) {
		for _, e := range exprs {
			for _, n := range metricNames(e) {
				if w := used[n]; len(w) == 0 || w[len(w)-1] != file {
					used[n] = append(w, file)
				}
			}
		}
	}
	name("alerts.yml", alertExprs(t, "../../../deploy/prometheus/alerts.yml"))
	name("seckill.json", dashboardExprs(t, "../../../deploy/grafana/seckill.json"))
	if len(used) < 10 {
		t.Fatalf("found only %d metric names in the rules and dashboard: the extraction is broken", len(used))
	}
	for name, where := range used {
		if !exported[name] && !exported[histogramFamily(name)] {
			t.Errorf("%s named in %s is not exported by the server", name, strings.Join(where, ", "))
		}
	}
}

// metricFamilies lists the families of a /metrics page from its TYPE lines.
func metricFamilies(page string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) `).FindAllStringSubmatch(page, -1) {
		out[m[1]] = true
	}
	return out
}

// histogramFamily is the family of a histogram's series name.
func histogramFamily(name string) string {
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if n, ok := strings.CutSuffix(name, suffix); ok {
			return n
		}
	}
	return name
}

func alertExprs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Alert, Record, Expr string
			}
		}
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r.Expr == "" {
				t.Errorf("%s: rule %s%s has no expr", path, r.Alert, r.Record)
			}
			out = append(out, r.Expr)
		}
	}
	return out
}

func dashboardExprs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Type, Title string
			Targets     []struct{ Expr string }
		}
		Templating struct {
			List []struct{ Definition string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, p := range dash.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no targets", path, p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		// Grafana's label_values(metric, label): only the metric is one.
		if m := regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][\w:]*)`).FindStringSubmatch(v.Definition); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

var (
	// What in PromQL is not a metric name: strings, label matchers,
	// ranges, the label lists of by/without/on/ignoring/group_x, and an
	// offset's duration.
	promStrings    = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers   = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promLabelLists = regexp.MustCompile(`(?i)\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promOffset     = regexp.MustCompile(`(?i)\boffset\s+-?\S+`)
	promIdent      = regexp.MustCompile(`[a-zA-Z_:][\w:]*\s*\(?`)
	promKeywords   = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "inf": true, "nan": true,
		"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}
)

// metricNames returns the metric names an expression reads: identifiers
// that are not functions (followed by "("), keywords, labels or numbers.
func metricNames(expr string) []string {
	expr = promStrings.ReplaceAllString(expr, `""`)
	expr = promMatchers.ReplaceAllString(expr, " ")
	expr = promLabelLists.ReplaceAllString(expr, " ")
	expr = promOffset.ReplaceAllString(expr, " ")
	var out []string
	for _, id := range promIdent.FindAllString(expr, -1) {
		name := strings.TrimSpace(id)
		if strings.HasSuffix(name, "(") || promKeywords[strings.ToLower(name)] {
			continue
		}
		out = append(out, name)
	}
	return out
}

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (instance, le) (rate(a_seconds_bucket{status=~"5..",x="y z"}[5m])) / sum(rate(b_total[$__rate_interval])) > 0.05`: {"a_seconds_bucket", "b_total"},
		`histogram_quantile(0.99, sum by (le) (rate(c_bucket[5m]))) > 0.25 and on (instance) d > 1`:                               {"c_bucket", "d"},
		`min by (instance) (e{dependency="redis"}) == 0 unless ignoring(job) f offset 5m`:                                         {"e", "f"},
		`increase(g[15m]) > 0 or vector(0)`: {"g"},
	} {
		if got := metricNames(expr); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("metricNames(%s) = %v, want %v", expr, got, want)
		}
	}
}
