package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/web/gateway"
)

// ReservedStore keeps the gateway's reserved source ids (its checkpoint)
// across hub restarts.
type ReservedStore interface {
	LoadReserved() (uint64, error)
	SaveReserved(v uint64) error
}

// BrowserOutput is the web hub's audio output: the gateway to the browser
// page chosen last (web/gateway holds the rules). It is an app.Output and
// an app.Relay: the app's commands become messages to the selected page,
// and only the page's reports of what its audio element does become
// audio.Relayed events, so only they reach engine.OutputReport.
type BrowserOutput struct {
	store  ReservedStore
	log    *slog.Logger
	now    func() time.Time
	events chan audio.Event

	mu      sync.Mutex
	gw      *gateway.Gateway
	send    func(p gateway.Page, msg []byte) bool // set by the Server
	seq     uint64
	cur     audio.Track
	curSrc  audio.Source
	paused  bool
	volume  int
	lastCmd []byte    // the last play command, for a page that comes back
	pos     int64     // the last reported position (ms) of cur
	posAt   time.Time // when it was reported
	playing bool
	avail   bool
	label   string       // the selected page's browser label (OutputLabel)
	next    audio.Track  // prepared by PrepareNext (gapless.go)
	nextSrc audio.Source // its source

	// The decoding for browsers that cannot play a track (decoded.go).
	openPCM         pcmOpener
	decodes         chan struct{} // maxDecodes slots
	decodeErrors    uint64
	lastDecodeError string
	decodeErrorOf   uint64 // the track seq whose decode error was reported
}

var (
	_ app.Output  = (*BrowserOutput)(nil)
	_ app.Relay   = (*BrowserOutput)(nil)
	_ app.Labeled = (*BrowserOutput)(nil)
)

// NewBrowserOutput restores the gateway from store.
func NewBrowserOutput(store ReservedStore, log *slog.Logger, now func() time.Time) (*BrowserOutput, error) {
	r, err := store.LoadReserved()
	if err != nil {
		return nil, fmt.Errorf("web: load the browser output's report ids: %w", err)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if now == nil {
		now = time.Now
	}
	return &BrowserOutput{store: store, log: log, now: now, gw: gateway.Restore(r), events: make(chan audio.Event, 256), volume: 100,
		openPCM: openDecoded, decodes: make(chan struct{}, maxDecodes)}, nil
}

// Relays says the app must feed only this output's reports to the engine.
func (o *BrowserOutput) Relays() bool { return true }

// OutputLabel names the browser the hub plays in while the page chosen
// last is open ("Linux · Chrome"); "" when no page is, and the hub shows
// as itself.
func (o *BrowserOutput) OutputLabel() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.gw.Selected(); !ok || !o.gw.Present() {
		return ""
	}
	return o.label
}

// Events delivers audio.Relayed and the track events the page reported.
func (o *BrowserOutput) Events() <-chan audio.Event { return o.events }

// outMsg is a command to the selected page.
type outMsg struct {
	T       string `json:"t"` // "out"
	Cmd     string `json:"cmd"`
	Content string `json:"content,omitempty"`
	Track   uint64 `json:"track,omitempty"`
	URL     string `json:"url,omitempty"`
	Dec     string `json:"dec,omitempty"` // the hub's decoding of it, for a browser that cannot play mime
	Mime    string `json:"mime,omitempty"`
	MS      int64  `json:"ms,omitempty"`
	Paused  bool   `json:"paused,omitempty"`
	Volume  int    `json:"volume"`
	Title   string `json:"title,omitempty"`
	// Gain is the track's ReplayGain in dB, as on the hub's device (the
	// hub's mode and the track's tags): the page scales its volume by it.
	Gain float64 `json:"gain,omitempty"`
}

// tell sends m to the selected page; called under o.mu.
func (o *BrowserOutput) tell(m outMsg) []byte {
	m.T, m.Volume = "out", o.volume
	b, _ := json.Marshal(m)
	if p, ok := o.gw.Selected(); ok && o.send != nil && o.gw.Present() {
		o.send(p, b)
	}
	return b
}

// Play tells the page to play src from at.
func (o *BrowserOutput) Play(src audio.Source, at time.Duration) audio.Track {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	o.cur, o.curSrc, o.paused = audio.Track{ID: src.ID, Seq: o.seq}, src, false
	o.next, o.nextSrc = audio.Track{}, audio.Source{} // the page drops its prepared one with a play
	o.pos, o.posAt, o.playing = at.Milliseconds(), o.now(), false
	o.lastCmd = o.tell(outMsg{Cmd: "play", Content: src.ID, Track: o.seq, URL: "/media/" + src.ID + fmt.Sprintf("?t=%d", o.seq),
		Dec: decURL(src.ID, o.seq), Mime: mimeOf(src.Path), MS: at.Milliseconds(), Title: src.Name, Gain: src.GainDB})
	return o.cur
}

// Pause tells the page to pause.
func (o *BrowserOutput) Pause() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.paused = true
	o.lastCmd = o.resend("pause")
}

// Resume tells the page to play on.
func (o *BrowserOutput) Resume() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.paused = false
	o.lastCmd = o.resend("resume")
}

// resend is the play command again with the paused flag: a page that
// missed one still ends in the right state. Called under o.mu.
func (o *BrowserOutput) resend(cmd string) []byte {
	if o.cur.Seq == 0 {
		return nil
	}
	return o.tell(outMsg{Cmd: cmd, Content: o.cur.ID, Track: o.cur.Seq, URL: "/media/" + o.cur.ID + fmt.Sprintf("?t=%d", o.cur.Seq),
		Dec: decURL(o.cur.ID, o.cur.Seq), Mime: mimeOf(o.curSrc.Path), MS: o.posNowLocked().Milliseconds(), Paused: o.paused, Title: o.curSrc.Name, Gain: o.curSrc.GainDB})
}

// Stop silences the page: the hub lost the claim or the queue ended.
func (o *BrowserOutput) Stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tell(outMsg{Cmd: "stop"})
	o.cur, o.curSrc, o.lastCmd, o.playing = audio.Track{}, audio.Source{}, nil, false
	o.next, o.nextSrc = audio.Track{}, audio.Source{}
}

// Seek tells the page to seek.
func (o *BrowserOutput) Seek(d time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur.Seq == 0 {
		return false
	}
	o.pos, o.posAt = d.Milliseconds(), o.now()
	o.tell(outMsg{Cmd: "seek", Track: o.cur.Seq, MS: d.Milliseconds()})
	return true
}

// SetVolume sets the page's element volume.
func (o *BrowserOutput) SetVolume(v int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.volume = max(0, min(100, v))
	o.tell(outMsg{Cmd: "volume"})
}

// SetGain sets the ReplayGain of the current track (the hub's mode
// changed): the page applies it at once. The next track has none
// prepared (PrepareNext), so t is the current one or nothing.
func (o *BrowserOutput) SetGain(t audio.Track, db float64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur.Seq == 0 || t != o.cur {
		return false
	}
	o.curSrc.GainDB = db
	// The command again with the new gain: the page applies it and does
	// what it does already; a page that comes back gets it too.
	cmd := "resume"
	if o.paused {
		cmd = "pause"
	}
	o.lastCmd = o.resend(cmd)
	return true
}

// Report is the state the page last reported (the app shows it; it never
// becomes a heartbeat, see Relays).
func (o *BrowserOutput) Report() audio.Report {
	o.mu.Lock()
	defer o.mu.Unlock()
	return audio.Report{Available: o.avail, Playing: o.playing, Paused: o.paused, Track: o.cur, Pos: o.posNowLocked(), Volume: o.volume}
}

// maxAhead is how far past the page's last report the position moves on:
// one and a half of the page's report intervals (500 ms). A page that went
// away (tab closed, phone asleep) leaves the position where it last
// reported, so the device that fails over resumes there.
const maxAhead = 750 * time.Millisecond

func (o *BrowserOutput) posNowLocked() time.Duration {
	p := time.Duration(o.pos) * time.Millisecond
	if o.playing {
		p += min(o.now().Sub(o.posAt), maxAhead)
	}
	return p
}

// Source is the source of content id if the hub plays it now (the only
// files /media serves).
func (o *BrowserOutput) Source(id string) (audio.Source, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.cur.Seq != 0 && o.cur.ID == id:
		return o.curSrc, true
	case o.next.Seq != 0 && o.next.ID == id:
		return o.nextSrc, true // the page loads it ahead
	}
	return audio.Source{}, false
}

// Stats are the gateway's counters.
func (o *BrowserOutput) Stats() gateway.Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.gw.Stats()
}

// OutputInfo is the browser output as `ctl web info` shows it.
type OutputInfo struct {
	Browser    string `json:"browser,omitempty"` // the selected page's browser id
	Present    bool   `json:"present"`           // that page is connected
	Reports    uint64 `json:"reports"`           // browser reports that reached the engine
	LastSource uint64 `json:"last_source"`       // the last one's source id
	Reserved   uint64 `json:"reserved"`          // ids up to here are reserved in the checkpoint
	Startups   uint64 `json:"startups"`
	// Ignored counts the refused reports by reason.
	IgnoredMalformed   uint64 `json:"ignored_malformed"`
	IgnoredNotSelected uint64 `json:"ignored_not_selected"`
	IgnoredRevoked     uint64 `json:"ignored_revoked"`
	IgnoredStale       uint64 `json:"ignored_stale"`
	// DecodeErrors counts the decodings for a browser that failed,
	// LastDecodeError says why the last one did.
	DecodeErrors    uint64 `json:"decode_errors"`
	LastDecodeError string `json:"last_decode_error,omitempty"`
}

// Info is what `ctl web info` shows of the output.
func (o *BrowserOutput) Info() OutputInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := o.gw.Stats()
	in := OutputInfo{Present: o.gw.Present(), Reports: st.Reports, LastSource: o.gw.Last().Source, Reserved: o.gw.Reserved(),
		Startups: st.Startups, IgnoredMalformed: st.Ignored[gateway.Malformed], IgnoredNotSelected: st.Ignored[gateway.NotSelected],
		IgnoredRevoked: st.Ignored[gateway.Revoked], IgnoredStale: st.Ignored[gateway.Stale],
		DecodeErrors: o.decodeErrors, LastDecodeError: o.lastDecodeError}
	if p, ok := o.gw.Selected(); ok {
		in.Browser = p.Browser
	}
	return in
}

// Selected is the page that is the output, and whether it is connected.
func (o *BrowserOutput) Selected() (p gateway.Page, present, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, ok = o.gw.Selected()
	return p, o.gw.Present(), ok
}

// open makes p the output; it returns the page's token, whether this is
// the page's startup, and the current play command to send it.
// label is its browser's, the name the devices' pickers show.
func (o *BrowserOutput) open(p gateway.Page, label string, fresh bool) (token uint64, startup bool, cmd []byte, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	token, startup, err = o.gw.Select(p, fresh)
	if err != nil {
		return 0, false, nil, err
	}
	if err := o.persistLocked(); err != nil {
		o.gw.Deselect(p)
		return 0, false, nil, err
	}
	o.label = label
	if o.label == "" {
		o.label = "A browser"
	}
	return token, startup, o.lastCmd, nil
}

func (o *BrowserOutput) persistLocked() error {
	if !o.gw.Dirty() {
		return nil
	}
	if err := o.store.SaveReserved(o.gw.Reserved()); err != nil {
		return fmt.Errorf("web: save the browser output's report ids: %w", err)
	}
	o.gw.Saved()
	return nil
}

// report takes a page's report: only an accepted one becomes events.
func (o *BrowserOutput) report(in gateway.In, track uint64, errText string) error {
	o.mu.Lock()
	r, err := o.gw.Report(in)
	if err == nil {
		err = o.persistLocked() // before the id is published
	}
	if err != nil {
		o.mu.Unlock()
		return err
	}
	evs := []audio.Event{audio.Relayed{Source: r.Source, Available: r.Output.Available, Playing: r.Output.Playing}}
	o.avail, o.playing = r.Output.Available, r.Output.Playing
	if track != 0 && track == o.next.Seq && (r.Kind == gateway.Started || r.Kind == gateway.Playing) {
		o.promoteNextLocked() // the page ran into the prepared track
	}
	if track != 0 && track == o.cur.Seq {
		o.pos, o.posAt = r.PosMS, o.now()
		switch r.Kind {
		case gateway.Started:
			evs = append(evs, audio.Started{Track: o.cur, At: time.Duration(r.PosMS) * time.Millisecond})
		case gateway.Ended:
			evs = append(evs, audio.Finished{Track: o.cur})
		case gateway.Error:
			if errText == "" {
				errText = "the browser cannot play it"
			}
			evs = append(evs, audio.DecodeError{Track: o.cur, Err: errors.New(errText)})
		}
	}
	o.mu.Unlock()
	for _, ev := range evs {
		o.events <- ev
	}
	return nil
}

// gone and revoke pass presence and revocations to the gateway.
func (o *BrowserOutput) gone(p gateway.Page) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gw.Gone(p)
}

func (o *BrowserOutput) revoke(browser string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gw.Revoke(browser)
}

func (o *BrowserOutput) attach(send func(gateway.Page, []byte) bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.send = send
}

// sendToPage queues msg for page p's WebSocket; false when it is not
// connected or does not read.
func (s *Server) sendToPage(p gateway.Page, msg []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.browser == p.Browser && c.page == p.Page {
			select {
			case c.replies <- msg:
				return true
			default:
				return false
			}
		}
	}
	return false
}

// openReply is output_open's answer.
type openReply struct {
	Token uint64 `json:"token"`
}

// startupper is the Backend's startup intent (*app.App has it).
type startupper interface{ RequestStartup() error }

// outputOp runs the page's output ops (protocol.md).
func (c *conn) outputOp(req request) (any, error) {
	out := c.s.opts.Output
	if out == nil {
		return nil, userErr(ErrBadRequest, "This device does not play in browsers: start furudesk with --web-hub for that.")
	}
	if req.Page == "" || len(req.Page) > gateway.MaxIDLen {
		return nil, userErr(ErrBadRequest, "This page did not say which page it is.")
	}
	p := gateway.Page{Browser: c.browser, Page: req.Page}
	switch req.Op {
	case "output_open":
		c.s.mu.Lock()
		c.page = req.Page
		c.s.mu.Unlock()
		token, startup, cmd, err := out.open(p, c.label, req.Fresh)
		if err != nil {
			return nil, userErr(ErrBadRequest, "This browser cannot be the output: %v", err)
		}
		if startup {
			if st, ok := c.s.opts.Backend.(startupper); ok {
				if err := st.RequestStartup(); err != nil {
					c.s.log.Warn("web: startup", "error", err)
				}
			}
		}
		if req.Here {
			if err := c.s.opts.Backend.Transfer(c.s.opts.Backend.Status().DeviceID); err != nil {
				return nil, err
			}
		} else if cmd != nil {
			// A page that comes back gets what it should be doing.
			select {
			case c.replies <- cmd:
			default:
			}
		}
		return openReply{Token: token}, nil
	case "output_report":
		in := gateway.In{From: p, Token: req.Token, Seq: req.Seq, Kind: gateway.Kind(req.Kind), Content: req.Content, PosMS: req.MS}
		if err := out.report(in, req.Track, req.Err); err != nil {
			return nil, userErr(ErrBadRequest, "Report ignored: %v", err)
		}
		return nil, nil
	}
	return nil, errUnknownOp
}

// serveMedia serves the file the hub plays now, with HTTP Range, to paired
// browsers: nothing else is ever served.
func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request, id string) {
	if _, err := s.browserOf(r); err != nil {
		http.Error(w, Message(err), http.StatusUnauthorized)
		return
	}
	if s.opts.Output == nil {
		http.Error(w, "This device does not play in browsers.", http.StatusNotFound)
		return
	}
	src, ok := s.opts.Output.Source(id)
	if !ok {
		http.Error(w, "This track is not playing here.", http.StatusNotFound)
		return
	}
	if r.URL.Query().Get("as") == "wav" {
		s.serveDecoded(w, r, src)
		return
	}
	f, err := openSource(src)
	if err != nil {
		s.log.Warn("web: media", "id", id, "error", err)
		http.Error(w, "The file of this track cannot be read.", http.StatusNotFound)
		return
	}
	defer f.Close()
	if m := mimeOf(src.Path); m != "" {
		w.Header().Set("Content-Type", m)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", time.Time{}, f)
}

// mimeOf is the MIME type the page asks canPlayType about.
func mimeOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mp3":
		return "audio/mpeg"
	case ".flac":
		return "audio/flac"
	case ".ogg", ".oga":
		return "audio/ogg"
	case ".opus":
		return "audio/ogg; codecs=opus"
	case ".m4a", ".mp4", ".aac":
		return "audio/mp4"
	case ".wav":
		return "audio/wav"
	case ".webm":
		return "audio/webm"
	}
	return ""
}
