// Package directory holds the directory servers the sandbox stands in for
// on the app channel: for each, its id, the key an SDK encrypts the
// device information to (sdkEncData), the root certificates an app trusts
// for it, and the key and certificate chain the sandbox's ACS signs its
// answer to the SDK with (acsSignedContent), chained to those roots.
//
// The keys are configuration, read once: the embedded defaults are fixed
// test keys, published as such (Default); a directory of the same layout
// replaces them (Load). Every replica given the same keys answers the same
// keys and roots, before and after a restart.
package directory

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"embed"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
)

// ManifestFile names the manifest of a key directory: the directory
// servers and the files of their keys and certificates.
const ManifestFile = "directory-servers.json"

//go:embed keys
var embedded embed.FS

// Server is one directory server.
type Server struct {
	// Scheme is the card scheme whose cards the server serves (VISA...),
	// or "" for a test directory server that serves none by itself
	// (Stripe's test ids F055545342 and F155545342).
	Scheme string
	// ID is the directory server's id, its registered application
	// provider identifier (RID): what an app passes its 3DS SDK.
	ID string
	// Name says what the server is, for people.
	Name string
	// Key is the private key sdkEncData is encrypted to; EncryptionKey
	// its public half as published (kid, use enc).
	Key           jose.DirectoryKey
	EncryptionKey jose.JWK
	// EncryptionCertificate certifies EncryptionKey under Roots, as DER:
	// what the iOS SDKs take the key in; nil when the key directory
	// gives none.
	EncryptionCertificate []byte
	// Roots are the root certificates an app trusts for the server.
	Roots []*x509.Certificate
	// ACS is the key and chain the ACS signs acsSignedContent with for
	// the server's cards: the chain leads to Roots.
	ACS Signer
}

// Signer is a key with its certificate chain, leaf first, as DER: what
// signs a JWS with x5c.
type Signer struct {
	Key   crypto.Signer
	Chain [][]byte
}

// Directory is the set of directory servers. It is immutable once built
// and safe for concurrent use.
type Directory struct {
	servers  []Server
	byScheme map[string]*Server
	byKid    map[string]*Server
	byID     map[string]*Server
	// rogue signs with a key outside every published root (the fault
	// that tests an SDK's check of acsSignedContent).
	rogue Signer
}

// Servers lists the directory servers in the manifest's order.
func (d *Directory) Servers() []Server { return d.servers }

// ForScheme returns the directory server of a card scheme.
func (d *Directory) ForScheme(scheme string) (*Server, bool) {
	s, ok := d.byScheme[scheme]
	return s, ok
}

// ForKid returns the directory server whose encryption key has kid.
func (d *Directory) ForKid(kid string) (*Server, bool) {
	s, ok := d.byKid[kid]
	return s, ok
}

// ForID returns the directory server with id.
func (d *Directory) ForID(id string) (*Server, bool) {
	s, ok := d.byID[id]
	return s, ok
}

// Rogue signs as an ACS no published root vouches for.
func (d *Directory) Rogue() Signer { return d.rogue }

// Default returns the embedded directory servers: fixed test keys, public
// in the sandbox's sources and docs, never to be trusted for anything but
// tests.
func Default() (*Directory, error) { return Load(EmbeddedKeys()) }

// EmbeddedKeys is the directory of the embedded test keys, in Load's
// layout: a template for a key directory of one's own.
func EmbeddedKeys() fs.FS {
	sub, err := fs.Sub(embedded, "keys")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	return sub
}

// manifestServer is one directory server of the manifest.
type manifestServer struct {
	Scheme        string `json:"scheme"`
	ID            string `json:"id"`
	Name          string `json:"name"`
	Kid           string `json:"kid"`
	EncryptionKey string `json:"encryptionKey"`
	// EncryptionCertificate is optional.
	EncryptionCertificate string   `json:"encryptionCertificate,omitempty"`
	Roots                 []string `json:"roots"`
	ACSKey                string   `json:"acsKey"`
	ACSCertificates       []string `json:"acsCertificates"`
}

// manifest is the JSON of ManifestFile; file names are relative to it.
type manifest struct {
	DirectoryServers []manifestServer `json:"directoryServers"`
	Rogue            struct {
		ACSKey          string   `json:"acsKey"`
		ACSCertificates []string `json:"acsCertificates"`
	} `json:"rogue"`
}

// validID is the form of a directory server id: a RID, five bytes in hex.
var validID = regexp.MustCompile(`^[A-F0-9]{10}$`)

// Load reads the directory servers of fsys: its ManifestFile and the PEM
// files it names. Every error names the file and what is wrong.
func Load(fsys fs.FS) (*Directory, error) {
	raw, err := fs.ReadFile(fsys, ManifestFile)
	if err != nil {
		return nil, fmt.Errorf("directory servers: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("directory servers: %s: %w", ManifestFile, err)
	}
	if len(m.DirectoryServers) == 0 {
		return nil, fmt.Errorf("directory servers: %s lists none", ManifestFile)
	}
	d := &Directory{byScheme: map[string]*Server{}, byKid: map[string]*Server{}, byID: map[string]*Server{}}
	for _, e := range m.DirectoryServers {
		where := fmt.Sprintf("directory servers: %s: %s", ManifestFile, e.ID)
		switch {
		case !validID.MatchString(e.ID):
			return nil, fmt.Errorf("directory servers: %s: id %q is not ten upper-case hex digits", ManifestFile, e.ID)
		case d.byID[e.ID] != nil:
			return nil, fmt.Errorf("%s: listed twice", where)
		case e.Kid == "":
			return nil, fmt.Errorf("%s: no kid", where)
		}
		s := Server{Scheme: e.Scheme, ID: e.ID, Name: e.Name}
		priv, err := readKey(fsys, e.EncryptionKey)
		if err != nil {
			return nil, fmt.Errorf("%s: encryptionKey: %w", where, err)
		}
		s.Key = jose.DirectoryKey{ID: e.ID, Kid: e.Kid}
		switch k := priv.(type) {
		case *rsa.PrivateKey:
			s.Key.RSA, s.EncryptionKey = k, jose.RSAPublicJWK(&k.PublicKey)
		case *ecdsa.PrivateKey:
			ek, err := k.ECDH()
			if err != nil || ek.Curve() != ecdh.P256() {
				return nil, fmt.Errorf("%s: encryptionKey: an EC key must be on P-256", where)
			}
			s.Key.EC, s.EncryptionKey = ek, jose.ECPublicJWK(ek.PublicKey())
		default:
			return nil, fmt.Errorf("%s: encryptionKey: an RSA or P-256 key, got %T", where, priv)
		}
		s.EncryptionKey.Kid, s.EncryptionKey.Use = e.Kid, "enc"
		if s.Roots, err = readCertificates(fsys, e.Roots); err != nil {
			return nil, fmt.Errorf("%s: roots: %w", where, err)
		}
		if e.EncryptionCertificate != "" {
			enc, err := readSigner(fsys, e.EncryptionKey, []string{e.EncryptionCertificate})
			if err != nil {
				return nil, fmt.Errorf("%s: encryptionCertificate: %w", where, err)
			}
			if err := chainsTo(enc, s.Roots); err != nil {
				return nil, fmt.Errorf("%s: the encryption key's certificate does not lead to the roots: %w", where, err)
			}
			s.EncryptionCertificate = enc.Chain[0]
		}
		if s.ACS, err = readSigner(fsys, e.ACSKey, e.ACSCertificates); err != nil {
			return nil, fmt.Errorf("%s: acs: %w", where, err)
		}
		if err := chainsTo(s.ACS, s.Roots); err != nil {
			return nil, fmt.Errorf("%s: the ACS's certificates do not lead to the roots: %w", where, err)
		}
		d.servers = append(d.servers, s)
	}
	for i := range d.servers {
		s := &d.servers[i]
		d.byID[s.ID] = s
		if d.byKid[s.Key.Kid] != nil {
			return nil, fmt.Errorf("directory servers: %s: kid %q is used twice", ManifestFile, s.Key.Kid)
		}
		d.byKid[s.Key.Kid] = s
		if s.Scheme != "" {
			if d.byScheme[s.Scheme] != nil {
				return nil, fmt.Errorf("directory servers: %s: two servers for scheme %s", ManifestFile, s.Scheme)
			}
			d.byScheme[s.Scheme] = s
		}
	}
	if m.Rogue.ACSKey != "" {
		var err error
		if d.rogue, err = readSigner(fsys, m.Rogue.ACSKey, m.Rogue.ACSCertificates); err != nil {
			return nil, fmt.Errorf("directory servers: %s: rogue: %w", ManifestFile, err)
		}
		for _, s := range d.servers {
			if chainsTo(d.rogue, s.Roots) == nil {
				return nil, fmt.Errorf("directory servers: %s: the rogue ACS's certificates lead to the roots of %s", ManifestFile, s.ID)
			}
		}
	}
	return d, nil
}

// readSigner reads a private key and its chain, and checks that the leaf
// certifies the key.
func readSigner(fsys fs.FS, keyFile string, certFiles []string) (Signer, error) {
	priv, err := readKey(fsys, keyFile)
	if err != nil {
		return Signer{}, err
	}
	certs, err := readCertificates(fsys, certFiles)
	if err != nil {
		return Signer{}, err
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	if pub, ok := priv.Public().(equaler); !ok || !pub.Equal(certs[0].PublicKey) {
		return Signer{}, fmt.Errorf("%s does not certify the key of %s", certFiles[0], keyFile)
	}
	s := Signer{Key: priv}
	for _, c := range certs {
		s.Chain = append(s.Chain, c.Raw)
	}
	return s, nil
}

// chainsTo checks that s's chain leads to one of roots.
func chainsTo(s Signer, roots []*x509.Certificate) error {
	pool, inter := x509.NewCertPool(), x509.NewCertPool()
	for _, r := range roots {
		pool.AddCert(r)
	}
	leaf, err := x509.ParseCertificate(s.Chain[0])
	if err != nil {
		return err
	}
	for _, der := range s.Chain[1:] {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return err
		}
		inter.AddCert(c)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
		CurrentTime: leaf.NotBefore})
	return err
}

// readKey reads one PEM private key (PKCS #8, PKCS #1 or SEC 1).
func readKey(fsys fs.FS, name string) (crypto.Signer, error) {
	block, err := readPEM(fsys, name)
	if err != nil {
		return nil, err
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%s: a PEM private key, got a %q block", name, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: an RSA or EC key, got %T", name, key)
	}
	return s, nil
}

// readCertificates reads at least one PEM certificate from the files.
func readCertificates(fsys fs.FS, names []string) ([]*x509.Certificate, error) {
	if len(names) == 0 {
		return nil, errors.New("no certificate file")
	}
	var certs []*x509.Certificate
	for _, name := range names {
		block, err := readPEM(fsys, name)
		if err != nil {
			return nil, err
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%s: a PEM certificate, got a %q block", name, block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}

// readPEM reads the one PEM block of a file.
func readPEM(fsys fs.FS, name string) (*pem.Block, error) {
	if name == "" || !fs.ValidPath(name) || path.IsAbs(name) {
		return nil, fmt.Errorf("%q is not a file name inside the key directory", name)
	}
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block", name)
	}
	return block, nil
}
