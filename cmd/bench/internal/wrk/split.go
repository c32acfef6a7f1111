package wrk

// Part is one wrk process's share of a run split across instances.
type Part struct {
	Threads, Connections int
	First                int // the shopper file of its first thread
}

// Split divides threads and connections between n wrk processes, the
// first ones taking any remainder. Part i reads the shopper files after
// part i-1's, so together the parts send exactly the shoppers one wrk with
// every thread sends, none of them twice. It needs threads >= n.
func Split(threads, connections, n int) []Part {
	parts := make([]Part, n)
	first := 0
	for i := range parts {
		t, c := threads/n, connections/n
		if i < threads%n {
			t++
		}
		if i < connections%n {
			c++
		}
		parts[i] = Part{Threads: t, Connections: c, First: first}
		first += t
	}
	return parts
}
