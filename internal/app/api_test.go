package app_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seckill/seckill/internal/config"
)

// want is one expected answer.
type want struct {
	status int
	code   string // error code, "" for success
	field  string // error field, if any
}

func check(t *testing.T, r reply, w want) {
	t.Helper()
	if r.status != w.status || r.errCode() != w.code {
		t.Fatalf("got %d %q (%s), want %d %q", r.status, r.errCode(), r.raw, w.status, w.code)
	}
	if w.field != "" {
		if f, _ := r.body["error"].(map[string]any)["field"].(string); f != w.field {
			t.Fatalf("error field = %q, want %q (%s)", f, w.field, r.raw)
		}
	}
	if w.code != "" && !strings.Contains(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("error answered as %q, want JSON", r.header.Get("Content-Type"))
	}
}

func TestSessionAPI(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	tests := []struct {
		name string
		body any
		want want
	}{
		{"valid", `{"user_id":"alice.b-c_d@shop"}`, want{200, "", ""}},
		{"empty id", `{"user_id":""}`, want{400, "invalid_request", "user_id"}},
		{"65 characters", `{"user_id":"` + strings.Repeat("a", 65) + `"}`, want{400, "invalid_request", "user_id"}},
		{"space", `{"user_id":"a b"}`, want{400, "invalid_request", "user_id"}},
		{"non-ASCII", `{"user_id":"zoë"}`, want{400, "invalid_request", "user_id"}},
		{"missing", `{}`, want{400, "invalid_request", "user_id"}},
		{"number", `{"user_id":5}`, want{400, "invalid_request", "user_id"}},
		{"unknown field", `{"user_id":"a","admin":true}`, want{400, "invalid_request", "admin"}},
		{"bad JSON", `{"user_id":`, want{400, "invalid_request", ""}},
		{"two objects", `{"user_id":"a"}{}`, want{400, "invalid_request", ""}},
		{"no body", nil, want{400, "invalid_request", ""}},
		{"oversized", `{"user_id":"` + strings.Repeat("a", 2<<20) + `"}`, want{413, "payload_too_large", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.call(t, "POST", "/api/v1/session", "", tc.body)
			check(t, r, tc.want)
			if tc.want.status == 200 {
				cookie := r.header.Get("Set-Cookie")
				if r.str("token") == "" || r.str("user_id") != "alice.b-c_d@shop" || r.str("expires_at") == "" ||
					!strings.Contains(cookie, "seckill_session=") || !strings.Contains(cookie, "HttpOnly") {
					t.Fatalf("session = %s, cookie %q", r.raw, cookie)
				}
			}
		})
	}
}

func TestDemoLoginCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), func(c *config.Config) { c.DemoLogin = false })
	check(t, s.call(t, "POST", "/api/v1/session", "", `{"user_id":"a"}`), want{404, "not_found", ""})
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	clk := newClock(t0)
	s := start(t, clk)
	id := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	mint := func(secret string, method jwt.SigningMethod, claims jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(method, claims).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	valid := jwt.MapClaims{"sub": "mallory", "exp": t0.Add(time.Hour).Unix()}
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	payload := base64.RawURLEncoding.EncodeToString(mustJSON(valid))
	tests := []struct {
		name, token string
		want        want
	}{
		{"no token", "", want{401, "unauthenticated", ""}},
		{"garbage", "not-a-jwt", want{401, "unauthenticated", ""}},
		{"forged: other secret", mint("another-secret-0123456789abcdef0123", jwt.SigningMethodHS256, valid), want{401, "unauthenticated", ""}},
		{"alg none", header + "." + payload + ".", want{401, "unauthenticated", ""}},
		{"HS512 with the right secret", mint(jwtSecret, jwt.SigningMethodHS512, valid), want{401, "unauthenticated", ""}},
		{"expired", mint(jwtSecret, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "mallory", "exp": t0.Add(-time.Second).Unix()}), want{401, "unauthenticated", ""}},
		{"no expiry", mint(jwtSecret, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "mallory"}), want{401, "unauthenticated", ""}},
		{"bad subject", mint(jwtSecret, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "a b", "exp": t0.Add(time.Hour).Unix()}), want{401, "unauthenticated", ""}},
		{"minted by the shop with the secret", mint(jwtSecret, jwt.SigningMethodHS256, valid), want{202, "", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.call(t, "POST", path, tc.token, nil)
			check(t, r, tc.want)
			if tc.want.status == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}
	t.Run("session cookie", func(t *testing.T) {
		tok := s.login(t, "cookie-user")
		r := s.call(t, "POST", path, "", nil, "Cookie", "seckill_session="+tok, "Origin", "http://"+s.addr)
		check(t, r, want{202, "", ""})
		if r.str("user_id") != "cookie-user" {
			t.Fatalf("purchase by cookie went to %q", r.str("user_id"))
		}
	})
	t.Run("admin routes refuse shoppers and wrong tokens", func(t *testing.T) {
		for _, tok := range []string{"", "wrong", s.login(t, "alice"), adminToken + "x"} {
			check(t, s.call(t, "GET", "/api/v1/admin/items/"+itoa(id)+"/stats", tok, nil), want{401, "unauthenticated", ""})
		}
	})
}

// TestCSRF: a page on another site cannot make a signed-in shopper's or
// admin's browser buy, cancel or change sales.
func TestCSRF(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	id := s.sale(t, 10, 1, t0, t0.Add(time.Hour))
	path := "/api/v1/items/" + itoa(id) + "/purchase"
	cookie := "seckill_session=" + s.login(t, "victim")
	tests := []struct {
		name string
		hdr  []string
		want want
	}{
		{"cookie from another site", []string{"Cookie", cookie, "Origin", "https://evil.example"}, want{403, "csrf_rejected", ""}},
		{"cookie without Origin", []string{"Cookie", cookie}, want{403, "csrf_rejected", ""}},
		{"null Origin", []string{"Cookie", cookie, "Origin", "null"}, want{403, "csrf_rejected", ""}},
		{"cookie with a non-Bearer Authorization", []string{"Cookie", cookie, "Authorization", "Basic eDp5"}, want{403, "csrf_rejected", ""}},
		{"cookie from the shop's pages", []string{"Cookie", cookie, "Origin", "http://" + s.addr}, want{202, "", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { check(t, s.call(t, "POST", path, "", nil, tc.hdr...), tc.want) })
	}
	admin := s.call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+adminToken+`"}`, "Origin", "http://"+s.addr)
	adminCookie := strings.Split(admin.header.Get("Set-Cookie"), ";")[0]
	check(t, s.call(t, "PATCH", "/api/v1/admin/items/"+itoa(id), "", `{"stock_total":1}`, "Cookie", adminCookie, "Origin", "https://evil.example"),
		want{403, "csrf_rejected", ""})
	if st := s.settle(t, id); st.body["stock_total"].(float64) != 10 || st.body["sold"].(float64) != 1 {
		t.Fatalf("forged requests changed something: %s", st.raw)
	}
}

func TestSecureCookiesBehindTLSProxy(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0), func(c *config.Config) { c.SecureCookies = true })
	r := s.call(t, "POST", "/api/v1/session", "", `{"user_id":"alice"}`)
	if c := r.header.Get("Set-Cookie"); !strings.Contains(c, "Secure") || !strings.Contains(c, "HttpOnly") {
		t.Fatalf("session cookie %q: want Secure and HttpOnly", c)
	}
}
