// Package jose is the app channel's cryptography, and nothing else of the
// sandbox: the key agreement between a 3DS SDK and the ACS (ECDH on P-256
// and the Concat KDF of NIST SP 800-56A, as EMV 3DS and the SDKs use it),
// the compact JWE with alg "dir" that carries every CReq and CRes (enc
// A128CBC-HS256 or A128GCM), the device information an SDK encrypts to the
// directory server's key (sdkEncData: RSA-OAEP-256, or an EC key), the
// compact JWS with an x5c chain that signs the ACS's answer to the SDK
// (acsSignedContent), and the JSON Web Keys they name.
//
// It imports nothing of the project, reads no configuration and keeps no
// state: keys come in as arguments. Every parser bounds what it reads
// (MaxCompact) and refuses what it does not know with an error that names
// the part at fault; none panics on outside input.
package jose
