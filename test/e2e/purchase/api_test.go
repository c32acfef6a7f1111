package purchase

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

func TestSessionAPI(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	tests := []struct {
		name string
		body any
		want e2etest.Want
	}{
		{"valid", `{"user_id":"alice.b-c_d@shop"}`, e2etest.Want{Status: 200}},
		{"empty id", `{"user_id":""}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "user_id"}},
		{"65 characters", `{"user_id":"` + strings.Repeat("a", 65) + `"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "user_id"}},
		{"space", `{"user_id":"a b"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "user_id"}},
		{"non-ASCII", `{"user_id":"zoë"}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "user_id"}},
		{"missing", `{}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "user_id"}},
		{"number", `{"user_id":5}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "user_id"}},
		{"unknown field", `{"user_id":"a","admin":true}`, e2etest.Want{Status: 400, Code: "invalid_request", Field: "admin"}},
		{"bad JSON", `{"user_id":`, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"two objects", `{"user_id":"a"}{}`, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"no body", nil, e2etest.Want{Status: 400, Code: "invalid_request"}},
		{"oversized", `{"user_id":"` + strings.Repeat("a", 2<<20) + `"}`, e2etest.Want{Status: 413, Code: "payload_too_large"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Call(t, "POST", "/api/v1/session", "", tc.body)
			e2etest.Check(t, r, tc.want)
			if tc.want.Status == 200 {
				cookie := r.Header.Get("Set-Cookie")
				if r.Str("token") == "" || r.Str("user_id") != "alice.b-c_d@shop" || r.Str("expires_at") == "" ||
					!strings.Contains(cookie, "seckill_session=") || !strings.Contains(cookie, "HttpOnly") {
					t.Fatalf("session = %s, cookie %q", r.Raw, cookie)
				}
			}
		})
	}
}

func TestDemoLoginCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.DemoLogin = false })
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/session", "", `{"user_id":"a"}`), e2etest.Want{Status: 404, Code: "not_found"})
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	id := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	mint := func(secret string, method jwt.SigningMethod, claims jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(method, claims).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	valid := jwt.MapClaims{"sub": "mallory", "exp": e2etest.T0.Add(time.Hour).Unix()}
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	payload := base64.RawURLEncoding.EncodeToString(e2etest.MustJSON(valid))
	tests := []struct {
		name, token string
		want        e2etest.Want
	}{
		{"no token", "", e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"garbage", "not-a-jwt", e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"forged: other secret", mint("another-secret-0123456789abcdef0123", jwt.SigningMethodHS256, valid), e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"alg none", header + "." + payload + ".", e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"HS512 with the right secret", mint(e2etest.JWTSecret, jwt.SigningMethodHS512, valid), e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"expired", mint(e2etest.JWTSecret, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "mallory", "exp": e2etest.T0.Add(-time.Second).Unix()}), e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"no expiry", mint(e2etest.JWTSecret, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "mallory"}), e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"bad subject", mint(e2etest.JWTSecret, jwt.SigningMethodHS256, jwt.MapClaims{"sub": "a b", "exp": e2etest.T0.Add(time.Hour).Unix()}), e2etest.Want{Status: 401, Code: "unauthenticated"}},
		{"minted by the shop with the secret", mint(e2etest.JWTSecret, jwt.SigningMethodHS256, valid), e2etest.Want{Status: 202}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Call(t, "POST", path, tc.token, nil)
			e2etest.Check(t, r, tc.want)
			if tc.want.Status == 401 && r.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}
	t.Run("session cookie", func(t *testing.T) {
		tok := s.Login(t, "cookie-user")
		r := s.Call(t, "POST", path, "", nil, "Cookie", "seckill_session="+tok, "Origin", "http://"+s.Addr)
		e2etest.Check(t, r, e2etest.Want{Status: 202})
		if r.Str("user_id") != "cookie-user" {
			t.Fatalf("purchase by cookie went to %q", r.Str("user_id"))
		}
	})
	t.Run("admin routes refuse shoppers and wrong tokens", func(t *testing.T) {
		for _, tok := range []string{"", "wrong", s.Login(t, "alice"), e2etest.AdminToken + "x"} {
			e2etest.Check(t, s.Call(t, "GET", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/stats", tok, nil), e2etest.Want{Status: 401, Code: "unauthenticated"})
		}
	})
}

// TestCSRF: a page on another site cannot make a signed-in shopper's or
// admin's browser buy, cancel or change sales.
func TestCSRF(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/purchase"
	cookie := "seckill_session=" + s.Login(t, "victim")
	tests := []struct {
		name string
		hdr  []string
		want e2etest.Want
	}{
		{"cookie from another site", []string{"Cookie", cookie, "Origin", "https://evil.example"}, e2etest.Want{Status: 403, Code: "csrf_rejected"}},
		{"cookie without Origin", []string{"Cookie", cookie}, e2etest.Want{Status: 403, Code: "csrf_rejected"}},
		{"null Origin", []string{"Cookie", cookie, "Origin", "null"}, e2etest.Want{Status: 403, Code: "csrf_rejected"}},
		{"cookie with a non-Bearer Authorization", []string{"Cookie", cookie, "Authorization", "Basic eDp5"}, e2etest.Want{Status: 403, Code: "csrf_rejected"}},
		{"cookie from the shop's pages", []string{"Cookie", cookie, "Origin", "http://" + s.Addr}, e2etest.Want{Status: 202}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { e2etest.Check(t, s.Call(t, "POST", path, "", nil, tc.hdr...), tc.want) })
	}
	admin := s.Call(t, "POST", "/api/v1/admin/session", "", `{"token":"`+e2etest.AdminToken+`"}`, "Origin", "http://"+s.Addr)
	adminCookie := strings.Split(admin.Header.Get("Set-Cookie"), ";")[0]
	e2etest.Check(t, s.Call(t, "PATCH", "/api/v1/admin/items/"+e2etest.Itoa(id), "", `{"stock_total":1}`, "Cookie", adminCookie, "Origin", "https://evil.example"),
		e2etest.Want{Status: 403, Code: "csrf_rejected"})
	if st := s.Settle(t, id); st.Body["stock_total"].(float64) != 10 || st.Body["sold"].(float64) != 1 {
		t.Fatalf("forged requests changed something: %s", st.Raw)
	}
}

func TestSecureCookiesBehindTLSProxy(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.SecureCookies = true })
	r := s.Call(t, "POST", "/api/v1/session", "", `{"user_id":"alice"}`)
	if c := r.Header.Get("Set-Cookie"); !strings.Contains(c, "Secure") || !strings.Contains(c, "HttpOnly") {
		t.Fatalf("session cookie %q: want Secure and HttpOnly", c)
	}
}
