package webhook

import "net/url"

// Redact shows an endpoint without the password its URL may carry, for
// logs and the dashboard.
func Redact(endpoint string) string { return redact(endpoint) }

func redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
