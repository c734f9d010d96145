package web

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/furudesk/furudesk/devicesync"
)

// The paired browsers are the group's: a pairing and a revocation are ops
// of the group's log, so every member lists the same browsers, any
// member's web player lets them in, and any member revokes one (its pages
// on every member are shown out when the op arrives). Only the hash of a
// credential is in the log. Last-seen times stay on each device.

// Op kinds of the group's log.
const (
	OpBrowserPaired  = "web_browser_paired"
	OpBrowserRevoked = "web_browser_revoked"
)

// GroupLog is the group's operation log (*devicesync.Node).
type GroupLog interface {
	AppendOp(kind string, body json.RawMessage) (devicesync.Op, error)
	AppOps() (group string, ops []devicesync.Op)
}

var _ GroupLog = (*devicesync.Node)(nil)

// GroupOp is one op of the log as Pairing reads it.
type GroupOp struct {
	Kind string
	Body json.RawMessage
}

type pairedBody struct {
	ID     string    `json:"id"`
	Label  string    `json:"label"`
	Hash   string    `json:"hash"`
	Paired time.Time `json:"paired"`
}

type revokedBody struct {
	ID string `json:"id"`
}

// PairedOp is the op that shares b's pairing with the group.
func PairedOp(b Browser) GroupOp {
	body, _ := json.Marshal(pairedBody{ID: b.ID, Label: b.Label, Hash: b.Hash, Paired: b.Paired})
	return GroupOp{Kind: OpBrowserPaired, Body: body}
}

// RevokedOp is the op that revokes browser id in the whole group.
func RevokedOp(id string) GroupOp {
	body, _ := json.Marshal(revokedBody{ID: id})
	return GroupOp{Kind: OpBrowserRevoked, Body: body}
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// OpsOf keeps the ops of ops that Pairing reads.
func OpsOf(ops []devicesync.Op) []GroupOp {
	var out []GroupOp
	for _, o := range ops {
		if o.Kind == OpBrowserPaired || o.Kind == OpBrowserRevoked {
			out = append(out, GroupOp{Kind: o.Kind, Body: o.Body})
		}
	}
	return out
}

// Replay makes the paired browsers those of the group's ops (all of
// them, in the log's order): a browser this device knew and the log does
// not is dropped, last-seen times of the others are kept.
func (p *Pairing) Replay(ops []GroupOp) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]time.Time{}
	for _, b := range p.browsers {
		seen[b.ID] = b.LastSeen
	}
	p.browsers, p.revoked = nil, map[string]bool{}
	p.applyLocked(ops)
	for _, b := range p.browsers {
		if t, ok := seen[b.ID]; ok && t.After(b.LastSeen) {
			b.LastSeen = t
		}
	}
}

// Apply adds ops newly logged and returns the ids of the browsers they
// revoked. Malformed ops, pairings of revoked browsers and pairings past
// MaxBrowsers are ignored; an op seen twice changes nothing.
func (p *Pairing) Apply(ops []GroupOp) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.applyLocked(ops)
}

func (p *Pairing) applyLocked(ops []GroupOp) []string {
	if p.revoked == nil {
		p.revoked = map[string]bool{}
	}
	var gone []string
	for _, o := range ops {
		switch o.Kind {
		case OpBrowserPaired:
			var b pairedBody
			if json.Unmarshal(o.Body, &b) != nil || !isHex(b.ID, 8) || !isHex(b.Hash, 64) || p.revoked[b.ID] || len(p.browsers) >= MaxBrowsers ||
				slices.ContainsFunc(p.browsers, func(x *Browser) bool { return x.ID == b.ID }) {
				continue
			}
			p.browsers = append(p.browsers, &Browser{ID: b.ID, Label: cleanLabel(b.Label), Hash: b.Hash, Paired: b.Paired, LastSeen: b.Paired})
		case OpBrowserRevoked:
			var r revokedBody
			if json.Unmarshal(o.Body, &r) != nil || !isHex(r.ID, 8) {
				continue
			}
			p.revoked[r.ID] = true
			if i := slices.IndexFunc(p.browsers, func(x *Browser) bool { return x.ID == r.ID }); i >= 0 {
				p.browsers = slices.Delete(p.browsers, i, i+1)
				gone = append(gone, r.ID)
			}
		}
	}
	return gone
}

// appendOp logs o in the group.
func appendOp(g GroupLog, o GroupOp) error {
	if _, err := g.AppendOp(o.Kind, o.Body); err != nil {
		return fmt.Errorf("web: share with the group: %w", err)
	}
	return nil
}

// ListBrowsers lists the group's paired browsers for a device whose web
// player is off: its own last-seen times, the group's log.
func ListBrowsers(store CredStore, group GroupLog) ([]BrowserInfo, error) {
	p, err := offline(store, group)
	if err != nil {
		return nil, err
	}
	out := []BrowserInfo{}
	for _, b := range p.Browsers() {
		out = append(out, BrowserInfo{ID: b.ID, Label: b.Label, Paired: b.Paired, LastSeen: b.LastSeen})
	}
	return out, nil
}

// RevokeBrowser revokes browser id in the group from a device whose web
// player is off.
func RevokeBrowser(store CredStore, group GroupLog, id string) (BrowserInfo, error) {
	p, err := offline(store, group)
	if err != nil {
		return BrowserInfo{}, err
	}
	b, err := p.Revoke(id)
	if err != nil {
		return BrowserInfo{}, err
	}
	if err := appendOp(group, RevokedOp(id)); err != nil {
		return BrowserInfo{}, err
	}
	if err := store.SaveBrowsers(p.Marshal()); err != nil {
		return BrowserInfo{}, err
	}
	return BrowserInfo{ID: b.ID, Label: b.Label, Paired: b.Paired, LastSeen: b.LastSeen}, nil
}

func offline(store CredStore, group GroupLog) (*Pairing, error) {
	p := NewPairing(time.Now, nil)
	data, err := store.LoadBrowsers()
	if err != nil {
		return nil, err
	}
	if err := p.Load(data); err != nil {
		return nil, err
	}
	if group != nil {
		_, ops := group.AppOps()
		p.Replay(OpsOf(ops))
	}
	return p, nil
}
