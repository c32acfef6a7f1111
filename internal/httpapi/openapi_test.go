package httpapi_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/seckill/seckill/api"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/web"
)

// specMethods are the operation keys of an OpenAPI 3.0 path item.
var specMethods = map[string]string{
	"get": http.MethodGet, "put": http.MethodPut, "post": http.MethodPost, "delete": http.MethodDelete,
	"options": http.MethodOptions, "head": http.MethodHead, "patch": http.MethodPatch, "trace": http.MethodTrace,
}

type openAPIDoc struct {
	OpenAPI    string                          `yaml:"openapi"`
	Paths      map[string]map[string]yaml.Node `yaml:"paths"`
	Components struct {
		Schemas map[string]struct {
			Properties map[string]struct {
				Enum []string `yaml:"enum"`
			} `yaml:"properties"`
		} `yaml:"schemas"`
	} `yaml:"components"`
}

type specOperation struct {
	Parameters []yaml.Node          `yaml:"parameters"`
	Responses  map[string]yaml.Node `yaml:"responses"`
}

type specParameter struct {
	Name string `yaml:"name"`
	In   string `yaml:"in"`
}

// loadSpec parses the embedded api/openapi.yaml.
func loadSpec(tb testing.TB) (openAPIDoc, *yaml.Node) {
	tb.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(api.OpenAPI, &root); err != nil {
		tb.Fatalf("parse api/openapi.yaml: %v", err)
	}
	var doc openAPIDoc
	if err := root.Decode(&doc); err != nil {
		tb.Fatalf("decode api/openapi.yaml: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		tb.Fatalf("api/openapi.yaml: openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if len(root.Content) != 1 {
		tb.Fatalf("api/openapi.yaml: want one YAML document, got %d", len(root.Content))
	}
	return doc, root.Content[0]
}

// specOperations returns the spec's operations keyed "METHOD /path".
func specOperations(tb testing.TB, doc openAPIDoc) map[string]specOperation {
	tb.Helper()
	ops := map[string]specOperation{}
	for path, item := range doc.Paths {
		for key, node := range item {
			method, ok := specMethods[key]
			if !ok {
				continue // parameters, summary, description, servers, $ref
			}
			var op specOperation
			if err := node.Decode(&op); err != nil {
				tb.Fatalf("decode %s %s: %v", method, path, err)
			}
			ops[method+" "+path] = op
		}
	}
	return ops
}

var ginParam = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

// routerOperations returns the routes httpapi.New registers keyed
// "METHOD /path", with Gin's :id written the OpenAPI way, {id}.
func routerOperations(tb testing.TB) map[string]bool {
	tb.Helper()
	engine := httpapi.New(httpapi.Deps{
		Web:      web.FS,
		Clock:    httpapi.Clock{Now: time.Now},
		Settings: httpapi.Settings{JWTSecret: strings.Repeat("x", 32), SessionTTL: time.Hour},
	})
	routes := map[string]bool{}
	for _, r := range engine.Routes() {
		routes[r.Method+" "+ginParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	if len(routes) == 0 {
		tb.Fatal("httpapi.New registered no routes")
	}
	return routes
}

// missing returns the keys of from that are not in in, sorted.
func missing[V any, W any](from map[string]V, in map[string]W) []string {
	var out []string
	for k := range from {
		if _, ok := in[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	doc, _ := loadSpec(t)
	spec := specOperations(t, doc)
	routes := routerOperations(t)
	tests := []struct {
		name     string
		from, in map[string]bool
	}{
		{"routes missing from api/openapi.yaml", routes, boolSet(spec)},
		{"operations in api/openapi.yaml with no route", boolSet(spec), routes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m := missing(tt.from, tt.in); len(m) > 0 {
				t.Errorf("%s:\n\t%s", tt.name, strings.Join(m, "\n\t"))
			}
		})
	}
}

func boolSet[V any](m map[string]V) map[string]bool {
	s := make(map[string]bool, len(m))
	for k := range m {
		s[k] = true
	}
	return s
}

var statusRange = regexp.MustCompile(`^[1-5]XX$`)

func validStatus(key string) bool {
	if key == "default" || statusRange.MatchString(key) {
		return true
	}
	code, err := strconv.Atoi(key)
	return err == nil && len(key) == 3 && http.StatusText(code) != ""
}

func TestOpenAPIStatusCodes(t *testing.T) {
	t.Parallel()
	doc, _ := loadSpec(t)
	ops := specOperations(t, doc)
	for _, name := range sortedKeys(ops) {
		t.Run(name, func(t *testing.T) {
			responses := ops[name].Responses
			if len(responses) == 0 {
				t.Fatal("no responses")
			}
			for _, status := range sortedKeys(responses) {
				if !validStatus(status) {
					t.Errorf("response %q is not an HTTP status", status)
				}
			}
		})
	}
}

// TestOpenAPIPathParameters checks that every {name} in a path is declared as
// a path parameter, on the path item or on each of its operations.
func TestOpenAPIPathParameters(t *testing.T) {
	t.Parallel()
	doc, root := loadSpec(t)
	templ := regexp.MustCompile(`\{([^}]+)\}`)
	for _, path := range sortedKeys(doc.Paths) {
		item := doc.Paths[path]
		var shared []yaml.Node
		if n, ok := item["parameters"]; ok {
			if err := n.Decode(&shared); err != nil {
				t.Fatalf("%s parameters: %v", path, err)
			}
		}
		for _, key := range sortedKeys(item) {
			method, ok := specMethods[key]
			if !ok {
				continue
			}
			node := item[key]
			var op specOperation
			if err := node.Decode(&op); err != nil {
				t.Fatalf("decode %s %s: %v", method, path, err)
			}
			declared := pathParams(t, root, append(append([]yaml.Node{}, shared...), op.Parameters...))
			for _, m := range templ.FindAllStringSubmatch(path, -1) {
				if !declared[m[1]] {
					t.Errorf("%s %s: path parameter %q is not declared", method, path, m[1])
				}
			}
		}
	}
}

func pathParams(tb testing.TB, root *yaml.Node, params []yaml.Node) map[string]bool {
	tb.Helper()
	names := map[string]bool{}
	for i := range params {
		n := &params[i]
		if ref := mapValue(n, "$ref"); ref != nil {
			if n = resolveRef(root, ref.Value); n == nil {
				tb.Fatalf("parameter $ref %q does not resolve", ref.Value)
			}
		}
		var p specParameter
		if err := n.Decode(&p); err != nil {
			tb.Fatalf("decode parameter: %v", err)
		}
		if p.In == "path" {
			names[p.Name] = true
		}
	}
	return names
}

// TestOpenAPIRefs checks that every local $ref points at something.
func TestOpenAPIRefs(t *testing.T) {
	t.Parallel()
	_, root := loadSpec(t)
	var refs []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "$ref" {
					refs = append(refs, n.Content[i+1].Value)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	if len(refs) == 0 {
		t.Fatal("no $ref found; is the walk broken?")
	}
	for _, ref := range refs {
		if resolveRef(root, ref) == nil {
			t.Errorf("$ref %q does not resolve", ref)
		}
	}
}

// resolveRef follows a local JSON pointer ("#/components/schemas/Item").
func resolveRef(root *yaml.Node, ref string) *yaml.Node {
	ptr, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	n := root
	for _, tok := range strings.Split(ptr, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		if n = mapValue(n, tok); n == nil {
			return nil
		}
	}
	return n
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

var codePatterns = []*regexp.Regexp{
	regexp.MustCompile(`apiErr\([^,]+,\s*"([a-z_]+)"`),
	regexp.MustCompile(`Code:\s*"([a-z_]+)"`),
}

// sourceErrorCodes returns every error code written in the package's non-test
// source, with the file it was first seen in.
func sourceErrorCodes(tb testing.TB) map[string]string {
	tb.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		tb.Fatal(err)
	}
	codes := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, re := range codePatterns {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				if _, ok := codes[m[1]]; !ok {
					codes[m[1]] = f
				}
			}
		}
	}
	if len(codes) == 0 {
		tb.Fatal("found no error codes in the package source; did the patterns rot?")
	}
	return codes
}

func TestOpenAPIErrorCodes(t *testing.T) {
	t.Parallel()
	doc, _ := loadSpec(t)
	enum := doc.Components.Schemas["Error"].Properties["code"].Enum
	if len(enum) == 0 {
		t.Fatal("components.schemas.Error.properties.code has no enum")
	}
	inSpec := map[string]bool{}
	for _, c := range enum {
		if inSpec[c] {
			t.Errorf("code %q is listed twice in the Error enum", c)
		}
		inSpec[c] = true
	}
	inCode := sourceErrorCodes(t)
	tests := []struct {
		name     string
		from, in map[string]bool
	}{
		{"codes used in internal/httpapi missing from the Error enum", boolSet(inCode), inSpec},
		{"codes in the Error enum no longer used in internal/httpapi", inSpec, boolSet(inCode)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m := missing(tt.from, tt.in); len(m) > 0 {
				t.Errorf("%s:\n\t%s", tt.name, strings.Join(m, "\n\t"))
			}
		})
	}
}
