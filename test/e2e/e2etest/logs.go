package e2etest

import (
	"bytes"
	"sync"
)

// LockedBuffer is a log sink the server's goroutines may share.
type LockedBuffer struct {
	Mu sync.Mutex
	B  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.B.Write(p)
}

func (l *LockedBuffer) String() string { l.Mu.Lock(); defer l.Mu.Unlock(); return l.B.String() }
