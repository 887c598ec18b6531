package jose

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// KeySize is the size in bytes of the key a CReq/CRes exchange shares:
// 256 bits, the whole of it for A128CBC-HS256, one half a direction for
// A128GCM.
const KeySize = 32

// ConcatKDF derives size bytes from the shared secret z with the Concat
// KDF of NIST SP 800-56A section 5.8.1 over SHA-256, as RFC 7518 section
// 4.6.2 uses it: OtherInfo is AlgorithmID, PartyUInfo and PartyVInfo, each
// preceded by its length as a 32-bit big-endian number, then SuppPubInfo,
// the key's size in bits as a 32-bit big-endian number.
func ConcatKDF(z []byte, algorithmID string, partyUInfo, partyVInfo []byte, size int) []byte {
	var other []byte
	for _, part := range [][]byte{[]byte(algorithmID), partyUInfo, partyVInfo} {
		other = binary.BigEndian.AppendUint32(other, uint32(len(part)))
		other = append(other, part...)
	}
	other = binary.BigEndian.AppendUint32(other, uint32(size*8))
	out := make([]byte, 0, size+sha256.Size)
	for counter := uint32(1); len(out) < size; counter++ {
		h := sha256.New()
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], counter)
		h.Write(c[:])
		h.Write(z)
		h.Write(other)
		out = h.Sum(out)
	}
	return out[:size]
}

// DeriveKey is the key agreement of EMV 3DS (SDK technical guide section
// 3.3.4) between the ACS's or the SDK's private key and the other's public
// key: ECDH on P-256, then the Concat KDF into 256 bits with an empty
// AlgorithmID, an empty PartyUInfo and partyVInfo as PartyVInfo. For a
// CReq/CRes exchange partyVInfo is the SDK's reference number
// (sdkReferenceNumber of the lookup); for an SDK's device information
// encrypted to a directory server's EC key, the directory server's id.
func DeriveKey(priv *ecdh.PrivateKey, pub *ecdh.PublicKey, partyVInfo string) ([]byte, error) {
	if priv == nil || pub == nil {
		return nil, errors.New("jose: key agreement needs both keys")
	}
	if priv.Curve() != ecdh.P256() || pub.Curve() != ecdh.P256() {
		return nil, errors.New("jose: key agreement takes P-256 keys only")
	}
	z, err := priv.ECDH(pub)
	if err != nil {
		return nil, fmt.Errorf("jose: key agreement: %w", err)
	}
	return ConcatKDF(z, "", nil, []byte(partyVInfo), KeySize), nil
}
