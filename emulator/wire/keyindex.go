package wire

import "math/bits"

// keyIndex finds a key among the accepted names of one object's rules
// with one string comparison at most, cheaper than hashing the key for a
// map: a slot of a small table, chosen by a hash of the key's length and
// first and last eight bytes, names the only name the key may be, and the
// seed of the hash is chosen when the package loads so that no two names
// share a slot.
type keyIndex struct {
	names []ruleName
	// slots[keyHash(key)] is one more than the place in names of the name
	// that may be key, or 0 when none may.
	slots [1 << indexBits]uint8
	seed  uint64
}

// ruleName is one accepted key, its rule and its place among the rule's
// names, with the words keyHash read of it.
type ruleName struct {
	name       string
	head, tail uint64 // its first and last eight bytes, when it has eight
	mid        uint64 // its bytes 8 to 15, when it has more than 16
	rule       uint8
	nth        uint8
}

// indexBits sizes a keyIndex: 256 slots for the few dozen names of an
// object, so that a seed without collisions comes quickly.
const indexBits = 8

// keyWords returns the words a keyIndex reads of key: its first and last
// eight bytes when it has eight (they overlap when it has fewer than 16),
// else its first, middle and last byte; and the hash of them, to be
// multiplied by the seed.
func keyWords(key string) (hash, head, tail uint64) {
	n := len(key)
	switch {
	case n >= 8:
		head, tail = word(key, 0), word(key, n-8)
		hash = head ^ bits.RotateLeft64(tail, 29)
	case n > 0:
		hash = uint64(key[0]) | uint64(key[n>>1])<<8 | uint64(key[n-1])<<16
	}
	return hash ^ uint64(n)<<40, head, tail
}

// slot spreads a hash of keyWords over the slots by the seed.
func (x *keyIndex) slot(hash uint64) uint8 {
	return uint8((hash * x.seed) >> (64 - indexBits))
}

// newKeyIndex indexes names; it panics when no seed gives each name its
// own slot (two names of one object alike in length and the bytes
// keyWords reads).
func newKeyIndex(names []ruleName) keyIndex {
	if len(names) >= 1<<indexBits/2 {
		panic("wire: too many names in one object for its index")
	}
	x := keyIndex{names: names, seed: 0x9E3779B97F4A7C15} // odd, so that the product spreads
	for i := range names {
		_, names[i].head, names[i].tail = keyWords(names[i].name)
		if len(names[i].name) > 16 {
			names[i].mid = word(names[i].name, 8)
		}
	}
	for range 1 << 16 {
		x.slots = [1 << indexBits]uint8{}
		ok := true
		for i, n := range names {
			h, _, _ := keyWords(n.name)
			if s := x.slot(h); x.slots[s] == 0 {
				x.slots[s] = uint8(i + 1)
			} else {
				ok = false
				break
			}
		}
		if ok {
			return x
		}
		x.seed += 0x3C6EF372FE94F82A // still odd: another multiplier
	}
	panic("wire: no seed gives the names of one object a slot each")
}

// find returns the rule of the name key is, and which of the rule's names.
func (x *keyIndex) find(key string) (rule, nth int, ok bool) {
	// keyWords, written out: it is too large to be inlined.
	n := len(key)
	var h, head, tail uint64
	switch {
	case n >= 8:
		head, tail = word(key, 0), word(key, n-8)
		h = head ^ bits.RotateLeft64(tail, 29)
	case n > 0:
		h = uint64(key[0]) | uint64(key[n>>1])<<8 | uint64(key[n-1])<<16
	}
	i := x.slots[x.slot(h^uint64(n)<<40)]
	if i == 0 {
		return 0, 0, false
	}
	name := &x.names[i-1]
	if len(name.name) != n {
		return 0, 0, false
	}
	// Equal lengths: the words decide up to 16 bytes, with the middle
	// word up to 24, and leave the middle of a longer key to compare.
	if n >= 8 {
		if name.head != head || name.tail != tail {
			return 0, 0, false
		}
		if n > 16 && name.mid != word(key, 8) || n > 24 && name.name[16:n-8] != key[16:n-8] {
			return 0, 0, false
		}
	} else if name.name != key {
		return 0, 0, false
	}
	return int(name.rule), int(name.nth), true
}
