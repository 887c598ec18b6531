package memstore

// Chunk sizes of the arena. A store starts with small chunks, so that the
// many small stores of tests stay small, and doubles them up to maxChunk:
// at 100k stored transactions about 30 chunks of 1 MiB, that is 30
// pointers for the garbage collector instead of millions.
const (
	minChunk = 4 << 10
	maxChunk = 1 << 20
)

// maxRecord bounds a record, far beyond any real transaction, so that
// offsets and lengths fit a uint32.
const maxRecord = 1 << 30

// arena keeps records back to back in large byte chunks. Records are
// appended to the newest chunk; a chunk is released when the last record
// in it is freed. The store frees records mostly oldest first, so chunks
// empty out in about the order they were filled; records freed out of
// order (an update moved them, a tenant beyond its share lost its
// oldest) leave space behind, which the store takes back by moving the
// survivors of old chunks (Store.compactLocked) once the chunks take
// twice what the records need.
type arena struct {
	// chunks[i] is the chunk numbered first+i. A released chunk keeps its
	// place, with a nil buf, until the chunks before it are released too.
	chunks []chunk
	first  uint32 // wraps around harmlessly: only differences are used
	next   int    // size of the last chunk added, unless oversized
	total  int    // the bytes the chunks take
	// spare is the last full-size chunk released, kept for the next
	// chunk: a store at its bound releases a chunk for every one it adds,
	// and a fresh one costs its zeroing, its pages' first touch and
	// garbage for the collector. Its old bytes are never read: a span
	// reads only what was written to it.
	spare []byte
}

// chunk is a block of records.
type chunk struct {
	buf  []byte // the records; cap(buf) is the chunk's size
	live int    // records in buf not yet freed
}

// span locates a record: len bytes at off in a chunk, within cap bytes
// reserved for it, so that a record that grows a little is rewritten in
// place.
type span struct {
	chunk, off, len, cap uint32
}

// alloc reserves n bytes (n <= maxRecord) and returns them as a span of
// length 0.
func (a *arena) alloc(n int) span {
	if len(a.chunks) == 0 {
		a.addChunk(n)
	} else if last := len(a.chunks) - 1; cap(a.chunks[last].buf)-len(a.chunks[last].buf) < n {
		if a.chunks[last].live == 0 {
			a.release(last)
		}
		a.addChunk(n)
	}
	i := len(a.chunks) - 1
	c := &a.chunks[i]
	off := len(c.buf)
	c.buf = c.buf[:off+n]
	c.live++
	return span{chunk: a.first + uint32(i), off: uint32(off), cap: uint32(n)}
}

// addChunk appends a chunk with room for at least n bytes, twice as large
// as the previous one up to maxChunk.
func (a *arena) addChunk(n int) {
	a.next = min(max(2*a.next, minChunk), maxChunk)
	size := max(n, a.next)
	buf := a.spare
	if cap(buf) == size {
		a.spare = nil
	} else {
		buf = make([]byte, 0, size)
	}
	a.chunks = append(a.chunks, chunk{buf: buf[:0]})
	a.total += cap(a.chunks[len(a.chunks)-1].buf)
}

// size is the memory the arena's chunks take, in bytes.
func (a *arena) size() int { return a.total }

// bytes returns the record at s, sharing the arena's memory.
func (a *arena) bytes(s span) []byte {
	return a.chunks[s.chunk-a.first].buf[s.off : s.off+s.len]
}

// write stores rec at s, which must have room for it, and returns s with
// its new length.
func (a *arena) write(s span, rec []byte) span {
	s.len = uint32(copy(a.chunks[s.chunk-a.first].buf[s.off:s.off+s.cap], rec))
	return s
}

// free gives the space of s back: its chunk is released (or reused, if it
// is the newest) once it holds no record any more.
func (a *arena) free(s span) {
	i := int(s.chunk - a.first)
	c := &a.chunks[i]
	c.live--
	switch {
	case c.live > 0:
	case i == len(a.chunks)-1:
		c.buf = c.buf[:0]
	default:
		a.release(i)
	}
}

// release drops chunk i, then the released chunks at the front.
func (a *arena) release(i int) {
	a.total -= cap(a.chunks[i].buf)
	if cap(a.chunks[i].buf) == maxChunk {
		a.spare = a.chunks[i].buf
	}
	a.chunks[i].buf = nil
	for len(a.chunks) > 0 && a.chunks[0].buf == nil {
		a.chunks = a.chunks[1:]
		a.first++
	}
}
