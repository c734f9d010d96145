// Package reach holds the rules by which a device finds the members of
// its group again: the addresses it remembers for each member, the port it
// listens on across launches, and when it dials an address again. It is a
// pure core: no sockets, no clock of its own (every rule takes now), no
// randomness. devicesync keeps a Book per node, persists it through its
// Store and dials what Due says.
package reach

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"
)

// Bounds of a Book, so a stored or received book cannot grow without end.
const (
	// MaxPerMember is how many addresses a Book keeps for one member: the
	// most recently good ones.
	MaxPerMember = 4
	// MaxMembers bounds the members a Book holds (a group has at most 64
	// devices); with MaxPerMember and MaxAddrBytes a full book stays well
	// under the 64 KiB a setting may hold.
	MaxMembers = 64
	// MaxAge is how long an address is remembered after it last worked.
	MaxAge = 30 * 24 * time.Hour
	// MaxAddrBytes bounds one address.
	MaxAddrBytes = 100
	// refreshEvery is how stale an entry's LastGood may become before a
	// new success rewrites it: a device connecting all day does not write
	// the book on every connection.
	refreshEvery = time.Hour
)

// Entry is an address of a member that led to an authenticated session.
type Entry struct {
	Addr string `json:"addr"`
	// LastGood is when a session over Addr last began, in Unix ms.
	LastGood int64 `json:"last_good"`
}

// Book is what a device remembers to find its group again: its own last
// listening port, and for each member the addresses that last worked,
// newest first.
type Book struct {
	// Port is the TCP port this device last listened on (0: none yet).
	Port    int                `json:"port,omitempty"`
	Members map[string][]Entry `json:"members,omitempty"`
}

// New returns an empty Book.
func New() *Book { return &Book{Members: map[string][]Entry{}} }

// ErrBadBook reports a stored book that cannot be read.
var ErrBadBook = errors.New("reach: stored address book is not valid")

// Parse reads a book written by Marshal. Empty input is an empty book.
// Anything else that is not a valid book is an error that says why; the
// caller keeps the stored bytes and starts with an empty book.
func Parse(b []byte) (*Book, error) {
	bk := New()
	if len(b) == 0 {
		return bk, nil
	}
	if err := json.Unmarshal(b, bk); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadBook, err)
	}
	if bk.Members == nil {
		bk.Members = map[string][]Entry{}
	}
	if bk.Port < 0 || bk.Port > 65535 {
		return nil, fmt.Errorf("%w: port %d", ErrBadBook, bk.Port)
	}
	if len(bk.Members) > MaxMembers {
		return nil, fmt.Errorf("%w: %d members, limit %d", ErrBadBook, len(bk.Members), MaxMembers)
	}
	for dev, es := range bk.Members {
		if dev == "" || len(es) > MaxPerMember {
			return nil, fmt.Errorf("%w: member %q with %d addresses (limit %d)", ErrBadBook, dev, len(es), MaxPerMember)
		}
		for _, e := range es {
			if err := ValidAddr(e.Addr); err != nil {
				return nil, fmt.Errorf("%w: member %q: %v", ErrBadBook, dev, err)
			}
		}
	}
	return bk, nil
}

// Marshal writes the book (deterministic: members sorted by encoding/json).
func (b *Book) Marshal() []byte {
	out, _ := json.Marshal(b)
	return out
}

// ValidAddr checks that a is host:port with a port in 1..65535.
func ValidAddr(a string) error {
	if len(a) > MaxAddrBytes {
		return fmt.Errorf("an address of %d bytes (limit %d)", len(a), MaxAddrBytes)
	}
	host, port, err := net.SplitHostPort(a)
	p, perr := strconv.Atoi(port)
	if err != nil || perr != nil || p < 1 || p > 65535 || host == "" {
		return fmt.Errorf("%q is not host:port with a port in 1..65535", a)
	}
	return nil
}

// Good records that a session with member dev began over addr at now. It
// reports whether the book changed (and should be saved): a new address,
// one moved to the front, or a LastGood older than refreshEvery renewed.
func (b *Book) Good(dev, addr string, now time.Time) bool {
	if dev == "" || ValidAddr(addr) != nil {
		return false
	}
	es := b.Members[dev]
	if _, known := b.Members[dev]; !known && len(b.Members) >= MaxMembers {
		return false
	}
	ms := now.UnixMilli()
	i := slices.IndexFunc(es, func(e Entry) bool { return e.Addr == addr })
	if i == 0 && ms-es[0].LastGood < refreshEvery.Milliseconds() {
		return false
	}
	if i >= 0 {
		es = slices.Delete(es, i, i+1)
	}
	es = slices.Insert(es, 0, Entry{Addr: addr, LastGood: ms})
	if len(es) > MaxPerMember {
		es = es[:MaxPerMember]
	}
	b.Members[dev] = es
	return true
}

// Addrs returns member dev's remembered addresses, newest first.
func (b *Book) Addrs(dev string) []string {
	var out []string
	for _, e := range b.Members[dev] {
		out = append(out, e.Addr)
	}
	return out
}

// Keep drops the members isMember rejects (revoked, or of another group)
// and addresses that last worked more than MaxAge before now. It reports
// whether the book changed.
func (b *Book) Keep(isMember func(dev string) bool, now time.Time) bool {
	changed := false
	cut := now.Add(-MaxAge).UnixMilli()
	for dev, es := range b.Members {
		if !isMember(dev) {
			delete(b.Members, dev)
			changed = true
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(es), func(e Entry) bool { return e.LastGood < cut })
		if len(kept) != len(es) {
			changed = true
			if len(kept) == 0 {
				delete(b.Members, dev)
			} else {
				b.Members[dev] = kept
			}
		}
	}
	return changed
}

// SetPort records the port this device listens on; it reports a change.
func (b *Book) SetPort(port int) bool {
	if port <= 0 || port > 65535 || port == b.Port {
		return false
	}
	b.Port = port
	return true
}

// ListenFirst is the address a device tries to listen on first: the
// configured one, except that a configured port 0 ("any") becomes the
// remembered port, so the device comes back where the others last reached
// it. The second result says whether falling back to listen itself is
// allowed when that port is taken (only when the port came from the book).
func (b *Book) ListenFirst(listen string) (string, bool) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || port != "0" || b.Port == 0 {
		return listen, false
	}
	return net.JoinHostPort(host, strconv.Itoa(b.Port)), true
}
