package devicesync

import (
	"crypto/ed25519"
	"errors"
	"testing"
)

func TestSignatureScheme(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	otherPub, otherKey, _ := ed25519.GenerateKey(nil)
	me := DeviceIDFromPublicKey(pub)
	sig := sign(key, sigDomainOp, me, []byte("ab"), []byte("c"))
	if err := verify(pub, sigDomainOp, me, sig, []byte("ab"), []byte("c")); err != nil {
		t.Fatalf("own signature: %v", err)
	}
	cases := []struct {
		name   string
		pub    ed25519.PublicKey
		domain string
		sig    []byte
		fields [][]byte
		want   error
	}{
		{"field boundary moved", pub, sigDomainOp, sig, [][]byte{[]byte("a"), []byte("bc")}, ErrBadSignature},
		{"field changed", pub, sigDomainOp, sig, [][]byte{[]byte("ab"), []byte("d")}, ErrBadSignature},
		{"field added", pub, sigDomainOp, sig, [][]byte{[]byte("ab"), []byte("c"), nil}, ErrBadSignature},
		{"other domain", pub, sigDomainCoordination, sig, [][]byte{[]byte("ab"), []byte("c")}, ErrBadSignature},
		{"truncated", pub, sigDomainOp, sig[:40], [][]byte{[]byte("ab"), []byte("c")}, ErrBadSignature},
		{"unsigned", pub, sigDomainOp, nil, [][]byte{[]byte("ab"), []byte("c")}, ErrNoSignature},
		{"key of another device", otherPub, sigDomainOp, sig, [][]byte{[]byte("ab"), []byte("c")}, ErrUnknownKey},
		{"no key held", nil, sigDomainOp, sig, [][]byte{[]byte("ab"), []byte("c")}, ErrUnknownKey},
		{"re-signed by another in my name", pub, sigDomainOp, sign(otherKey, sigDomainOp, me, []byte("ab"), []byte("c")), [][]byte{[]byte("ab"), []byte("c")}, ErrBadSignature},
	}
	for _, c := range cases {
		if err := verify(c.pub, c.domain, DeviceIDFromPublicKey(pub), c.sig, c.fields...); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	compact, err := compactJSON([]byte("{ \"a\" : [1, 2] }"))
	if err != nil || string(compact) != `{"a":[1,2]}` {
		t.Fatalf("compactJSON = %s, %v", compact, err)
	}
	if _, err := compactJSON([]byte("{")); err == nil {
		t.Fatal("compactJSON accepted broken JSON")
	}
}
