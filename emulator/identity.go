package emulator

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"hash/fnv"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/brianvoe/gofakeit/v7"
)

// newUUID returns a random (version 4) UUID in canonical 36-character form.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// ACSIdentity is the fake issuer ACS that serves a card range.
type ACSIdentity struct {
	ReferenceNumber string // acsReferenceNumber, as EMVCo assigns on approval
	OperatorID      string // acsOperatorId, as the DS assigns
}

// acsIdentity returns the ACS of a BIN. It is drawn from gofakeit seeded by
// the emulator's seed and the BIN, so every card of one issuer meets the same
// ACS, and a run is reproduced from its seed.
func acsIdentity(seed uint64, bin string) ACSIdentity {
	h := fnv.New64a()
	_, _ = h.Write([]byte(bin))
	f := gofakeit.New(seed ^ h.Sum64())
	company := f.Company()
	short := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return unicode.ToUpper(r)
		}
		return -1
	}, company)
	if len(short) < 4 {
		short += "ACSX"
	}
	short = short[:4]
	return ACSIdentity{
		ReferenceNumber: "3DS_LOA_ACS_" + short + "_020200_" + f.Numerify("#####"),
		OperatorID:      "ACS-" + short + "-" + f.Numerify("####-####"),
	}
}

// acsDirectory remembers the fake ACS of each BIN seen, so a lookup does
// not draw it again and stored transactions share its strings. It holds at
// most maxBINs entries; beyond that identities are drawn each time.
type acsDirectory struct {
	seed uint64
	m    sync.Map // BIN -> ACSIdentity
	n    atomic.Int64
}

const maxBINs = 4096

func (d *acsDirectory) lookup(bin string) ACSIdentity {
	if v, ok := d.m.Load(bin); ok {
		return v.(ACSIdentity)
	}
	id := acsIdentity(d.seed, bin)
	if d.n.Load() < maxBINs {
		if _, loaded := d.m.LoadOrStore(strings.Clone(bin), id); !loaded {
			d.n.Add(1)
		}
	}
	return id
}

// cavvOf derives the 28-character CAVV/AAV of a transaction: 20 bytes of
// the keyed HMAC m (reset first, SHA-256) over the transaction id, in
// padded standard Base64. Stable for a transaction, different between
// transactions; the real byte layouts are the schemes' secret.
func cavvOf(m hash.Hash, threeDSServerTransID string) string {
	m.Reset()
	_, _ = io.WriteString(m, threeDSServerTransID)
	var sum [sha256.Size]byte
	var out [28]byte
	base64.StdEncoding.Encode(out[:], m.Sum(sum[:0])[:20])
	return string(out[:])
}

// cavvHashes pools the keyed HMACs of an engine: the enquiry derives the
// value again on every answer.
type cavvHashes struct{ pool sync.Pool }

func newCAVVHashes(key []byte) *cavvHashes {
	return &cavvHashes{pool: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

func (c *cavvHashes) value(threeDSServerTransID string) string {
	m := c.pool.Get().(hash.Hash)
	defer c.pool.Put(m)
	return cavvOf(m, threeDSServerTransID)
}

// cavvKey derives the authentication-value key from the seed.
func cavvKey(seed uint64) []byte {
	var b [16]byte
	copy(b[:8], "cavv-key")
	binary.BigEndian.PutUint64(b[8:], seed)
	k := sha256.Sum256(b[:])
	return k[:]
}
