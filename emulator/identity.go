package emulator

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unsafe"

	"github.com/brianvoe/gofakeit/v7"
)

// newUUID returns a random (version 4) UUID in canonical 36-character form.
func newUUID() string {
	buf := make([]byte, 36)
	var r [16]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
	encodeUUID(buf, uuidBits(r))
	return unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is never written again
}

// transactionIDs returns the three ids of a new transaction, in one
// allocation: a random threeDSServerTransID and dsTransID, and the
// acsTransID the sandbox's ACS derives from the first (acsTransIDOf).
func transactionIDs() (server, acs, ds string) {
	buf := make([]byte, 3*36)
	// One read for both random ids: each call of crypto/rand.Read pays a
	// fixed cost beyond its bytes.
	var r [32]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
	id := uuidBits([16]byte(r[:16]))
	encodeUUID(buf[0:36], id)
	encodeUUID(buf[36:72], acsPermutation.forward(id))
	encodeUUID(buf[72:108], uuidBits([16]byte(r[16:])))
	str := unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is never written again
	return str[0:36], str[36:72], str[72:108]
}

// uuid is a UUID as two 64-bit halves, big-endian: hi holds bytes 0-7.
type uuid struct{ hi, lo uint64 }

// uuidBits makes a version 4 UUID of 16 random bytes: their version and
// variant bits set as RFC 9562 says, the other 122 kept.
func uuidBits(r [16]byte) uuid {
	r[6] = r[6]&0x0f | 0x40
	r[8] = r[8]&0x3f | 0x80
	return uuid{binary.BigEndian.Uint64(r[:8]), binary.BigEndian.Uint64(r[8:])}
}

// encodeUUID writes u in canonical form (lower case) into dst, 36 bytes.
func encodeUUID(dst []byte, u uuid) {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], u.hi)
	binary.BigEndian.PutUint64(b[8:], u.lo)
	hex.Encode(dst[0:8], b[0:4])
	dst[8] = '-'
	hex.Encode(dst[9:13], b[4:6])
	dst[13] = '-'
	hex.Encode(dst[14:18], b[6:8])
	dst[18] = '-'
	hex.Encode(dst[19:23], b[8:10])
	dst[23] = '-'
	hex.Encode(dst[24:], b[10:])
}

// parseV4 reads a version 4 UUID of the RFC variant in canonical form,
// hex digits in either case; false for anything else.
func parseV4(s string) (uuid, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return uuid{}, false
	}
	var b [16]byte
	j := 0
	for i := 0; i < 36; i += 2 {
		if s[i] == '-' {
			i--
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return uuid{}, false
		}
		b[j] = hi<<4 | lo
		j++
	}
	if b[6]>>4 != 4 || b[8]>>6 != 2 {
		return uuid{}, false
	}
	return uuid{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}, true
}

// unhex is the value of one hex digit.
func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// The sandbox's ACS chooses the acsTransID of a transaction as a fixed
// keyed permutation of its threeDSServerTransID: a 4-round Feistel
// network over the 122 random bits of the version 4 UUID, two halves of
// 61 bits, the version and variant bits left as they are. Either id then
// leads to the transaction with one Store.Get and no index: the
// threeDSServerTransID is the store's key, and an acsTransID gives it
// back through the inverse (a 3RI lookup's threeDsReqPriorRef, the app
// channel's CReq). The key is compiled in and not a secret: it only makes
// the two ids look independent, as a real ACS's would be.
var acsPermutation = feistel{keys: [4]uint64{
	0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb, 0x2545f4914f6cdd1d,
}}

// feistel is a keyed permutation of the 122 random bits of a version 4
// UUID.
type feistel struct{ keys [4]uint64 }

const mask61 = 1<<61 - 1

// split122 splits the 122 random bits of u into two of 61: the 60 of hi
// without its version nibble, then the 62 of lo without its variant.
func split122(u uuid) (l, r uint64) {
	hi60 := (u.hi>>16)<<12 | u.hi&0x0fff
	lo62 := u.lo & (1<<62 - 1)
	return hi60<<1 | lo62>>61, lo62 & mask61
}

// join122 is the version 4 UUID of the halves l and r (see split122).
func join122(l, r uint64) uuid {
	hi60, lo62 := l>>1, (l&1)<<61|r
	return uuid{hi: (hi60>>12)<<16 | 0x4000 | hi60&0x0fff, lo: 1<<63 | lo62}
}

// feistelRound is the Feistel network's round function: a 64-bit finaliser
// (MurmurHash3's) of the half and the round key, cut to 61 bits.
func feistelRound(x, key uint64) uint64 {
	x ^= key
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x & mask61
}

// forward maps a threeDSServerTransID to its acsTransID.
func (f feistel) forward(u uuid) uuid {
	l, r := split122(u)
	for _, k := range f.keys {
		l, r = r, l^feistelRound(r, k)
	}
	return join122(l, r)
}

// inverse maps an acsTransID back to its threeDSServerTransID.
func (f feistel) inverse(u uuid) uuid {
	l, r := split122(u)
	for i := len(f.keys) - 1; i >= 0; i-- {
		l, r = r^feistelRound(l, f.keys[i]), l
	}
	return join122(l, r)
}

// acsTransIDOf is the acsTransID of the transaction whose
// threeDSServerTransID is id; false when id is not a version 4 UUID.
func acsTransIDOf(id string) (string, bool) {
	u, ok := parseV4(id)
	if !ok {
		return "", false
	}
	buf := make([]byte, 36)
	encodeUUID(buf, acsPermutation.forward(u))
	return string(buf), true
}

// serverTransIDOf is the threeDSServerTransID of the transaction whose
// acsTransID is id; false when id is not a version 4 UUID.
func serverTransIDOf(id string) (string, bool) {
	u, ok := parseV4(id)
	if !ok {
		return "", false
	}
	buf := make([]byte, 36)
	encodeUUID(buf, acsPermutation.inverse(u))
	return string(buf), true
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
