package app

import (
	"crypto/ed25519"
	"errors"
	"testing"
)

// carryingTransport is a fake transport that can carry others' traffic.
type carryingTransport struct {
	*fakeTransport
	on bool
}

func (c *carryingTransport) SetCarry(on bool) { c.on = on }
func (c *carryingTransport) Carries() bool    { return c.on }

// The choice to carry others' traffic is applied at once and kept for
// the next launch; a transport that cannot carry says so.
func TestSetCarryIsKept(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	db := openSyncDB(t, t.TempDir(), key)
	if _, set := CarrySetting(db); set {
		t.Fatal("a new database has a carry choice")
	}
	tr := &carryingTransport{fakeTransport: newFakeTransport(nil, "dev-a")}
	a := &App{tr: tr, store: db}
	if err := a.SetCarry(true); err != nil {
		t.Fatal(err)
	}
	if !tr.on || !a.Carry() {
		t.Error("SetCarry(true) did not reach the transport")
	}
	if on, set := CarrySetting(db); !on || !set {
		t.Errorf("stored choice %v (set %v), want on", on, set)
	}
	if err := a.SetCarry(false); err != nil {
		t.Fatal(err)
	}
	if on, set := CarrySetting(db); on || !set || tr.on {
		t.Errorf("after SetCarry(false): stored %v (set %v), transport %v", on, set, tr.on)
	}
	b := &App{tr: newFakeTransport(nil, "dev-b"), store: db}
	if err := b.SetCarry(true); !errors.Is(err, ErrNoCarrier) {
		t.Errorf("SetCarry on a transport that cannot carry: %v", err)
	}
}
