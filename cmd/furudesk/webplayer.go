package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/storage"
	"github.com/furudesk/furudesk/ui"
	"github.com/furudesk/furudesk/web"
)

// webBrowsersKey is the setting holding the paired browsers (hashes of
// their credentials only, see web.Pairing); webAddrKey the address the
// window's Settings turned the web player on at (absent: off).
const (
	webBrowsersKey = "web_browsers"
	webAddrKey     = "web_addr"
)

// webCreds keeps the paired browsers in the store's settings.
type webCreds struct{ s *storage.Store }

func (c webCreds) LoadBrowsers() ([]byte, error) {
	v, _, err := c.s.Setting(webBrowsersKey)
	return []byte(v), err
}

func (c webCreds) SaveBrowsers(b []byte) error { return c.s.SetSetting(webBrowsersKey, string(b)) }

// webHubReservedKey holds the web hub's reserved browser report ids (the
// gateway's checkpoint, web/gateway).
const webHubReservedKey = "web_hub_reserved"

// hubReserved keeps them in the store's settings.
type hubReserved struct{ s *storage.Store }

func (h hubReserved) LoadReserved() (uint64, error) {
	v, ok, err := h.s.Setting(webHubReservedKey)
	if err != nil || !ok {
		return 0, err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the stored %s %q is not a number", webHubReservedKey, v)
	}
	return n, nil
}

func (h hubReserved) SaveReserved(n uint64) error {
	return h.s.SetSetting(webHubReservedKey, strconv.FormatUint(n, 10))
}

// webPlayer is the device's web player, off until started (--web, or
// the window's Settings).
type webPlayer struct {
	app   *app.App
	store *storage.Store
	group web.GroupLog // the group's log: the paired browsers are the group's
	log   *slog.Logger
	out   *web.BrowserOutput // the web hub's output (--web-hub), else nil

	mu  sync.Mutex
	srv *web.Server
}

// start serves the web player on addr (one at a time: a running one is
// stopped first).
func (w *webPlayer) start(addr string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.srv != nil {
		_ = w.srv.Close()
		w.srv = nil
	}
	s, err := web.Start(web.Options{Addr: addr, Backend: w.app, Store: webCreds{w.store}, Group: w.group, Logger: w.log, Output: w.out})
	if err != nil {
		return err
	}
	w.srv = s
	w.log.Info("web player", "urls", strings.Join(s.URLs(), " "))
	return nil
}

// opsAdded hands the running web player the ops of the group's log
// (app.App.WatchOps; on the actor's goroutine, so it does not block).
func (w *webPlayer) opsAdded(_ string, ops []devicesync.Op) {
	w.mu.Lock()
	s := w.srv
	w.mu.Unlock()
	if s != nil {
		s.OpsAdded(ops)
	}
}

// browsers lists the group's paired browsers, also with the web player
// off.
func (w *webPlayer) browsers() ([]web.BrowserInfo, error) {
	if s, err := w.server(); err == nil {
		return s.Browsers(), nil
	}
	return web.ListBrowsers(webCreds{w.store}, w.group)
}

// revoke removes a browser from the group, also with the web player off.
func (w *webPlayer) revoke(id string) (web.BrowserInfo, error) {
	var b web.BrowserInfo
	var err error
	if s, serr := w.server(); serr == nil {
		b, err = s.Revoke(id)
	} else {
		b, err = web.RevokeBrowser(webCreds{w.store}, w.group, id)
	}
	if err != nil {
		return b, fmt.Errorf("%s", web.Message(err))
	}
	return b, nil
}

// launch starts the web player at launch: on flag (--web) when given,
// else where the Settings left it.
func (w *webPlayer) launch(flag string) error {
	if flag != "" {
		if err := w.start(flag); err != nil {
			return fmt.Errorf("--web %s: %w", flag, err)
		}
		return nil
	}
	addr, ok, err := w.store.Setting(webAddrKey)
	if err != nil || !ok || addr == "" {
		return err
	}
	if err := w.start(addr); err != nil {
		// The saved address is taken (another program): the device
		// runs without the web player, and Settings says so.
		w.log.Warn("web player not started", "addr", addr, "error", err)
	}
	return nil
}

var _ ui.WebPlayer = (*webPlayer)(nil)

// WebState, SetWeb, NewWebCode and RevokeBrowser are the window's
// Settings card (ui.WebPlayer).
func (w *webPlayer) WebState() ui.WebState {
	addr, _, _ := w.store.Setting(webAddrKey)
	s, err := w.server()
	if err != nil {
		bs, _ := w.browsers()
		return ui.WebState{Addr: addr, Browsers: bs}
	}
	return ui.WebState{On: true, Addr: s.Addr().String(), URLs: s.URLs(), Browsers: s.Browsers()}
}

func (w *webPlayer) SetWeb(on bool, addr string) error {
	if !on {
		if err := w.stop(); err != nil {
			return err
		}
		return w.store.DeleteSetting(webAddrKey)
	}
	if err := w.start(addr); err != nil {
		return fmt.Errorf("%s is not free or not an address of this machine (%v)", addr, err)
	}
	return w.store.SetSetting(webAddrKey, addr)
}

func (w *webPlayer) NewWebCode() (web.Code, error) {
	s, err := w.server()
	if err != nil {
		return web.Code{}, fmt.Errorf("%s", web.Message(err))
	}
	return s.NewCode()
}

func (w *webPlayer) RevokeBrowser(id string) error {
	_, err := w.revoke(id)
	return err
}

func (w *webPlayer) stop() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.srv == nil {
		return nil
	}
	err := w.srv.Close()
	w.srv = nil
	return err
}

// server is the running web player, or web.ErrOff.
func (w *webPlayer) server() (*web.Server, error) {
	if w == nil {
		return nil, web.ErrOff
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.srv == nil {
		return nil, web.ErrOff
	}
	return w.srv, nil
}

// ctlWeb runs `ctl web [pair | info | browsers | revoke ID]`.
func ctlWeb(w *webPlayer, req ctlRequest) (any, error) {
	if w != nil && len(req.Args) > 0 {
		// The group's browsers, listed and revoked by any member.
		switch {
		case req.Args[0] == "browsers" && len(req.Args) == 1:
			return w.browsers()
		case req.Args[0] == "revoke" && len(req.Args) == 2:
			b, err := w.revoke(req.Args[1])
			if err != nil {
				return nil, err
			}
			return ctlMessage("Removed " + b.Label + " (" + b.ID + "), paired " + b.Paired.Local().Format(time.DateOnly) + ", from the group: its pages are shown out"), nil
		}
	}
	s, err := w.server()
	if err != nil {
		return nil, fmt.Errorf("%s", web.Message(err))
	}
	sub := ""
	if len(req.Args) > 0 {
		sub = req.Args[0]
	}
	switch {
	case sub == "" && len(req.Args) == 0:
		in := s.Info()
		var b strings.Builder
		fmt.Fprintf(&b, "Web player: %s", in.URLs[0])
		if len(in.URLs) > 1 {
			fmt.Fprintf(&b, " (also %s)", strings.Join(in.URLs[1:], ", "))
		}
		conn := 0
		for _, br := range in.Browsers {
			if br.Connected {
				conn++
			}
		}
		fmt.Fprintf(&b, "\nPaired browsers: %d, %d of them connected now", len(in.Browsers), conn)
		fmt.Fprintf(&b, "\nPairing codes waiting: %d (furudesk ctl web pair makes one)", in.OpenCodes)
		return ctlMessage(b.String()), nil
	case sub == "pair" && len(req.Args) == 1:
		c, err := s.NewCode()
		if err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Pairing code: %s-%s (one browser, valid until %s)\nOpen %s in the browser and type it.",
			c.Code[:4], c.Code[4:], c.Expires.Local().Format("15:04"), s.URLs()[0])), nil
	case sub == "info" && len(req.Args) == 1:
		return s.Info(), nil
	}
	return nil, fmt.Errorf("usage: web | web pair | web info | web browsers | web revoke BROWSER_ID")
}
