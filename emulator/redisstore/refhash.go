package redisstore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"sync"
)

// refHash names a namespace's external reference in the index's key: 16
// bytes, in hex, of an HMAC-SHA256 under the index key of the namespace
// with its length and the reference, so that neither stands in the key
// as sent and no namespace and reference can make another's name. Safe
// for concurrent use: the HMACs and their buffers are pooled, as every
// lookup with a reference names one.
type refHash struct{ pool sync.Pool }

type refState struct {
	m   hash.Hash
	buf []byte // the input, then the key
	sum [sha256.Size]byte
}

func newRefHash(key []byte) *refHash {
	return &refHash{pool: sync.Pool{New: func() any { return &refState{m: hmac.New(sha256.New, key)} }}}
}

// key is prefix followed by the index's name of reference ref of
// namespace ns: one allocation, the key.
func (h *refHash) key(prefix, ns, ref string) string {
	st := h.pool.Get().(*refState)
	defer h.pool.Put(st)
	b := strconv.AppendInt(st.buf[:0], int64(len(ns)), 10)
	b = append(b, ':')
	b = append(b, ns...)
	b = append(b, ':')
	b = append(b, ref...)
	st.m.Reset()
	st.m.Write(b)
	sum := st.m.Sum(st.sum[:0])[:16]
	b = append(b[:0], prefix...)
	b = hex.AppendEncode(b, sum)
	if cap(b) <= 4096 { // a long reference's buffer is not kept
		st.buf = b
	}
	return string(b)
}
