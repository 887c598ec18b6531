package web

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
)

// PathDirectoryServers publishes the directory servers' keys and roots
// that an app hands its 3DS SDK.
const PathDirectoryServers = "/sdk/directory-servers"

// DirectoryServer is one directory server as GET /sdk/directory-servers
// publishes it: what an app's 3DS SDK needs to encrypt the device
// information (sdkEncData) and to check the ACS's signature
// (acsSignedContent).
type DirectoryServer struct {
	// Scheme is the card scheme the server serves; empty for a test
	// directory server (Stripe's test ids).
	Scheme string `json:"scheme,omitempty"`
	// DirectoryServerID is the id an app passes its SDK (a RID).
	DirectoryServerID string `json:"directoryServerId"`
	Name              string `json:"name"`
	// EncryptionKey is the public key sdkEncData is encrypted to, with
	// its kid and use "enc".
	EncryptionKey jose.JWK `json:"encryptionKey"`
	// EncryptionCertificate is the same key in a certificate under the
	// roots (DER, standard base64), as the iOS SDKs take it.
	EncryptionCertificate string `json:"encryptionCertificate,omitempty"`
	// RootCertificates are the roots the SDK trusts acsSignedContent's
	// x5c chain to lead to: DER in standard base64, as SDKs take them.
	RootCertificates []string `json:"rootCertificates"`
}

// DirectoryServers is the body of GET /sdk/directory-servers.
type DirectoryServers struct {
	DirectoryServers []DirectoryServer `json:"directoryServers"`
}

// directoryServersJSON encodes the directory servers of d once: they are
// configuration, fixed while the server runs.
func directoryServersJSON(d *directory.Directory) ([]byte, error) {
	var body DirectoryServers
	for _, s := range d.Servers() {
		ds := DirectoryServer{Scheme: s.Scheme, DirectoryServerID: s.ID, Name: s.Name, EncryptionKey: s.EncryptionKey}
		if s.EncryptionCertificate != nil {
			ds.EncryptionCertificate = base64.StdEncoding.EncodeToString(s.EncryptionCertificate)
		}
		for _, r := range s.Roots {
			ds.RootCertificates = append(ds.RootCertificates, base64.StdEncoding.EncodeToString(r.Raw))
		}
		body.DirectoryServers = append(body.DirectoryServers, ds)
	}
	b, err := json.Marshal(body)
	return append(b, '\n'), err
}

// handleDirectoryServers serves GET {base}/sdk/directory-servers: public
// keys and certificates, for anyone, cacheable.
func (s *Server) handleDirectoryServers(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(s.directoryServers)
}
