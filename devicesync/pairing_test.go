package devicesync

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

func pairAsync(n *testNode, code string) chan error {
	errc := make(chan error, 1)
	go func() { errc <- n.Pair(context.Background(), code) }()
	return errc
}

func waitErr(t *testing.T, errc chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(waitTimeout):
		t.Fatal("Pair did not return")
		return nil
	}
}

// rewriteInvite decodes code, lets edit change it, and re-encodes it.
func rewriteInvite(t *testing.T, code string, edit func(*invitePayload)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(code, invitePrefix))
	if err != nil {
		t.Fatal(err)
	}
	var p invitePayload
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	edit(&p)
	return encodeInvite(p)
}

func TestInviteCodeShape(t *testing.T) {
	a := startNode(t, "a")
	code, exp, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	p, key, err := decodeInvite(code)
	if err != nil {
		t.Fatal(err)
	}
	if p.V != 1 || p.D != a.ID() || len(p.I) != 16 || len(p.S) != 32 || DeviceIDFromPublicKey(key) != a.ID() {
		t.Fatalf("payload %+v", p)
	}
	if got := time.Until(exp); got < InviteTTL-time.Minute || got > InviteTTL {
		t.Fatalf("expires in %v", got)
	}
	if strings.Contains(code, "=") {
		t.Fatal("invite is padded")
	}
	rec, err := a.store.LoadInvite(p.I)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec.SecretHash), p.S) || !rec.matches(p.S) || rec.matches(strings.Repeat("0", 32)) {
		t.Fatal("stored invite must hold only a hash that matches the secret")
	}
	for _, bad := range []string{"", "frid://i/", "frid://x/abc", invitePrefix + "!!!", rewriteInvite(t, code, func(p *invitePayload) { p.D = mkID(9) })} {
		if _, _, err := decodeInvite(bad); !errors.Is(err, ErrInviteMalformed) {
			t.Errorf("decodeInvite(%.30q) = %v", bad, err)
		}
	}
}

func TestPairWithWrongSecretIsRefused(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	code, _, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	bad := rewriteInvite(t, code, func(p *invitePayload) { p.S = strings.Repeat("ab", 16) })
	if err := waitErr(t, pairAsync(b, bad)); !errors.Is(err, ErrInviteInvalid) {
		t.Fatalf("Pair = %v, want ErrInviteInvalid", err)
	}
	if len(a.Pending()) != 0 || a.isMember(b.ID()) {
		t.Fatal("wrong secret created a request or a member")
	}
}

func TestExpiredInviteIsRefused(t *testing.T) {
	clock := newFakeClock()
	a := startNode(t, "a", withClock(clock))
	b := startNode(t, "b", withClock(clock))
	code, _, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(InviteTTL + time.Second)
	if err := b.Pair(context.Background(), code); !errors.Is(err, ErrInviteExpired) {
		t.Fatalf("requester-side: %v", err)
	}
	// A requester whose clock lags still gets refused by the inviter.
	c := startNode(t, "c", withClock(newFakeClock()))
	if err := waitErr(t, pairAsync(c, code)); !errors.Is(err, ErrInviteExpired) {
		t.Fatalf("inviter-side: %v", err)
	}
	if a.isMember(c.ID()) {
		t.Fatal("expired invite admitted a device")
	}
}

// An invite admits one device, and has one request waiting at a time: a
// second device asking with it is told the invite is taken and keeps
// asking; once the first is accepted, it is told the invite is used.
func TestInviteAdmitsOneDevice(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	c := startNode(t, "c")
	code, _, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	eb := pairAsync(b, code)
	rb := waitEvent(a, func(r PairingRequest) bool { return r.DeviceID == b.ID() })
	inv, _, err := decodeInvite(code)
	if err != nil {
		t.Fatal(err)
	}
	if p, st := askRaw(t, a, inv, "b"); st != statusInviteTaken || !p.closedByPeer() {
		t.Fatalf("second request with the invite: %s", st)
	}
	ec := pairAsync(c, code)
	if got := a.Pending(); len(got) != 1 || got[0].DeviceID != b.ID() {
		t.Fatalf("pending = %+v", got)
	}
	if err := a.Accept(rb.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, eb); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, ec); !errors.Is(err, ErrInviteInvalid) {
		t.Fatalf("second device: %v", err)
	}
	d := startNode(t, "d")
	if err := waitErr(t, pairAsync(d, code)); !errors.Is(err, ErrInviteInvalid) {
		t.Fatalf("reuse: %v", err)
	}
	if a.isMember(c.ID()) || a.isMember(d.ID()) || !a.isMember(b.ID()) {
		t.Fatalf("members %+v", a.Devices())
	}
}

func TestDeniedPairingStaysOut(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	code, _, _ := a.CreateInvite()
	errc := pairAsync(b, code)
	r := waitEvent(a, func(PairingRequest) bool { return true })
	if err := a.Deny(r.ID); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, errc); !errors.Is(err, ErrPairDenied) {
		t.Fatalf("Pair = %v", err)
	}
	if err := a.Accept(r.ID, false); !errors.Is(err, ErrUnknownRequest) {
		t.Fatalf("Accept after Deny = %v", err)
	}
	if a.isMember(b.ID()) || b.Group() == a.Group() {
		t.Fatal("denied device joined")
	}
}

// Furumi's rule: a requester from another multi-device group gives the
// inviter the choice; choosing "join theirs" moves the inviter.
func TestGroupConflictJoinTheirs(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	c := startNode(t, "c")
	d := startNode(t, "d")
	pair(t, a, b)
	pair(t, c, d)

	code, _, _ := a.CreateInvite()
	errc := pairAsync(c, code)
	r := waitEvent(a, func(r PairingRequest) bool { return r.DeviceID == c.ID() })
	if !r.GroupConflict {
		t.Fatal("no group conflict reported")
	}
	if err := a.Accept(r.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, errc); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("a in c's group", func() bool { return a.Group() == c.Group() })
	connected(t, a, c)
	connected(t, a, d)
	if a.isMember(b.ID()) {
		t.Fatal("a kept its old group's member")
	}
	b.waitUntil("b lost a", func() bool { return !b.isOnline(a.ID()) })
	// a revoked itself in its old group on its way out.
	b.waitUntil("b learns that a left", func() bool { return !b.isMember(a.ID()) })

	// No conflict for a device that is a group of one.
	e := startNode(t, "e")
	code, _, _ = a.CreateInvite()
	errc = pairAsync(e, code)
	r = waitEvent(a, func(r PairingRequest) bool { return r.DeviceID == e.ID() })
	if r.GroupConflict {
		t.Fatal("conflict for a group of one")
	}
	if err := a.Accept(r.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, errc); err != nil {
		t.Fatal(err)
	}
	connected(t, e, d)
}

// askRaw sends a pairing request with inv from a fresh key named name and
// returns the connection and the answer's status.
func askRaw(t *testing.T, a *testNode, inv invitePayload, name string) (*rawPeer, string) {
	t.Helper()
	return askRawFrom(t, a, inv, name, nil)
}

// askRawFrom is askRaw from the local address from.
func askRawFrom(t *testing.T, a *testNode, inv invitePayload, name string, from net.IP) (*rawPeer, string) {
	t.Helper()
	k := newKey(t)
	p, err := dialRawFrom(t, a.Addr().String(), k, from)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.send(pairRequestMsg{Type: typePairRequest, InviteID: inv.I, Secret: inv.S, Profile: profile{DeviceID: DeviceIDFromPublicKey(k.Public().(ed25519PublicKey)), Name: name}, Group: NewGroupID(), GroupDevices: 1})
	return p, p.readType(typePairResponse).(pairResponseMsg).Status
}

func newInvite(t *testing.T, a *testNode) (string, invitePayload) {
	t.Helper()
	code, _, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	inv, _, err := decodeInvite(code)
	if err != nil {
		t.Fatal(err)
	}
	return code, inv
}

func TestPendingRequestsAreBounded(t *testing.T) {
	a := startNode(t, "a")
	for i := range MaxPendingPairings {
		_, inv := newInvite(t, a)
		if _, st := askRawFrom(t, a, inv, "x", otherSource(t)); st != statusPending {
			t.Fatalf("request %d: %s", i, st)
		}
	}
	_, inv := newInvite(t, a)
	p, st := askRawFrom(t, a, inv, "x", otherSource(t))
	if st != statusBusy || !p.closedByPeer() {
		t.Fatalf("request over the limit: %s", st)
	}
	if got := len(a.Pending()); got != MaxPendingPairings {
		t.Fatalf("pending = %d", got)
	}
}

// Look-alike requests with one invite (all named like the real device)
// take one place, not all of them: a real device pairing with a fresh
// invite is asked about at once, with its fingerprint, the one it shows as
// its own. A denied request frees its place at once, and the denied
// device's retries are denied again.
func TestLookAlikeRequestsTakeOnePlace(t *testing.T) {
	a := startNode(t, "a")
	real := startNode(t, "Kitchen")
	_, inv := newInvite(t, a)
	if _, st := askRaw(t, a, inv, "Kitchen"); st != statusPending {
		t.Fatalf("first look-alike: %s", st)
	}
	for range MaxPendingPairings {
		if _, st := askRaw(t, a, inv, "Kitchen"); st != statusInviteTaken {
			t.Fatalf("look-alike: %s", st)
		}
	}
	code, _ := newInvite(t, a)
	errc := pairAsync(real, code)
	r := waitEvent(a, func(r PairingRequest) bool { return r.DeviceID == real.ID() })
	if r.Fingerprint == "" || r.Fingerprint != real.Devices()[0].Fingerprint || r.Name != "Kitchen" {
		t.Fatalf("request %+v, the device shows itself as %+v", r, real.Devices()[0])
	}
	if got := len(a.Pending()); got != 2 {
		t.Fatalf("pending = %d, want the look-alike and the real one", got)
	}
	for _, p := range a.Pending() {
		if p.DeviceID != real.ID() && p.Fingerprint == r.Fingerprint {
			t.Fatal("a look-alike shows the real device's fingerprint")
		}
	}
	if err := a.Deny(r.ID); err != nil {
		t.Fatal(err)
	}
	if got := len(a.Pending()); got != 1 {
		t.Fatalf("pending after a denial = %d, want its place freed", got)
	}
	if err := waitErr(t, errc); !errors.Is(err, ErrPairDenied) {
		t.Fatalf("denied device: %v", err)
	}
	if err := waitErr(t, pairAsync(real, code)); !errors.Is(err, ErrPairDenied) {
		t.Fatalf("denied device asking again: %v", err)
	}
}

// A source sending wrong invite secrets is refused after a few, even with
// the right secret and on a new connection.
func TestWrongSecretsBarTheSource(t *testing.T) {
	a := startNode(t, "a")
	_, inv := newInvite(t, a)
	bad := inv
	bad.S = strings.Repeat("ab", 16)
	for i := range maxWrongSecrets {
		if _, st := askRaw(t, a, bad, "x"); st != statusInvalid {
			t.Fatalf("wrong secret %d: %s", i, st)
		}
	}
	refused := a.Counters().Refused
	if p, err := dialRaw(t, a.Addr().String(), newKey(t)); err == nil {
		_ = p.send(pairRequestMsg{Type: typePairRequest, InviteID: inv.I, Secret: inv.S, Profile: profile{DeviceID: mkID(7)}})
		if !p.closedByPeer() {
			t.Fatal("a barred source was served")
		}
	}
	a.waitUntil("barred source refused", func() bool { return a.Counters().Refused > refused })
	if len(a.Pending()) != 0 {
		t.Fatal("a barred source made a request")
	}
}

// A pair_request naming another device than the TLS key is refused.
func TestPairRequestWithSpoofedProfile(t *testing.T) {
	a := startNode(t, "a")
	code, _, _ := a.CreateInvite()
	inv, _, _ := decodeInvite(code)
	p, err := dialRaw(t, a.Addr().String(), newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	_ = p.send(pairRequestMsg{Type: typePairRequest, InviteID: inv.I, Secret: inv.S, Profile: profile{DeviceID: mkID(5)}})
	if !p.closedByPeer() || len(a.Pending()) != 0 {
		t.Fatal("spoofed pair_request accepted")
	}
}

// A device that refuses this one's key in the handshake (it dials an
// address it was given before the two were paired) is not held against
// its address: its pairing request right after is answered.
func TestRefusedHandshakeIsNoOffence(t *testing.T) {
	a := startNode(t, "a")
	from := otherSource(t)
	cert, err := selfCertificate(newKey(t), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{LocalAddr: &net.TCPAddr{IP: from}}, Config: &tls.Config{
		MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}, NextProtos: []string{ALPN}, InsecureSkipVerify: true,
		VerifyPeerCertificate: func([][]byte, [][]*x509.Certificate) error { return errNotMember },
	}}
	if c, err := d.Dial("tcp", a.Addr().String()); err == nil {
		_ = c.Close()
		t.Fatal("the handshake went through")
	}
	_, inv := newInvite(t, a)
	if _, st := askRawFrom(t, a, inv, "b", from); st != statusPending {
		t.Fatalf("pairing after a refused handshake: %s", st)
	}
}
