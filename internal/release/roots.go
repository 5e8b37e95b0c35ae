package release

import (
	"bytes"
	"encoding/pem"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// CABundlePath is where the image keeps its CA certificates: the first file
// Go's crypto/x509 looks for on Linux.
const CABundlePath = "/etc/ssl/certs/ca-certificates.crt"

// CABundle is the PEM bundle of the Mozilla (NSS) root certificates of the
// pinned golang.org/x/crypto/x509roots/fallback module: the same bytes on
// every machine that builds the image, and moved on by updating that module.
// Roots that NSS trusts only with a constraint X.509 cannot express (a
// distrust-after date) are left out rather than trusted without it.
//
// The image carries it as a file rather than the binary importing the
// fallback package, which would parse every root at each start of every
// copy of the binary, desktops included, where the system's roots serve.
func CABundle() []byte {
	var b bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})
	}
	return b.Bytes()
}
