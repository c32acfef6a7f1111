package stocksync

// SetBetweenReads makes Stats run f between its Redis and MySQL reads, the
// window its accounting must survive; tests outside the package use it.
func SetBetweenReads(s *Syncer, f func()) { s.betweenReads = f }
