package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/furudesk/furudesk/devicesync"
)

// fakeLog is a group's log shared by the servers of a test; Deliver hands
// the ops added since the last call to every server, as the app does.
type fakeLog struct {
	mu   sync.Mutex
	ops  []devicesync.Op
	sent int
}

func (l *fakeLog) AppendOp(kind string, body json.RawMessage) (devicesync.Op, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := devicesync.Op{Kind: kind, Body: body}
	l.ops = append(l.ops, o)
	return o, nil
}

func (l *fakeLog) AppOps() (string, []devicesync.Op) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return "grp", append([]devicesync.Op(nil), l.ops...)
}

func (l *fakeLog) deliver(servers ...*Server) {
	l.mu.Lock()
	ops := append([]devicesync.Op(nil), l.ops[l.sent:]...)
	l.sent = len(l.ops)
	l.mu.Unlock()
	for _, s := range servers {
		s.OpsAdded(ops)
	}
}

func TestABrowserPairedOnOneMemberIsLetInAndRevokedByAnother(t *testing.T) {
	log := &fakeLog{}
	h := newHarness(t) // desk: no group log yet; replace its server
	_ = h.s.Close()
	h.hs.Close()
	p, clk := newTestPairing(t)
	mk := func(st *memStore) (*Server, *httptest.Server) {
		s, err := New(Options{Backend: h.be, Store: st, Group: log, Now: clk.now, Rand: p.rand})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		t.Cleanup(func() { hs.Close(); _ = s.Close() })
		return s, hs
	}
	desk, deskHS := mk(&memStore{})
	box, boxHS := mk(&memStore{})
	h.s, h.hs = desk, deskHS
	ck := h.pair()
	if strings.Contains(string(log.ops[0].Body), ck.Value) {
		t.Fatal("the group's log holds the credential")
	}
	log.deliver(desk, box)
	if bs := box.Browsers(); len(bs) != 1 || bs[0].Label != desk.Browsers()[0].Label {
		t.Fatalf("box lists %+v", bs)
	}

	// The same cookie opens box's page (another member, another port).
	h.s, h.hs = box, boxHS
	c, _, err := h.dial(ck, boxHS.URL)
	if err != nil {
		t.Fatalf("box refuses the browser desk paired: %v", err)
	}
	next(t, c, "state")
	h.s, h.hs = desk, deskHS
	dc, _, err := h.dial(ck, deskHS.URL)
	if err != nil {
		t.Fatal(err)
	}
	next(t, dc, "state")

	// Revoked on box: box's page at once, desk's when the op arrives.
	if _, err := box.Revoke(box.Browsers()[0].ID); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c, "bye"); m["reason"] != "revoked" {
		t.Fatalf("box's page: %v", m)
	}
	log.deliver(desk, box)
	if m := next(t, dc, "bye"); m["reason"] != "revoked" {
		t.Fatalf("desk's page: %v", m)
	}
	if len(desk.Browsers()) != 0 {
		t.Fatalf("desk still lists %+v", desk.Browsers())
	}
	if _, resp, err := h.dial(ck, deskHS.URL); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("desk lets the revoked browser in: %v", err)
	}

	// A member whose web player is off lists and revokes from the log.
	h.s = desk
	h.pair()
	log.deliver(desk, box)
	bs, err := ListBrowsers(&memStore{}, log)
	if err != nil || len(bs) != 1 {
		t.Fatalf("listed offline: %+v %v", bs, err)
	}
	if _, err := RevokeBrowser(&memStore{}, log, bs[0].ID); err != nil {
		t.Fatal(err)
	}
	log.deliver(desk, box)
	if len(desk.Browsers()) != 0 {
		t.Fatalf("revoked offline, desk still lists %+v", desk.Browsers())
	}
	// A restart replays the log: the revoked stay out.
	s3, err := New(Options{Backend: h.be, Store: &memStore{}, Group: log})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if len(s3.Browsers()) != 0 {
		t.Fatalf("after a restart: %+v", s3.Browsers())
	}
}

func TestMalformedGroupOpsAreIgnored(t *testing.T) {
	p, _ := newTestPairing(t)
	good := PairedOp(Browser{ID: "0011aabb", Label: "Linux · Firefox", Hash: strings.Repeat("ab", 32)})
	gone := p.Apply([]GroupOp{
		{Kind: OpBrowserPaired, Body: json.RawMessage(`{"id":"../x","hash":"00"}`)},
		{Kind: OpBrowserPaired, Body: json.RawMessage(`not json`)},
		{Kind: OpBrowserRevoked, Body: json.RawMessage(`{"id":1}`)},
		good, good,
	})
	if len(gone) != 0 || len(p.Browsers()) != 1 {
		t.Fatalf("browsers %+v gone %v", p.Browsers(), gone)
	}
	if gone := p.Apply([]GroupOp{RevokedOp("0011aabb"), good}); len(gone) != 1 || len(p.Browsers()) != 0 {
		t.Fatalf("after revoke and a replayed pairing: %+v gone %v", p.Browsers(), gone)
	}
}
