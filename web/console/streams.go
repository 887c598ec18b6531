package console

import (
	"fmt"
	"sync"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/fairshare"
)

// streamPool holds the live streams open on this replica, a pool every
// tenant (a token's namespace) shares: a session holds at most
// maxStreamsPerSession, a tenant at most maxPerToken however many
// sessions it opens (beyond, 429), and at the total the tenant holding
// the most gives up its oldest stream, which ends cleanly (the browser
// reconnects after the retry delay), so that a newcomer always gets one.
// Safe for concurrent use.
type streamPool struct {
	max, maxPerToken int

	mu        sync.Mutex
	bySession map[string]int
	// byTenant are each tenant's open streams, oldest first; held
	// counts them to find the tenant holding the most.
	byTenant map[string][]*liveStream
	held     fairshare.Holdings
	total    int
}

// liveStream is one open stream. gaveWay is closed when it must end to
// make room for another tenant's.
type liveStream struct {
	sid, ns string
	gaveWay chan struct{}
	open    bool // guarded by the pool's lock
}

func newStreamPool(max, maxPerToken int) *streamPool {
	return &streamPool{max: max, maxPerToken: maxPerToken, bySession: map[string]int{}, byTenant: map[string][]*liveStream{}}
}

// open counts a new stream of session sid of namespace ns; when one of
// its own bounds refuses it, refusal says which. At the total the tenant
// holding the most (ns itself, when it does) gives up its oldest.
func (p *streamPool) open(sid, ns string) (s *liveStream, refusal string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.bySession[sid] >= maxStreamsPerSession:
		return nil, fmt.Sprintf("this session has %d live streams open, its most: close a console tab", maxStreamsPerSession)
	case len(p.byTenant[ns]) >= p.maxPerToken:
		return nil, fmt.Sprintf("this token's sessions have %d live streams open, its most: close a console tab", p.maxPerToken)
	}
	if p.total >= p.max {
		largest, _ := p.held.Largest()
		p.drop(p.byTenant[largest][0])
	}
	s = &liveStream{sid: sid, ns: ns, gaveWay: make(chan struct{}), open: true}
	p.bySession[sid]++
	p.byTenant[ns] = append(p.byTenant[ns], s)
	p.held.Add(ns, 1)
	p.total++
	return s, ""
}

// close ends the count of s, unless it already gave way.
func (p *streamPool) close(s *liveStream) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.open {
		p.drop(s)
	}
}

// drop forgets the open stream s; one that drop ends while it runs gives
// way: its handler sees gaveWay closed. The lock is held.
func (p *streamPool) drop(s *liveStream) {
	s.open = false
	close(s.gaveWay)
	if p.bySession[s.sid]--; p.bySession[s.sid] <= 0 {
		delete(p.bySession, s.sid)
	}
	streams := p.byTenant[s.ns]
	for i, o := range streams {
		if o == s {
			streams = append(streams[:i:i], streams[i+1:]...)
			break
		}
	}
	if len(streams) == 0 {
		delete(p.byTenant, s.ns)
	} else {
		p.byTenant[s.ns] = streams
	}
	p.held.Add(s.ns, -1)
	p.total--
}
