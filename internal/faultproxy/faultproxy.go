// Package faultproxy is a TCP proxy that injects faults between a client
// and a server, for tests of how gridfsd behaves when its store misbehaves:
// latency, a bandwidth limit, connections reset in the middle of a reply, a
// black hole (nothing gets through, nothing is closed) and refused
// connections (the store is down). Faults apply to connections already
// open as well as new ones, at once.
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards connections to its Addr on to a target address.
type Proxy struct {
	ln     net.Listener
	target string

	mu        sync.Mutex
	cond      *sync.Cond // signalled when the black hole closes
	latency   time.Duration
	bandwidth int   // bytes a second from the server to the client; 0: no limit
	resetAt   int64 // reset a connection once it has sent this many more bytes to the client; 0: never
	resetOnce bool  // disarm resetAt after the first reset
	blackHole bool
	refuse    bool
	conns     map[*link]struct{}
	closed    bool

	resets atomic.Int64
	wg     sync.WaitGroup
}

// link is one proxied connection.
type link struct {
	client, server net.Conn
	sent           atomic.Int64 // bytes sent to the client since the reset was armed
	once           sync.Once
}

// reset closes both ends at once, the client's with a TCP RST.
func (l *link) reset() {
	l.once.Do(func() {
		if tc, ok := l.client.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		if tc, ok := l.server.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		l.client.Close()
		l.server.Close()
	})
}

// Start listens on a free port of 127.0.0.1 and forwards to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[*link]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address, host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetLatency delays every piece of data, both ways, by d.
func (p *Proxy) SetLatency(d time.Duration) { p.set(func() { p.latency = d }) }

// SetBandwidth limits what the server sends to the client to n bytes a
// second; 0 lifts the limit.
func (p *Proxy) SetBandwidth(n int) { p.set(func() { p.bandwidth = n }) }

// ResetAfter resets every connection (a TCP RST to the client, the server's
// side closed) once it has sent n more bytes to the client, in the middle
// of a reply; 0 disarms it.
func (p *Proxy) ResetAfter(n int64) {
	p.set(func() {
		p.resetAt = n
		for l := range p.conns {
			l.sent.Store(0)
		}
	})
}

// ResetOnce is ResetAfter for the first connection only: it is disarmed by
// the reset, so that connections made afterwards (the client reconnecting)
// are left alone. Armed reports whether it has not fired yet.
func (p *Proxy) ResetOnce(n int64) {
	p.set(func() {
		p.resetAt, p.resetOnce = n, true
		for l := range p.conns {
			l.sent.Store(0)
		}
	})
}

// Armed reports whether a ResetOnce has not fired yet.
func (p *Proxy) Armed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resetOnce && p.resetAt > 0
}

// BlackHole stops (true) or resumes (false) all traffic; connections stay
// open and what was sent meanwhile is delivered on resuming, as a network
// that drops packets and retransmits them later.
func (p *Proxy) BlackHole(on bool) { p.set(func() { p.blackHole = on }) }

// Refuse makes the proxy close new connections at once, as a store that is
// down, and resets the open ones (true); false accepts again.
func (p *Proxy) Refuse(on bool) {
	p.set(func() { p.refuse = on })
	if on {
		p.ResetAll()
	}
}

// ResetAll resets every open connection now.
func (p *Proxy) ResetAll() {
	p.mu.Lock()
	ls := make([]*link, 0, len(p.conns))
	for l := range p.conns {
		ls = append(ls, l)
	}
	p.mu.Unlock()
	for _, l := range ls {
		p.resets.Add(1)
		l.reset()
	}
}

// Clear lifts every fault.
func (p *Proxy) Clear() {
	p.set(func() {
		p.latency, p.bandwidth, p.resetAt, p.resetOnce, p.blackHole, p.refuse = 0, 0, 0, false, false, false
	})
}

// Resets is how many connections the proxy has reset.
func (p *Proxy) Resets() int64 { return p.resets.Load() }

// Conns is how many connections are open through the proxy.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Close stops the proxy and resets every connection.
func (p *Proxy) Close() error {
	p.set(func() { p.closed = true })
	err := p.ln.Close()
	p.ResetAll()
	p.wg.Wait()
	return err
}

func (p *Proxy) set(f func()) {
	p.mu.Lock()
	f()
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.refuse
		p.mu.Unlock()
		if refuse {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			c.Close()
			continue
		}
		s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		l := &link{client: c, server: s}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			l.reset()
			return
		}
		p.conns[l] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pump(l, s, c, true)
		go p.pump(l, c, s, false)
	}
}

// pump copies from src to dst, applying the faults; toClient is the
// server-to-client direction, where bandwidth and resets apply.
func (p *Proxy) pump(l *link, src, dst net.Conn, toClient bool) {
	defer p.wg.Done()
	defer func() {
		l.reset()
		p.mu.Lock()
		delete(p.conns, l)
		p.mu.Unlock()
	}()
	buf := make([]byte, 16<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.forward(l, dst, buf[:n], toClient) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			// Half-close is not needed by the wire protocol: end both.
			return
		}
	}
}

// forward writes b to dst under the faults in force; false means the
// connection is done.
func (p *Proxy) forward(l *link, dst net.Conn, b []byte, toClient bool) bool {
	p.mu.Lock()
	for p.blackHole && !p.closed {
		p.cond.Wait()
	}
	latency, bandwidth, resetAt := p.latency, p.bandwidth, p.resetAt
	p.mu.Unlock()
	if latency > 0 {
		time.Sleep(latency)
	}
	if toClient && resetAt > 0 {
		sent := l.sent.Add(int64(len(b)))
		if sent >= resetAt {
			if !p.fire() {
				return p.write(dst, b, toClient, bandwidth)
			}
			// Deliver up to the threshold, then cut.
			keep := int64(len(b)) - (sent - resetAt)
			if keep > 0 {
				dst.Write(b[:keep])
			}
			p.resets.Add(1)
			l.reset()
			return false
		}
	}
	return p.write(dst, b, toClient, bandwidth)
}

// fire reports whether a reset armed by ResetAfter or ResetOnce is to
// happen now, and disarms a ResetOnce.
func (p *Proxy) fire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resetAt == 0 {
		return false // a ResetOnce fired on another connection meanwhile
	}
	if p.resetOnce {
		p.resetAt, p.resetOnce = 0, false
	}
	return true
}

// write sends b to dst within the bandwidth limit.
func (p *Proxy) write(dst net.Conn, b []byte, toClient bool, bandwidth int) bool {
	for len(b) > 0 {
		piece := b
		if toClient && bandwidth > 0 {
			// At most a tenth of a second's worth at a time.
			if max := max(bandwidth/10, 1); len(piece) > max {
				piece = piece[:max]
			}
			time.Sleep(time.Duration(len(piece)) * time.Second / time.Duration(bandwidth))
		}
		if _, err := dst.Write(piece); err != nil {
			return false
		}
		b = b[len(piece):]
	}
	return true
}
