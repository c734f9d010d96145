package web

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var seed = flag.Uint64("seed", uint64(time.Now().UnixNano()), "seed of the pairing tests' randomness")

// fakeClock is time the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestPairing(t *testing.T) (*Pairing, *fakeClock) {
	t.Helper()
	t.Logf("seed %d (rerun with -seed=%d)", *seed, *seed)
	clk := &fakeClock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	var s [32]byte
	for i := range 8 {
		s[i] = byte(*seed >> (8 * i))
	}
	return NewPairing(clk.now, rand.NewChaCha8(s)), clk
}

func TestACodePairsOneBrowserWhoseCredentialAuthenticates(t *testing.T) {
	p, _ := newTestPairing(t)
	c, _, err := p.NewCode()
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != CodeLen || strings.Trim(c, codeAlphabet) != "" {
		t.Fatalf("code %q: want %d characters of %q", c, CodeLen, codeAlphabet)
	}
	tok, b, err := p.Redeem("10.0.0.2", strings.ToLower(c[:4])+"-"+c[4:], "Android · Chrome")
	if err != nil {
		t.Fatalf("redeem %q typed in lower case with a dash: %v", c, err)
	}
	got, _, err := p.Authenticate(tok)
	if err != nil || got.ID != b.ID || got.Label != "Android · Chrome" {
		t.Fatalf("authenticate: %+v %v, want browser %s", got, err, b.ID)
	}
	if _, _, err := p.Authenticate(tok + "x"); !errors.Is(err, ErrNotPaired) {
		t.Fatalf("a wrong credential: %v, want ErrNotPaired", err)
	}
	if strings.Contains(string(p.Marshal()), tok) {
		t.Fatal("the stored browsers hold the credential itself, want only its hash")
	}
	if _, _, err := p.Redeem("10.0.0.3", c, "x"); !errors.Is(err, ErrUsedCode) {
		t.Fatalf("the code a second time: %v, want ErrUsedCode", err)
	}
}

func TestACodeExpiresAfterTenMinutes(t *testing.T) {
	p, clk := newTestPairing(t)
	c1, exp, _ := p.NewCode()
	if !exp.Equal(clk.t.Add(CodeTTL)) {
		t.Fatalf("expires %v, want %v", exp, clk.t.Add(CodeTTL))
	}
	c2, _, _ := p.NewCode()
	clk.advance(CodeTTL - time.Second)
	if _, _, err := p.Redeem("a", c1, ""); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	clk.advance(time.Second)
	_, _, err := p.Redeem("a", c2, "")
	if !errors.Is(err, ErrExpiredCode) {
		t.Fatalf("at expiry: %v, want ErrExpiredCode", err)
	}
	if m := Message(err); !strings.Contains(m, "expired") {
		t.Fatalf("message %q", m)
	}
	if p.OpenCodes() != 0 {
		t.Fatalf("open codes %d after expiry", p.OpenCodes())
	}
}

func TestFiveWrongCodesMakeAnAddressWaitTenMinutes(t *testing.T) {
	p, clk := newTestPairing(t)
	c, _, _ := p.NewCode()
	for i := range MaxWrongCodes {
		if _, _, err := p.Redeem("10.0.0.9", fmt.Sprintf("WRONG%03d", i), ""); !errors.Is(err, ErrWrongCode) {
			t.Fatalf("wrong code %d: %v", i, err)
		}
		if i < MaxWrongCodes-1 {
			clk.advance(time.Second)
		}
	}
	_, _, err := p.Redeem("10.0.0.9", c, "")
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("the right code after %d wrong ones: %v, want ErrBlocked", MaxWrongCodes, err)
	}
	if m := Message(err); !strings.Contains(m, "10 minutes") {
		t.Fatalf("message %q, want the wait in it", m)
	}
	// Another address is not blocked, and the code was not used up.
	c2, _, _ := p.NewCode()
	if _, _, err := p.Redeem("10.0.0.10", c2, ""); err != nil {
		t.Fatalf("another address: %v", err)
	}
	clk.advance(BlockFor - time.Second)
	c, _, _ = p.NewCode()
	if _, _, err := p.Redeem("10.0.0.9", c, ""); !errors.Is(err, ErrBlocked) {
		t.Fatalf("a second before the wait ends: %v", err)
	}
	clk.advance(time.Second)
	if _, _, err := p.Redeem("10.0.0.9", c, ""); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
}

func TestFourWrongCodesThenARightOneResetTheCount(t *testing.T) {
	p, _ := newTestPairing(t)
	for range MaxWrongCodes - 1 {
		_, _, _ = p.Redeem("a", "AAAAAAAA", "")
	}
	c, _, _ := p.NewCode()
	if _, _, err := p.Redeem("a", c, ""); err != nil {
		t.Fatal(err)
	}
	for range MaxWrongCodes - 1 {
		_, _, _ = p.Redeem("a", "AAAAAAAA", "")
	}
	c, _, _ = p.NewCode()
	if _, _, err := p.Redeem("a", c, ""); err != nil {
		t.Fatalf("the count was not reset by the success: %v", err)
	}
}

func TestABlockedAddressIsNotForgottenWhenManyAddressesFail(t *testing.T) {
	p, clk := newTestPairing(t)
	for range MaxWrongCodes {
		_, _, _ = p.Redeem("attacker", "AAAAAAAA", "")
	}
	for i := range MaxTrackedAddrs + 10 {
		clk.advance(time.Millisecond)
		_, _, _ = p.Redeem(fmt.Sprintf("10.1.%d.%d", i/256, i%256), "AAAAAAAA", "")
	}
	if len(p.fails) > MaxTrackedAddrs {
		t.Fatalf("%d addresses tracked, limit %d", len(p.fails), MaxTrackedAddrs)
	}
	c, _, _ := p.NewCode()
	if _, _, err := p.Redeem("attacker", c, ""); !errors.Is(err, ErrBlocked) {
		t.Fatalf("the blocked address after a flood of others: %v, want ErrBlocked", err)
	}
}

func TestTooManyCodesDropTheOldest(t *testing.T) {
	p, _ := newTestPairing(t)
	first, _, _ := p.NewCode()
	for range MaxOpenCodes {
		if _, _, err := p.NewCode(); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.OpenCodes(); n != MaxOpenCodes {
		t.Fatalf("%d open codes, want %d", n, MaxOpenCodes)
	}
	if _, _, err := p.Redeem("a", first, ""); !errors.Is(err, ErrWrongCode) {
		t.Fatalf("the dropped code: %v, want ErrWrongCode", err)
	}
}

func TestARevokedBrowserNoLongerAuthenticatesAndSurvivesReload(t *testing.T) {
	p, clk := newTestPairing(t)
	var toks []string
	for i := range 3 {
		c, _, _ := p.NewCode()
		tok, _, err := p.Redeem("a", c, fmt.Sprintf("b%d", i))
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	bs := p.Browsers()
	if len(bs) != 3 {
		t.Fatalf("%d browsers", len(bs))
	}
	if _, err := p.Revoke(bs[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Revoke(bs[1].ID); !errors.Is(err, ErrNoBrowser) {
		t.Fatalf("revoke twice: %v", err)
	}
	q := NewPairing(clk.now, nil)
	if err := q.Load(p.Marshal()); err != nil {
		t.Fatal(err)
	}
	for i, tok := range toks {
		_, _, err := q.Authenticate(tok)
		if (i == 1) != errors.Is(err, ErrNotPaired) {
			t.Fatalf("browser %d after reload: %v", i, err)
		}
	}
	clk.advance(LastSeenEvery)
	b, save, err := q.Authenticate(toks[0])
	if err != nil || !save || !b.LastSeen.Equal(clk.t) {
		t.Fatalf("last seen after %v: %v save=%v %v", LastSeenEvery, b.LastSeen, save, err)
	}
	if _, save, _ := q.Authenticate(toks[0]); save {
		t.Fatal("a second look at once asks to save again")
	}
	if err := q.Load([]byte("{not json")); err == nil {
		t.Fatal("malformed stored browsers loaded")
	}
}

func TestTheBrowserLimitRefusesWithoutCountingAWrongCode(t *testing.T) {
	p, _ := newTestPairing(t)
	for range MaxBrowsers {
		c, _, _ := p.NewCode()
		if _, _, err := p.Redeem("a", c, ""); err != nil {
			t.Fatal(err)
		}
	}
	for range MaxWrongCodes + 1 {
		c, _, _ := p.NewCode()
		if _, _, err := p.Redeem("a", c, ""); !errors.Is(err, ErrFull) {
			t.Fatalf("past the limit: %v, want ErrFull", err)
		}
	}
}

func TestLabels(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36": "Android · Chrome",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0":                                            "Linux · Firefox",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/604.1":      "iPhone · Safari",
		"": "Unknown system · a browser",
	} {
		if got := LabelOf(ua); got != want {
			t.Errorf("LabelOf(%q) = %q, want %q", ua, got, want)
		}
	}
	if got := cleanLabel(strings.Repeat("é", 100) + "\x00"); len([]rune(got)) != MaxLabel {
		t.Errorf("label of %d runes", len([]rune(got)))
	}
}

func TestAFloodIsRefusedAndTheRateRefills(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	b := newBucket(MsgRate, MsgBurst, clk.t)
	for i := range MsgBurst {
		if !b.allow(clk.t) {
			t.Fatalf("message %d of a burst of %d refused", i, MsgBurst)
		}
	}
	if b.allow(clk.t) {
		t.Fatal("a message past the burst allowed")
	}
	clk.advance(time.Second / MsgRate)
	if !b.allow(clk.t) {
		t.Fatal("no token after 1/rate s")
	}
	if b.allow(clk.t) {
		t.Fatal("two tokens after 1/rate s")
	}
	clk.advance(time.Hour)
	n := 0
	for b.allow(clk.t) {
		n++
	}
	if n != MsgBurst {
		t.Fatalf("after an hour %d tokens, want the burst %d", n, MsgBurst)
	}
}
