package main

// The binary carries the Mozilla set of root certificates, which Go uses
// only where the system has none: in the image, built FROM scratch, and
// on minimal hosts. So a rediss:// store with a publicly signed
// certificate (a managed Redis) is verified wherever the binary runs,
// with no CA bundle beside it; --store-ca-file names a private authority.
import _ "golang.org/x/crypto/x509roots/fallback"
