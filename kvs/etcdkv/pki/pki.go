// Package pki creates and reads a cluster directory: a certificate authority and one
// certificate it issued, which serves both as etcd's server certificate and as the
// client certificate agents present. The directory and every file in it are readable by
// their owner only; whoever holds a copy is a member of the cluster.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The files of a cluster directory.
const (
	CAFile   = "ca.pem"
	CertFile = "member.pem"
	KeyFile  = "member-key.pem"
)

// Dir is a cluster directory.
type Dir string

// CA, Cert and Key are the paths of the directory's files.
func (d Dir) CA() string   { return filepath.Join(string(d), CAFile) }
func (d Dir) Cert() string { return filepath.Join(string(d), CertFile) }
func (d Dir) Key() string  { return filepath.Join(string(d), KeyFile) }

// Exists says whether d holds a CA.
func (d Dir) Exists() bool {
	_, err := os.Stat(d.CA())
	return err == nil
}

// Init creates a cluster directory (mode 0700, files 0600) with a new CA and a member
// certificate valid for loopback, this host's name and hosts (names or IPs). It refuses
// to overwrite an existing CA.
func Init(dir string, hosts ...string) (Dir, error) {
	d := Dir(dir)
	if d.Exists() {
		return d, fmt.Errorf("pki: %s already holds a cluster CA", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return d, fmt.Errorf("pki: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return d, fmt.Errorf("pki: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return d, err
	}
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "couplet cluster CA"},
		NotBefore:             now,
		NotAfter:              now.AddDate(10, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return d, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return d, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "couplet member"},
		NotBefore:    now,
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:     []string{"localhost"},
	}
	if h, err := os.Hostname(); err == nil {
		tmpl.DNSNames = append(tmpl.DNSNames, h)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return d, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return d, err
	}
	for _, f := range []struct {
		path, typ string
		der       []byte
	}{{d.CA(), "CERTIFICATE", caDER}, {d.Cert(), "CERTIFICATE", der}, {d.Key(), "EC PRIVATE KEY", keyDER}} {
		if err := writePEM(f.path, f.typ, f.der); err != nil {
			return d, err
		}
	}
	// The CA's key is not kept: the cluster's members share the one member certificate,
	// and a new member is a copy of this directory.
	return d, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

func writePEM(path, typ string, der []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if err := pem.Encode(f, &pem.Block{Type: typ, Bytes: der}); err != nil {
		f.Close()
		return fmt.Errorf("pki: %w", err)
	}
	return f.Close()
}

// Check refuses a directory that others may read: its key admits to the cluster.
func (d Dir) Check() error {
	for _, p := range []string{string(d), d.Key()} {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pki: %w", err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("pki: %s has mode %v; the cluster directory must be its owner's only (chmod 700 dir, 600 files)", p, st.Mode().Perm())
		}
	}
	return nil
}

// ClientTLS is the TLS configuration of a cluster member dialling etcd: it trusts only
// the cluster CA and presents the member certificate.
func (d Dir) ClientTLS() (*tls.Config, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(d.Cert(), d.Key())
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	pem, err := os.ReadFile(d.CA())
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("pki: no certificate in " + d.CA())
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
