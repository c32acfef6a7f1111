package fault

import (
	"net"
	"sync"
	"testing"
)

// Proxy is a TCP proxy on loopback that a test can pause and move. A pause
// really stops bytes: what the proxy has read waits in it, and what it has
// not read fills the kernel's buffers until the sender stalls, so a
// replica behind a paused proxy receives nothing (a SIGSTOPped replica
// would go on receiving into its socket buffer and lose nothing at
// failover). Move points new connections elsewhere and drops the old ones,
// as a managed Redis's failover endpoint does.
type Proxy struct {
	Addr   string
	ln     net.Listener
	mu     sync.RWMutex
	target string
	gate   chan struct{} // closed while bytes pass
	links  map[*link]struct{}
	closed bool
	wg     sync.WaitGroup
}

// link is one proxied connection; dead is closed when it is dropped, which
// frees a pipe waiting at a paused gate without passing its bytes.
type link struct {
	client, server net.Conn
	dead           chan struct{}
	once           sync.Once
}

func (l *link) drop() {
	l.once.Do(func() { close(l.dead); l.client.Close(); l.server.Close() })
}

// StartProxy starts a proxy to target on a free loopback port; cleanup
// closes it and every connection through it.
func StartProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	open := make(chan struct{})
	close(open)
	p := &Proxy{Addr: ln.Addr().String(), ln: ln, target: target, gate: open, links: map[*link]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.RLock()
		target := p.target
		p.mu.RUnlock()
		s, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		l := &link{client: c, server: s, dead: make(chan struct{})}
		p.mu.Lock()
		closed := p.closed
		p.links[l] = struct{}{}
		p.mu.Unlock()
		if closed {
			l.drop()
		}
		p.wg.Add(2)
		go p.pipe(l, s, c)
		go p.pipe(l, c, s)
	}
}

// pipe copies src to dst while the gate is open. A write happens under the
// read lock with the gate seen open, so once Pause returns no byte passes.
func (p *Proxy) pipe(l *link, dst, src net.Conn) {
	defer p.wg.Done()
	defer p.forget(l)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.pass(l, dst, buf[:n]) {
			return
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) pass(l *link, dst net.Conn, b []byte) bool {
	for {
		p.mu.RLock()
		gate := p.gate
		p.mu.RUnlock()
		select {
		case <-gate:
		case <-l.dead:
			return false
		}
		p.mu.RLock()
		if p.gate != gate {
			p.mu.RUnlock()
			continue // paused meanwhile
		}
		_, err := dst.Write(b)
		p.mu.RUnlock()
		return err == nil
	}
}

func (p *Proxy) forget(l *link) {
	l.drop()
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// Pause stops every byte in both directions until Resume.
func (p *Proxy) Pause() {
	p.mu.Lock()
	p.gate = make(chan struct{})
	p.mu.Unlock()
}

// Resume lets bytes pass again.
func (p *Proxy) Resume() {
	p.mu.Lock()
	select {
	case <-p.gate:
	default:
		close(p.gate)
	}
	p.mu.Unlock()
}

// Move sends new connections to target and drops the current ones, with
// whatever a pause held in them.
func (p *Proxy) Move(target string) {
	p.mu.Lock()
	p.target = target
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.drop()
	}
}

// Close stops listening, drops every connection and waits for the pipes.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
	p.Move("")
	p.wg.Wait()
}
