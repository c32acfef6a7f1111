package e2etest

// Num reads a JSON number field as an int.
func Num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}
