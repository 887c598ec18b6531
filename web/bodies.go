package web

import "sync"

// maxPooledBody bounds the buffers bodyPool keeps: a rare large body is
// read into a buffer of its own and left to the garbage collector.
const maxPooledBody = 64 << 10

// bodyPool recycles the buffers the API's request bodies are read into,
// the largest allocation of a lookup. A body, and every string decoded
// from it, lives only while its handler runs: the engine and the event
// sinks copy what they keep (see emulator.APICall.Body), and the handler
// gives the buffer back when it returns.
type bodyPool struct {
	pool sync.Pool
	// poison overwrites each buffer given back, so that tests see any use
	// of a body after its request (set by tests only).
	poison bool
}

// get returns a buffer for a body; it may be empty or hold an earlier
// body's bytes.
func (p *bodyPool) get() *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

// put gives back a buffer get returned, holding the body read into it.
func (p *bodyPool) put(b *[]byte) {
	if cap(*b) > maxPooledBody {
		return
	}
	if p.poison {
		full := (*b)[:cap(*b)]
		for i := range full {
			full[i] = '#'
		}
	}
	*b = (*b)[:0]
	p.pool.Put(b)
}
