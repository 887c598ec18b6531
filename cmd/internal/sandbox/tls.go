package sandbox

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// maxCAFileBytes bounds a --store-ca-file: a bundle of every public root
// is about 250 KB.
const maxCAFileBytes = 4 << 20

// loadCAFile reads the certificate authorities of a PEM file: one
// certificate or more, and nothing that is not a certificate.
func loadCAFile(path string) (*x509.CertPool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxCAFileBytes {
		return nil, fmt.Errorf("%d bytes, want at most %d", info.Size(), maxCAFileBytes)
	}
	rest, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	n := 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("holds a %s; want only certificates (PEM)", block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, errors.New("holds no PEM certificate")
	}
	return pool, nil
}
