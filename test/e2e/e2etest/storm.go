package e2etest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// OrderIDs reads the sale's orders straight from MySQL: order id -> user.
func (s *Server) OrderIDs(tb testing.TB, itemID int64) map[string]string {
	tb.Helper()
	var rows []struct{ ID, UserID string }
	if err := s.Db.Gorm.Raw("SELECT id, user_id FROM orders WHERE item_id = ?", itemID).Scan(&rows).Error; err != nil {
		tb.Fatal(err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if _, dup := out[r.ID]; dup {
			tb.Errorf("order %s stored twice", r.ID)
		}
		out[r.ID] = r.UserID
	}
	return out
}

// MintToken signs a shopper token as a shop's own login would.
func MintToken(tb testing.TB, user string) string {
	tb.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		// Valid both for servers on the test clock t0 and on the real clock.
		"sub": user, "exp": time.Now().Add(48 * time.Hour).Unix(),
	}).SignedString([]byte(JwtSecret))
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func Summary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
