package emulator

import (
	"crypto/rand"
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
	var ids [1]string
	newUUIDs(ids[:])
	return ids[0]
}

// newUUIDs fills ids with random (version 4) UUIDs in canonical form,
// all in one allocation: a transaction takes three at once.
func newUUIDs(ids []string) {
	buf := make([]byte, 36*len(ids))
	// One read for every id of a lookup (three): each call of
	// crypto/rand.Read pays a fixed cost beyond its bytes.
	var all [16 * 4]byte
	rnd := all[:]
	if 16*len(ids) > len(all) {
		rnd = make([]byte, 16*len(ids))
	}
	_, _ = rand.Read(rnd[:16*len(ids)]) // crypto/rand.Read never fails
	for i := range ids {
		r := rnd[16*i : 16*i+16]
		r[6] = r[6]&0x0f | 0x40
		r[8] = r[8]&0x3f | 0x80
		s := buf[36*i : 36*i+36]
		hex.Encode(s[0:8], r[0:4])
		s[8] = '-'
		hex.Encode(s[9:13], r[4:6])
		s[13] = '-'
		hex.Encode(s[14:18], r[6:8])
		s[18] = '-'
		hex.Encode(s[19:23], r[8:10])
		s[23] = '-'
		hex.Encode(s[24:], r[10:])
	}
	str := unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is never written again
	for i := range ids {
		ids[i] = str[36*i : 36*i+36]
	}
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
