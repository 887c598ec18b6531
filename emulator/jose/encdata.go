package jose

import (
	"crypto/ecdh"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
)

// DirectoryKey is a directory server's private key, to which an SDK
// encrypts the device information of an app lookup (sdkEncData). One of
// RSA and EC is set.
type DirectoryKey struct {
	// ID is the directory server's id (its registered application
	// identifier, e.g. A000000003): an EC key's agreement uses it as
	// PartyVInfo.
	ID string
	// Kid is the key's id as published; a JWE naming another kid was
	// encrypted to another key.
	Kid string
	RSA *rsa.PrivateKey
	EC  *ecdh.PrivateKey
}

// cekSize is the size of the content-encryption key of enc.
func cekSize(enc string) (int, error) {
	switch enc {
	case A128CBCHS256, "A256GCM":
		return 32, nil
	case A128GCM:
		return 16, nil
	}
	return 0, fmt.Errorf("%w: enc %q: want %s, %s or A256GCM", ErrUnsupported, enc, A128CBCHS256, A128GCM)
}

// DecryptSDKEncData decrypts an SDK's device information, encrypted to
// the directory server's key k:
//   - to an RSA key, a standard JWE with alg RSA-OAEP-256;
//   - to an EC key, alg dir (the Android SDKs) or ECDH-ES (the iOS SDKs)
//     with the SDK's ephemeral key in epk, the key agreed as DeriveKey does
//     with the directory server's id as PartyVInfo; an ECDH-ES whose key
//     was derived as RFC 7518 section 4.6 says (AlgorithmID the enc) is
//     taken too.
func DecryptSDKEncData(compact []byte, k DirectoryKey) ([]byte, error) {
	j, err := ParseJWE(compact)
	if err != nil {
		return nil, err
	}
	if j.Header.Kid != "" && k.Kid != "" && j.Header.Kid != k.Kid {
		return nil, fmt.Errorf("%w: encrypted to the key %q, not to this directory server's key %q", ErrDecryption, j.Header.Kid, k.Kid)
	}
	size, err := cekSize(j.Header.Enc)
	if err != nil {
		return nil, err
	}
	switch j.Header.Alg {
	case "RSA-OAEP-256":
		if k.RSA == nil {
			return nil, fmt.Errorf("%w: alg RSA-OAEP-256, but this directory server's key is EC: want dir or ECDH-ES with epk", ErrUnsupported)
		}
		cek, err := rsa.DecryptOAEP(sha256.New(), nil, k.RSA, j.EncryptedKey, nil)
		if err != nil || len(cek) != size {
			return nil, ErrDecryption
		}
		return j.open(cek)
	case "dir", "ECDH-ES":
		if k.EC == nil {
			return nil, fmt.Errorf("%w: alg %s, but this directory server's key is RSA: want RSA-OAEP-256", ErrUnsupported, j.Header.Alg)
		}
		if j.Header.EPK == nil {
			return nil, fmt.Errorf("%w: alg %s needs the SDK's ephemeral key in epk", ErrFormat, j.Header.Alg)
		}
		if len(j.EncryptedKey) != 0 {
			return nil, fmt.Errorf("%w: alg %s has an empty encrypted key", ErrFormat, j.Header.Alg)
		}
		epk, err := j.Header.EPK.ECPublicKey()
		if err != nil {
			return nil, fmt.Errorf("%w: epk: %v", ErrFormat, err)
		}
		return openAgreed(j, k, epk, size)
	}
	return nil, fmt.Errorf("%w: alg %q: want RSA-OAEP-256 for an RSA key, dir or ECDH-ES for an EC key", ErrUnsupported, j.Header.Alg)
}

// openAgreed decrypts j with the key k agrees with the SDK's epk, as the
// SDKs derive it, or else as RFC 7518 does.
func openAgreed(j *JWE, k DirectoryKey, epk *ecdh.PublicKey, size int) ([]byte, error) {
	z, err := k.EC.ECDH(epk)
	if err != nil {
		return nil, fmt.Errorf("%w: epk: %v", ErrFormat, err)
	}
	pt, err := j.open(ConcatKDF(z, "", nil, []byte(k.ID), size))
	if err == nil || !errors.Is(err, ErrDecryption) || j.Header.Alg != "ECDH-ES" {
		return pt, err
	}
	return j.open(ConcatKDF(z, j.Header.Enc, nil, nil, size))
}
