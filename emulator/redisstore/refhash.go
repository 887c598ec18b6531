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
// for concurrent use: the HMACs are pooled, as a lookup makes one.
type refHash struct{ pool sync.Pool }

func newRefHash(key []byte) *refHash {
	return &refHash{pool: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// name is the index's name of reference ref of namespace ns.
func (h *refHash) name(ns, ref string) string {
	m := h.pool.Get().(hash.Hash)
	defer h.pool.Put(m)
	m.Reset()
	var buf [96]byte
	b := strconv.AppendInt(buf[:0], int64(len(ns)), 10)
	b = append(b, ':')
	b = append(b, ns...)
	b = append(b, ':')
	b = append(b, ref...)
	m.Write(b)
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0])[:16])
}
