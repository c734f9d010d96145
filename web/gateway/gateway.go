// Package gateway is the pure core of the web hub's output adapter: the
// rules that turn what a browser's audio element really does into the
// engine's gateway inputs (../shared/spec/playback-coordination.md, "The
// web hub is a single authority for its user's browser outputs").
//
//   - Only a browser report becomes a Report for engine.OutputReport, with
//     a source id that never goes back, also across a hub restart: ids are
//     reserved in blocks in the hub's checkpoint (Reserved), so a report
//     needs a write only when a block is used up.
//   - There is no timer here and no method that emits without a report:
//     a reconnect, a presence change or the passing of time produce
//     nothing, so cached browser state never becomes a new heartbeat.
//   - Opening a page as an output asks for startup once per real page
//     start (its page id), never per reconnect or poll.
//   - Reports from a page that is not the selected output, out of order,
//     replayed, malformed or from a revoked browser are ignored and
//     counted; they renew nothing.
//   - Presence expiry keeps the selection: owner and queue belong to the
//     engine and the queue, which a closed tab does not touch; the group
//     fails over by its normal policy once the reports stop.
//
// Gateway has no clock, no goroutine and no I/O: the same inputs in the
// same order give the same outputs. The caller serializes its calls.
package gateway

import (
	"errors"
	"fmt"
)

// Block is how many source ids one checkpoint write reserves.
const Block = 1024

// MaxIDLen bounds browser and page ids, MaxContentLen content ids (they
// come from the network).
const (
	MaxIDLen      = 64
	MaxContentLen = 256
)

// maxStarted bounds the page ids remembered as already started.
const maxStarted = 256

// Kind is what the browser's audio element did.
type Kind string

// The reports a page may send, named after the audio element's events.
const (
	Started Kind = "started" // the play() promise resolved: sound begins
	Playing Kind = "playing" // playing, with the position
	Paused  Kind = "paused"
	Ended   Kind = "ended"
	Stalled Kind = "stalled" // waiting for data: no sound
	Blocked Kind = "blocked" // autoplay refused: the page shows "Tap to play here"
	Error   Kind = "error"   // the element failed (decode, network)
)

// Output is what a report says about the browser's output, the two
// inputs engine.Output has.
type Output struct {
	Available bool
	Playing   bool
}

func (k Kind) output() (Output, bool) {
	switch k {
	case Started, Playing:
		return Output{Available: true, Playing: true}, true
	case Paused, Ended, Stalled, Blocked:
		return Output{Available: true}, true
	case Error:
		return Output{}, true
	}
	return Output{}, false
}

// Page names one page of one paired browser. Page is chosen by the page at
// its start (random); a reconnect of the same page keeps it.
type Page struct {
	Browser string
	Page    string
}

func (p Page) valid() bool {
	return p.Browser != "" && p.Page != "" && len(p.Browser) <= MaxIDLen && len(p.Page) <= MaxIDLen
}

// In is one report from a page.
type In struct {
	From    Page
	Token   uint64 // from the Select that made this page the output
	Seq     uint64 // the page's own report counter, increasing from 1
	Kind    Kind
	Content string // the content id the element has loaded
	PosMS   int64  // the element's currentTime
}

// Report is what the hub feeds to engine.OutputReport, with the position
// the browser reported for the queue.
type Report struct {
	Source  uint64
	Output  Output
	Content string
	PosMS   int64
	Kind    Kind
}

// Reason says why a report was ignored.
type Reason int

const (
	Malformed   Reason = iota // unknown kind, bad ids, seq 0, negative position
	NotSelected               // a page that is not the selected output
	Revoked                   // a revoked browser
	Stale                     // a seq not greater than the page's last: out of order or replayed
	reasonCount
)

func (r Reason) String() string {
	switch r {
	case Malformed:
		return "malformed"
	case NotSelected:
		return "not selected"
	case Revoked:
		return "revoked"
	case Stale:
		return "stale"
	}
	return fmt.Sprintf("reason(%d)", int(r))
}

// ErrIgnored wraps every ignored report; errors.As gives its Reason.
var ErrIgnored = errors.New("browser report ignored")

// IgnoredError is the error of an ignored report.
type IgnoredError struct{ Reason Reason }

func (e *IgnoredError) Error() string { return ErrIgnored.Error() + ": " + e.Reason.String() }
func (e *IgnoredError) Unwrap() error { return ErrIgnored }

// Stats counts what the gateway did.
type Stats struct {
	Reports  uint64              // reports that became a Report
	Ignored  [reasonCount]uint64 // by Reason
	Startups uint64              // startup requests
	Selected uint64              // selections
}

// IgnoredTotal is the sum of Ignored.
func (s Stats) IgnoredTotal() uint64 {
	var n uint64
	for _, v := range s.Ignored {
		n += v
	}
	return n
}

// Gateway is the state of the hub's browser output.
type Gateway struct {
	reserved uint64 // ids up to here may be public; persisted
	next     uint64 // the next source id
	dirty    bool   // reserved moved since the last Saved

	selected  Page
	hasSel    bool
	token     uint64 // of the selection
	lastSeq   uint64 // of the selected page
	present   bool   // the selected page is connected
	revoked   map[string]bool
	started   map[string]bool // page ids that already asked for startup
	startedAt []string        // their order, to bound started
	last      Report
	stats     Stats
}

// New returns a gateway of a hub that never reported.
func New() *Gateway { return Restore(0) }

// Restore returns the gateway of a hub whose checkpoint holds reserved: the
// next id is above it, so no id already made public comes again.
func Restore(reserved uint64) *Gateway {
	return &Gateway{reserved: reserved, next: reserved + 1, revoked: map[string]bool{}, started: map[string]bool{}}
}

// Reserved is the checkpoint value: persist it when Dirty, before feeding
// the Report that moved it to the engine or anyone else.
func (g *Gateway) Reserved() uint64 { return g.reserved }

// Dirty reports whether Reserved moved since the last Saved.
func (g *Gateway) Dirty() bool { return g.dirty }

// Saved records that Reserved is persisted.
func (g *Gateway) Saved() { g.dirty = false }

// Selected is the page that is the hub's output, if any.
func (g *Gateway) Selected() (Page, bool) { return g.selected, g.hasSel }

// Present reports whether the selected page is connected.
func (g *Gateway) Present() bool { return g.hasSel && g.present }

// Last is the last report that was accepted (zero before any).
func (g *Gateway) Last() Report { return g.last }

// Stats returns the counters.
func (g *Gateway) Stats() Stats { return g.stats }

// Select makes p the hub's output ("Play on this browser", or a page that
// was the output coming back): the browser chosen last wins, the other
// pages stay controllers. fresh says the page opens as an output for the
// first time since it was loaded (a real page start); a reconnect, also
// after a hub restart, is not fresh. startup is true for a fresh open of a
// page id not seen before: the caller then calls engine.RequestStartup
// (itself one-shot per hub instance). token goes to the page, which puts
// it in its reports: it is unique across hub restarts (drawn from the
// source ids), so a report made for an earlier selection, or before a hub
// restart, is stale whatever its seq. An explicit choice is also a transfer to the
// hub, which is the caller's (Select says nothing to the engine).
func (g *Gateway) Select(p Page, fresh bool) (token uint64, startup bool, err error) {
	if !p.valid() {
		g.stats.Ignored[Malformed]++
		return 0, false, &IgnoredError{Malformed}
	}
	if g.revoked[p.Browser] {
		g.stats.Ignored[Revoked]++
		return 0, false, &IgnoredError{Revoked}
	}
	if !g.hasSel || g.selected != p {
		g.selected, g.hasSel, g.lastSeq = p, true, 0
		g.token = g.take()
		g.stats.Selected++
	}
	g.present = true
	token = g.token
	if !fresh || g.started[p.Page] {
		return token, false, nil
	}
	g.started[p.Page] = true
	g.startedAt = append(g.startedAt, p.Page)
	if len(g.startedAt) > maxStarted {
		delete(g.started, g.startedAt[0])
		g.startedAt = g.startedAt[1:]
	}
	g.stats.Startups++
	return token, true, nil
}

// Connected records that p's WebSocket is back (a reconnect). It produces
// nothing: the page reports again when its element does something.
func (g *Gateway) Connected(p Page) {
	if g.hasSel && g.selected == p && !g.revoked[p.Browser] {
		g.present = true
	}
}

// Gone records that p's WebSocket closed or its presence expired (tab
// closed, phone asleep). The selection, the owner and the queue stay; no
// report is made, so the engine's liveness of the hub lapses by itself.
func (g *Gateway) Gone(p Page) {
	if g.hasSel && g.selected == p {
		g.present = false
	}
}

// Revoke records that browser was removed from the group: its reports are
// ignored from now on, and it is no longer the selection.
func (g *Gateway) Revoke(browser string) {
	g.revoked[browser] = true
	if g.hasSel && g.selected.Browser == browser {
		g.selected, g.hasSel, g.present, g.lastSeq = Page{}, false, false, 0
	}
}

// Deselect makes no page the output (the hub lost the claim and the user
// picked another device, or the page said it stopped being the output).
func (g *Gateway) Deselect(p Page) {
	if g.hasSel && g.selected == p {
		g.selected, g.hasSel, g.present, g.lastSeq = Page{}, false, false, 0
	}
}

// Report turns one report of a page into the Report for
// engine.OutputReport, or says why it was ignored. When the Report used up
// the reserved block, Dirty is true: persist Reserved first. (Select may
// move it too: persist before the token reaches the page.)
func (g *Gateway) Report(in In) (Report, error) {
	o, ok := in.Kind.output()
	switch {
	case !ok || !in.From.valid() || in.Seq == 0 || in.PosMS < 0 || len(in.Content) > MaxContentLen:
		return g.ignore(Malformed)
	case g.revoked[in.From.Browser]:
		return g.ignore(Revoked)
	case !g.hasSel || in.From != g.selected:
		return g.ignore(NotSelected)
	case in.Token != g.token || in.Seq <= g.lastSeq:
		return g.ignore(Stale)
	}
	g.lastSeq = in.Seq
	g.present = true
	r := Report{Source: g.take(), Output: o, Content: in.Content, PosMS: in.PosMS, Kind: in.Kind}
	g.last = r
	g.stats.Reports++
	return r, nil
}

// take draws the next id, reserving a new block when the last is used up.
func (g *Gateway) take() uint64 {
	if g.next > g.reserved {
		g.reserved = g.next + Block - 1
		g.dirty = true
	}
	g.next++
	return g.next - 1
}

func (g *Gateway) ignore(r Reason) (Report, error) {
	g.stats.Ignored[r]++
	return Report{}, &IgnoredError{r}
}
