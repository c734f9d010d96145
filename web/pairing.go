package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// codeAlphabet has no letters that read alike (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// tokenBytes is the size of a browser's credential (before base64).
const tokenBytes = 32

// Browser is one paired browser as the device keeps it: only the hash of
// its credential, never the credential.
type Browser struct {
	ID       string    `json:"id"`
	Label    string    `json:"label"`
	Hash     string    `json:"hash"`
	Paired   time.Time `json:"paired"`
	LastSeen time.Time `json:"last_seen"`
}

type code struct {
	expires time.Time
	used    bool
}

type addrFails struct {
	n       int
	blocked time.Time // zero unless blocked until then
	last    time.Time
}

// Pairing holds the pairing codes, the wrong attempts per address and the
// paired browsers. It is the pure core of browser pairing: time comes
// from now, randomness from rand (both given), and it does no I/O; the
// caller persists Marshal's output whenever a method says it changed.
// It is safe for concurrent use.
type Pairing struct {
	now  func() time.Time
	rand io.Reader

	mu       sync.Mutex
	codes    map[string]*code
	order    []string // codes, oldest first
	fails    map[string]*addrFails
	browsers []*Browser
	revoked  map[string]bool // ids the group's log revoked (group.go)
}

// NewPairing returns an empty Pairing.
func NewPairing(now func() time.Time, rand io.Reader) *Pairing {
	return &Pairing{now: now, rand: rand, codes: map[string]*code{}, fails: map[string]*addrFails{}}
}

// Load replaces the paired browsers with those of data (Marshal's output).
func (p *Pairing) Load(data []byte) error {
	var bs []*Browser
	if len(data) > 0 {
		if err := json.Unmarshal(data, &bs); err != nil {
			return fmt.Errorf("web: stored browsers: %w", err)
		}
	}
	if len(bs) > MaxBrowsers {
		bs = bs[len(bs)-MaxBrowsers:]
	}
	p.mu.Lock()
	p.browsers = bs
	p.mu.Unlock()
	return nil
}

// Marshal returns the paired browsers to persist.
func (p *Pairing) Marshal() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, _ := json.Marshal(p.browsers)
	return b
}

// NewCode returns a fresh one-use code, valid CodeTTL from now. At most
// MaxOpenCodes wait at once: the oldest is dropped.
func (p *Pairing) NewCode() (string, time.Time, error) {
	buf := make([]byte, CodeLen)
	if _, err := io.ReadFull(p.rand, buf); err != nil {
		return "", time.Time{}, fmt.Errorf("web: random code: %w", err)
	}
	for i, b := range buf {
		buf[i] = codeAlphabet[int(b)%len(codeAlphabet)]
	}
	c := string(buf)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.expireLocked(now)
	open := 0
	for _, k := range p.order {
		if !p.codes[k].used {
			open++
		}
	}
	for open >= MaxOpenCodes {
		for i, k := range p.order {
			if !p.codes[k].used {
				delete(p.codes, k)
				p.order = slices.Delete(p.order, i, i+1)
				break
			}
		}
		open--
	}
	exp := now.Add(CodeTTL)
	p.codes[c] = &code{expires: exp}
	p.order = append(p.order, c)
	return c, exp, nil
}

// OpenCodes counts the codes that can still pair a browser.
func (p *Pairing) OpenCodes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expireLocked(p.now())
	n := 0
	for _, c := range p.codes {
		if !c.used && p.now().Before(c.expires) {
			n++
		}
	}
	return n
}

// expireLocked forgets codes an hour past their expiry (until then an
// expired or used code is told apart from a wrong one).
func (p *Pairing) expireLocked(now time.Time) {
	for len(p.order) > 0 {
		k := p.order[0]
		if now.Before(p.codes[k].expires.Add(time.Hour)) {
			break
		}
		delete(p.codes, k)
		p.order = p.order[1:]
	}
}

// NormalizeCode is a typed code as it is compared: upper case, without
// spaces and dashes.
func NormalizeCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-' || r == '\t':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// Redeem pairs a browser with typed code from addr (an IP address, no
// port) and returns its credential, to hand to the browser once, and its
// record. MaxWrongCodes failures from addr block it for BlockFor, during
// which even a right code is refused. The record changed: persist.
func (p *Pairing) Redeem(addr, typed, label string) (string, Browser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.expireLocked(now)
	f := p.fails[addr]
	if f != nil && !f.blocked.IsZero() {
		if now.Before(f.blocked) {
			wait := f.blocked.Sub(now).Round(time.Minute)
			if wait < time.Minute {
				wait = time.Minute
			}
			return "", Browser{}, userErr(ErrBlocked, "Too many wrong codes from this address: try again in %d minutes.", int(wait.Minutes()))
		}
		delete(p.fails, addr)
		f = nil
	}
	c := NormalizeCode(typed)
	var err error
	e := p.codes[c]
	switch {
	case len(c) != CodeLen || e == nil:
		err = ErrWrongCode
	case e.used:
		err = ErrUsedCode
	case !now.Before(e.expires):
		err = ErrExpiredCode
	case len(p.browsers) >= MaxBrowsers:
		return "", Browser{}, ErrFull // not the browser's fault: no attempt counted
	}
	if err != nil {
		p.failLocked(addr, f, now)
		return "", Browser{}, err
	}
	e.used = true
	delete(p.fails, addr)
	tok := make([]byte, tokenBytes)
	idb := make([]byte, 4)
	if _, err := io.ReadFull(p.rand, tok); err != nil {
		return "", Browser{}, fmt.Errorf("web: random credential: %w", err)
	}
	if _, err := io.ReadFull(p.rand, idb); err != nil {
		return "", Browser{}, fmt.Errorf("web: random id: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(tok)
	b := &Browser{ID: hex.EncodeToString(idb), Label: cleanLabel(label), Hash: hashToken(token), Paired: now, LastSeen: now}
	p.browsers = append(p.browsers, b)
	return token, *b, nil
}

func (p *Pairing) failLocked(addr string, f *addrFails, now time.Time) {
	if f == nil {
		if len(p.fails) >= MaxTrackedAddrs {
			p.forgetOneLocked(now)
		}
		f = &addrFails{}
		p.fails[addr] = f
	}
	f.n++
	f.last = now
	if f.n >= MaxWrongCodes {
		f.blocked = now.Add(BlockFor)
	}
}

// forgetOneLocked drops the address whose last failure is oldest, a
// blocked one only when every address is blocked.
func (p *Pairing) forgetOneLocked(now time.Time) {
	var victim string
	var vt time.Time
	blockedOnly := true
	for _, f := range p.fails {
		if f.blocked.IsZero() || !now.Before(f.blocked) {
			blockedOnly = false
		}
	}
	for a, f := range p.fails {
		active := !f.blocked.IsZero() && now.Before(f.blocked)
		if active && !blockedOnly {
			continue
		}
		if victim == "" || f.last.Before(vt) || (f.last.Equal(vt) && a < victim) {
			victim, vt = a, f.last
		}
	}
	delete(p.fails, victim)
}

// Authenticate returns the browser whose credential token is, and whether
// its last-seen time moved enough (LastSeenEvery) to be persisted.
func (p *Pairing) Authenticate(token string) (Browser, bool, error) {
	if token == "" || len(token) > 2*tokenBytes {
		return Browser{}, false, ErrNotPaired
	}
	h := hashToken(token)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.browsers {
		if subtle.ConstantTimeCompare([]byte(b.Hash), []byte(h)) == 1 {
			now := p.now()
			save := now.Sub(b.LastSeen) >= LastSeenEvery
			if save {
				b.LastSeen = now
			}
			return *b, save, nil
		}
	}
	return Browser{}, false, ErrNotPaired
}

// Revoke forgets the browser id; its credential no longer authenticates.
func (p *Pairing) Revoke(id string) (Browser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, b := range p.browsers {
		if b.ID == id {
			p.browsers = slices.Delete(p.browsers, i, i+1)
			if p.revoked == nil {
				p.revoked = map[string]bool{}
			}
			p.revoked[id] = true
			return *b, nil
		}
	}
	return Browser{}, userErr(ErrNoBrowser, "No paired browser has the id %q: see the list of browsers.", id)
}

// Browsers lists the paired browsers, first paired first.
func (p *Pairing) Browsers() []Browser {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Browser, 0, len(p.browsers))
	for _, b := range p.browsers {
		out = append(out, *b)
	}
	return out
}

func hashToken(token string) string {
	s := sha256.Sum256([]byte(token))
	return hex.EncodeToString(s[:])
}

// cleanLabel keeps a label short and printable.
func cleanLabel(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if s == "" {
		s = "A browser"
	}
	r := []rune(s)
	if len(r) > MaxLabel {
		s = string(r[:MaxLabel])
	}
	return s
}

// LabelOf names a browser from its User-Agent: "Android · Chrome".
func LabelOf(ua string) string {
	return uaName(ua, uaSystems, "Unknown system") + " · " + uaName(ua, uaBrowsers, "a browser")
}

// uaMark names what a User-Agent holding one of its marks runs.
type uaMark struct {
	marks []string
	name  string
}

// The systems and browsers LabelOf tells apart, the first that matches
// winning (an Android phone's User-Agent also says Linux, Edge's and
// Opera's also say Chrome, Chrome's also says Safari).
var (
	uaSystems = []uaMark{{[]string{"Android"}, "Android"}, {[]string{"iPhone"}, "iPhone"}, {[]string{"iPad"}, "iPad"},
		{[]string{"CrOS"}, "ChromeOS"}, {[]string{"Windows"}, "Windows"}, {[]string{"Mac OS X", "Macintosh"}, "macOS"},
		{[]string{"Linux"}, "Linux"}}
	uaBrowsers = []uaMark{{[]string{"Firefox/"}, "Firefox"}, {[]string{"Edg/"}, "Edge"}, {[]string{"OPR/"}, "Opera"},
		{[]string{"Chrome/", "Chromium/"}, "Chrome"}, {[]string{"Safari/"}, "Safari"}}
)

// uaName is the name of the first of marks that ua holds, else none.
func uaName(ua string, marks []uaMark, none string) string {
	for _, m := range marks {
		for _, k := range m.marks {
			if strings.Contains(ua, k) {
				return m.name
			}
		}
	}
	return none
}

// byID returns the paired browser id.
func (p *Pairing) byID(id string) (Browser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.browsers {
		if b.ID == id {
			return *b, nil
		}
	}
	return Browser{}, ErrNotPaired
}
