// Package web is furudesk's web player: an HTTP server that any browser
// on the network opens, after pairing with a one-use code, as a full
// remote of the group. One WebSocket per page carries the pushed state
// and the page's commands (see protocol.md); the commands are the App
// methods ctl and the window call. The page is embedded in the binary.
//
// The pure core is Pairing (codes, wrong attempts, credentials) and the
// token bucket; Server does the I/O around them.
package web

import (
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
)

// cookieName is the browser's credential cookie.
const cookieName = "furudesk_web"

// Options configure a Server. Backend and Store are required.
type Options struct {
	// Addr is host:port to listen on (":8443": every address).
	Addr    string
	Backend Backend
	Store   CredStore
	// Group, when set, is the group's log that carries the paired
	// browsers to every member (group.go); nil keeps them on this device.
	Group  GroupLog
	Logger *slog.Logger
	// Output, when set, makes this server the web hub: its device plays
	// through the browser page chosen last (output.go).
	Output *BrowserOutput
	// Now and Rand default to time.Now and crypto/rand.
	Now  func() time.Time
	Rand io.Reader
}

// Counters count what the server refused, for `ctl web`.
type Counters struct {
	BadOrigin    int64 `json:"bad_origin"`
	Unauthorized int64 `json:"unauthorized"`
	TooBig       int64 `json:"too_big"`
	Malformed    int64 `json:"malformed"`
	Flood        int64 `json:"flood"`
	WrongCodes   int64 `json:"wrong_codes"`
	TooManyConns int64 `json:"too_many_conns"`
}

type counters struct {
	badOrigin, unauthorized, tooBig, malformed, flood, wrongCodes, tooMany atomic.Int64
}

// Server is a running web player.
type Server struct {
	opts    Options
	log     *slog.Logger
	pairing *Pairing
	ln      net.Listener
	http    *http.Server
	cnt     counters

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	state []byte // the newest state message, encoded
	seq   uint64 // moves with state
	conns map[*conn]struct{}
	saveM sync.Mutex // orders the saves of the browsers
}

// Start listens on opts.Addr and serves until Close.
func Start(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("web: listen on %s: %w", opts.Addr, err)
	}
	s, err := New(opts)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	s.ln = ln
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 16 << 10, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("web", "error", err)
		}
	}()
	return s, nil
}

// New returns a Server that does not listen: its ServeHTTP serves (tests
// use it with httptest). Close ends it.
func New(opts Options) (*Server, error) {
	if opts.Backend == nil || opts.Store == nil {
		return nil, errors.New("web: Options.Backend and Options.Store are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = crand.Reader
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, log: opts.Logger, pairing: NewPairing(opts.Now, opts.Rand), conns: map[*conn]struct{}{}}
	data, err := opts.Store.LoadBrowsers()
	if err != nil {
		return nil, fmt.Errorf("web: load the paired browsers: %w", err)
	}
	if err := s.pairing.Load(data); err != nil {
		return nil, err
	}
	if opts.Group != nil {
		_, ops := opts.Group.AppOps()
		s.pairing.Replay(OpsOf(ops))
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if opts.Output != nil {
		opts.Output.attach(s.sendToPage)
	}
	updates, cancel := opts.Backend.Subscribe()
	s.setState(opts.Backend.Status())
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		for {
			select {
			case <-s.ctx.Done():
				return
			case st := <-updates:
				s.setState(st)
			}
		}
	}()
	return s, nil
}

// Close stops the server and ends every page's connection.
func (s *Server) Close() error {
	var err error
	if s.http != nil {
		err = s.http.Close()
	}
	s.cancel()
	s.mu.Lock()
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// URLs are the addresses a browser on the network opens: one per
// non-loopback IPv4 address of this machine when listening on all of
// them, then the loopback one.
func (s *Server) URLs() []string {
	a, ok := s.Addr().(*net.TCPAddr)
	if !ok {
		return nil
	}
	port := strconv.Itoa(a.Port)
	if !a.IP.IsUnspecified() {
		return []string{"http://" + net.JoinHostPort(a.IP.String(), port) + "/"}
	}
	var out []string
	ifs, _ := net.InterfaceAddrs()
	for _, ia := range ifs {
		if n, ok := ia.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, "http://"+net.JoinHostPort(n.IP.String(), port)+"/")
		}
	}
	return append(out, "http://"+net.JoinHostPort("127.0.0.1", port)+"/")
}

// Info is the web player's state as `ctl web` prints it.
type Info struct {
	URLs      []string      `json:"urls"`
	Browsers  []BrowserInfo `json:"browsers"`
	OpenCodes int           `json:"open_codes"`
	Connected int           `json:"connected"`
	Refused   Counters      `json:"refused"`
	// Output is the web hub's browser output (--web-hub), else nil.
	Output *OutputInfo `json:"output,omitempty"`
}

// BrowserInfo is a paired browser as listed: never its credential's hash.
type BrowserInfo struct {
	ID        string    `json:"id"`
	Label     string    `json:"label"`
	Paired    time.Time `json:"paired"`
	LastSeen  time.Time `json:"last_seen"`
	Connected bool      `json:"connected"`
}

// Info returns the web player's state.
func (s *Server) Info() Info {
	in := Info{URLs: s.URLs(), Browsers: s.Browsers(), OpenCodes: s.pairing.OpenCodes(), Refused: s.Counters()}
	s.mu.Lock()
	in.Connected = len(s.conns)
	s.mu.Unlock()
	if s.opts.Output != nil {
		oi := s.opts.Output.Info()
		in.Output = &oi
	}
	return in
}

// Counters returns what was refused so far.
func (s *Server) Counters() Counters {
	c := &s.cnt
	return Counters{BadOrigin: c.badOrigin.Load(), Unauthorized: c.unauthorized.Load(), TooBig: c.tooBig.Load(),
		Malformed: c.malformed.Load(), Flood: c.flood.Load(), WrongCodes: c.wrongCodes.Load(), TooManyConns: c.tooMany.Load()}
}

// Browsers lists the paired browsers.
func (s *Server) Browsers() []BrowserInfo {
	s.mu.Lock()
	on := map[string]bool{}
	for c := range s.conns {
		on[c.browser] = true
	}
	s.mu.Unlock()
	var out []BrowserInfo
	for _, b := range s.pairing.Browsers() {
		out = append(out, BrowserInfo{ID: b.ID, Label: b.Label, Paired: b.Paired, LastSeen: b.LastSeen, Connected: on[b.ID]})
	}
	if out == nil {
		out = []BrowserInfo{}
	}
	return out
}

// Code is a pairing code to show to the user.
type Code struct {
	Code    string    `json:"code"`
	Expires time.Time `json:"expires"`
}

// NewCode returns a fresh one-use pairing code.
func (s *Server) NewCode() (Code, error) {
	c, exp, err := s.pairing.NewCode()
	return Code{Code: c, Expires: exp}, err
}

// Revoke removes the browser id: its credential stops working and its
// open pages are shown out at once.
func (s *Server) Revoke(id string) (BrowserInfo, error) {
	b, err := s.pairing.Revoke(id)
	if err != nil {
		return BrowserInfo{}, err
	}
	s.showOut([]string{id})
	if s.opts.Group != nil {
		if err := appendOp(s.opts.Group, RevokedOp(id)); err != nil {
			return BrowserInfo{}, err
		}
	}
	if err := s.save(); err != nil {
		return BrowserInfo{}, err
	}
	return BrowserInfo{ID: b.ID, Label: b.Label, Paired: b.Paired, LastSeen: b.LastSeen}, nil
}

// showOut ends the pages of the browsers ids with the revoked message.
func (s *Server) showOut(ids []string) {
	// The output's lock is taken before s.mu elsewhere (it sends to pages):
	// never under s.mu.
	for _, id := range ids {
		if s.opts.Output != nil {
			s.opts.Output.revoke(id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if slices.Contains(ids, c.browser) {
			c.bye("revoked", "This browser was removed from the group: pair it again with a code.")
		}
	}
}

// OpsAdded takes the ops the group's log added (app.App.WatchOps): the
// browsers paired or revoked on other members; a revoked one's pages are
// shown out at once. It does not block.
func (s *Server) OpsAdded(ops []devicesync.Op) {
	if gone := s.pairing.Apply(OpsOf(ops)); len(gone) > 0 {
		s.showOut(gone)
		go func() {
			if err := s.save(); err != nil {
				s.log.Warn("web", "error", err)
			}
		}()
	}
}

func (s *Server) save() error {
	s.saveM.Lock()
	defer s.saveM.Unlock()
	if err := s.opts.Store.SaveBrowsers(s.pairing.Marshal()); err != nil {
		return fmt.Errorf("web: save the paired browsers: %w", err)
	}
	return nil
}

// stateMsg is the pushed state.
type stateMsg struct {
	T     string    `json:"t"`
	State StateView `json:"state"`
}

func (s *Server) setState(st app.Status) {
	b, err := json.Marshal(stateMsg{T: "state", State: ViewOf(st)})
	if err != nil {
		s.log.Warn("web: encode state", "error", err)
		return
	}
	s.mu.Lock()
	s.state = b
	s.seq++
	for c := range s.conns {
		c.notify()
	}
	s.mu.Unlock()
}

// ServeHTTP serves the page, the pairing, the covers and the WebSocket.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	switch {
	case r.URL.Path == "/ws":
		s.serveWS(w, r)
	case r.URL.Path == "/api/pair":
		s.servePair(w, r)
	case r.URL.Path == "/api/session":
		s.serveSession(w, r)
	case r.URL.Path == "/api/forget":
		s.serveForget(w, r)
	case strings.HasPrefix(r.URL.Path, "/media/"):
		s.serveMedia(w, r, strings.TrimPrefix(r.URL.Path, "/media/"))
	case strings.HasPrefix(r.URL.Path, "/cover/"):
		s.serveCover(w, r, strings.TrimPrefix(r.URL.Path, "/cover/"))
	default:
		serveStatic(w, r)
	}
}

// sameOrigin says whether r comes from a page of this server: its Origin
// names the host the request was sent to. Without an Origin (not a
// browser's request) it is allowed only when allowMissing.
func (s *Server) sameOrigin(r *http.Request, allowMissing bool) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return allowMissing
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// browserOf authenticates r's credential cookie.
func (s *Server) browserOf(r *http.Request) (Browser, error) {
	ck, err := r.Cookie(cookieName)
	if err != nil {
		return Browser{}, ErrNotPaired
	}
	b, save, err := s.pairing.Authenticate(ck.Value)
	if err != nil {
		return Browser{}, err
	}
	if save {
		if err := s.save(); err != nil {
			s.log.Warn("web", "error", err)
		}
	}
	return b, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

type apiAnswer struct {
	OK      bool   `json:"ok"`
	Paired  bool   `json:"paired"`
	Error   string `json:"error,omitempty"`
	Browser string `json:"browser,omitempty"`
	Device  string `json:"device,omitempty"`
}

// remoteIP is the address wrong codes are counted for.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (s *Server) servePair(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, apiAnswer{Error: "Pair with a POST request."})
		return
	}
	if !s.sameOrigin(r, true) {
		s.cnt.badOrigin.Add(1)
		writeJSON(w, http.StatusForbidden, apiAnswer{Error: "This request comes from another site: open the web player's own page."})
		return
	}
	var body struct {
		Code string `json:"code"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxPairBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		s.cnt.malformed.Add(1)
		writeJSON(w, http.StatusBadRequest, apiAnswer{Error: "The pairing request was malformed: reload the page."})
		return
	}
	tok, b, err := s.pairing.Redeem(remoteIP(r), body.Code, LabelOf(r.UserAgent()))
	if err != nil {
		code := http.StatusUnauthorized
		switch {
		case errors.Is(err, ErrBlocked):
			code = http.StatusTooManyRequests
		case errors.Is(err, ErrFull):
			code = http.StatusConflict
		default:
			s.cnt.wrongCodes.Add(1)
		}
		writeJSON(w, code, apiAnswer{Error: Message(err)})
		return
	}
	if err := s.save(); err != nil {
		_, _ = s.pairing.Revoke(b.ID)
		writeJSON(w, http.StatusInternalServerError, apiAnswer{Error: "This device could not save the pairing: try again."})
		return
	}
	if s.opts.Group != nil {
		if err := appendOp(s.opts.Group, PairedOp(b)); err != nil {
			_, _ = s.pairing.Revoke(b.ID)
			_ = s.save()
			writeJSON(w, http.StatusInternalServerError, apiAnswer{Error: "This device could not share the pairing with the group: try again."})
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil, MaxAge: 400 * 24 * 3600})
	s.log.Info("web: browser paired", "browser", b.ID, "label", b.Label)
	writeJSON(w, http.StatusOK, apiAnswer{OK: true, Paired: true, Browser: b.Label, Device: s.opts.Backend.Status().DeviceName})
}

func (s *Server) serveSession(w http.ResponseWriter, r *http.Request) {
	b, err := s.browserOf(r)
	if err != nil {
		a := apiAnswer{Device: s.opts.Backend.Status().DeviceName}
		if _, e := r.Cookie(cookieName); e == nil {
			a.Error = Message(err) // a credential that no longer works
		}
		writeJSON(w, http.StatusOK, a)
		return
	}
	writeJSON(w, http.StatusOK, apiAnswer{OK: true, Paired: true, Browser: b.Label, Device: s.opts.Backend.Status().DeviceName})
}

// serveForget unpairs the browser that asks (its own "Forget this
// browser").
func (s *Server) serveForget(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !s.sameOrigin(r, false) {
		s.cnt.badOrigin.Add(1)
		writeJSON(w, http.StatusForbidden, apiAnswer{Error: "Forget this browser from its own page."})
		return
	}
	b, err := s.browserOf(r)
	if err != nil {
		writeJSON(w, http.StatusUnauthorized, apiAnswer{Error: Message(err)})
		return
	}
	if _, err := s.Revoke(b.ID); err != nil {
		writeJSON(w, http.StatusInternalServerError, apiAnswer{Error: Message(err)})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	writeJSON(w, http.StatusOK, apiAnswer{OK: true})
}

// validContentID says whether id can be a content id (no paths, no dots).
func validContentID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

func (s *Server) serveCover(w http.ResponseWriter, r *http.Request, id string) {
	if _, err := s.browserOf(r); err != nil {
		s.cnt.unauthorized.Add(1)
		http.Error(w, "This browser is not paired.", http.StatusUnauthorized)
		return
	}
	if !validContentID(id) {
		http.Error(w, "No such track.", http.StatusNotFound)
		return
	}
	b, err := s.opts.Backend.Cover(id)
	if err != nil || len(b) == 0 {
		http.Error(w, "No cover for this track.", http.StatusNotFound)
		return
	}
	ct := http.DetectContentType(b)
	if !strings.HasPrefix(ct, "image/") {
		http.Error(w, "No cover for this track.", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(b)
}
