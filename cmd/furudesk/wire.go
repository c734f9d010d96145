package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/portmap"
	"github.com/furudesk/furudesk/storage"
	"github.com/furudesk/furudesk/web"
)

// device is one running furudesk: the store, the transport, the output, the
// app and its ctl socket, closed in reverse order.
type device struct {
	app    *app.App
	store  *storage.Store
	node   *devicesync.Node
	pm     *portmap.Mapper
	gl     *grouplib.Library
	out    *audio.Output
	hubOut *web.BrowserOutput // the web hub's output (--web-hub), else nil
	ctl    *ctlServer
	web    *webPlayer
	cancel context.CancelFunc
	log    *slog.Logger

	glStart   sync.Once // the group library starts once: at once, or when the window listed the library
	closeOnce sync.Once // close runs once, whoever calls it first (the window's quit, a signal's)
	closeErr  error
}

// startGroupLib starts the group library's sync, once.
func (d *device) startGroupLib() { d.glStart.Do(d.gl.Start) }

func openDevice(opts options, stderr io.Writer) (*device, error) {
	level := slog.LevelInfo
	if opts.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	d := &device{log: logger}
	fail := func(err error) (*device, error) {
		_ = d.close()
		return nil, err
	}
	var err error
	if d.store, err = storage.Open(opts.dataDir); err != nil {
		return nil, err
	}
	id, err := d.store.Identity()
	if errors.Is(err, storage.ErrNoIdentity) {
		id, err = newIdentity(d.store, opts.name)
	}
	if err != nil {
		return fail(err)
	}
	name := opts.name
	if name == "" {
		name = id.DeviceName
	}
	exclude, err := mdnsExclude(d.store, opts.mdnsExclude, opts.mdnsExcludeSet)
	if err != nil {
		return fail(err)
	}
	if on, set := app.CarrySetting(d.store); set && !opts.carrySet {
		opts.carry = on // Settings › Carry other devices' traffic
	}
	public := opts.public
	if stored, set := app.PublicSetting(d.store); set && !opts.publicSet {
		public = stored // Settings / ctl public-addr
	} else if opts.publicSet {
		if err := devicesync.ValidatePublic(public); err != nil {
			return fail(fmt.Errorf("--public-addr: %w", err))
		}
		if err := app.SavePublicSetting(d.store, public); err != nil {
			return fail(err)
		}
	}
	if devicesync.ValidatePublic(public) != nil {
		public = nil // a stored value gone bad: the user sets it again
	}
	if d.node, err = devicesync.New(devicesync.Config{Key: id.PrivateKey, Name: name, Listen: opts.listen,
		Peers: opts.peers, Public: public, MDNS: opts.mdns, MDNSExclude: exclude, Carry: opts.carry, Store: app.NewSyncStore(d.store, nil), Logger: logger}); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	if err := d.node.Start(ctx); err != nil {
		d.node = nil
		return fail(err)
	}
	d.pm = portmap.New(d.node.ListenPort(), d.node.SetMapped, logger)
	if on := app.PortMapSetting(d.store); on || opts.portMapSet {
		if opts.portMapSet {
			on = opts.portMap
			if err := app.SavePortMapSetting(d.store, on); err != nil {
				return fail(err)
			}
		}
		d.pm.SetOn(on)
	}
	var out app.Output
	if opts.webHub {
		if opts.web == "" {
			return fail(errors.New("--web-hub needs --web ADDR: the browsers reach the hub there"))
		}
		if _, ok, err := d.store.Setting("passive"); err == nil && !ok {
			opts.passive = true // the hub's default profile; ctl config and Settings change it
		}
		if d.hubOut, err = web.NewBrowserOutput(hubReserved{d.store}, logger, nil); err != nil {
			return fail(err)
		}
		out = d.hubOut
	} else {
		// No Position events: the app takes the position from Report
		// when it needs it, and each event would wake it (issue 37).
		if d.out, err = audio.Open(audio.Options{PositionInterval: -1}); err != nil {
			return fail(err)
		}
		out = d.out
	}
	// FFmpeg loads at the first decode or probe, not now (see audio)
	audio.WhenLoaded(func(decoders string) { logger.Info("audio", "decoders", decoders) })
	cacheLimit, uploadRate := app.GroupLibrarySettings(d.store)
	if d.gl, err = grouplib.New(grouplib.Config{Self: d.node.ID(), Net: d.node, Log: d.node, Store: d.store,
		Files: app.GroupFiles(d.store), Dir: filepath.Join(opts.dataDir, "cache"), CacheLimit: cacheLimit,
		UploadRate: uploadRate, Logger: logger}); err != nil {
		return fail(err)
	}
	d.node.HandleFetch(d.gl.ServeFetch)
	d.app, err = app.New(app.Options{DataDir: opts.dataDir, Listen: opts.listen, Peers: opts.peers,
		Music: opts.music, Passive: opts.passive, Box: opts.headless, Name: name, Config: opts.config, Logger: logger,
		HoldLaunchScan: launchHold(opts)},
		app.Deps{Store: d.store, Output: out, Transport: d.node, OpLog: d.node, GroupLib: d.gl, PortMap: d.pm,
			Library: app.Scanner{Index: app.StoreIndex{S: d.store}}})
	if err != nil {
		return fail(err)
	}
	if hold := launchHold(opts); hold > 0 {
		// The group library's first publication of this device's
		// catalog reads every track, as the window's list does: it
		// waits for the list (StartGroupLib), like the launch's rescan.
		time.AfterFunc(hold, d.startGroupLib)
	} else {
		d.startGroupLib()
	}
	if d.ctl, err = listenCtl(opts.dataDir, d.app); err != nil {
		return fail(err)
	}
	d.web = &webPlayer{app: d.app, store: d.store, group: d.node, log: logger, out: d.hubOut}
	d.app.WatchOps(d.web.opsAdded)
	d.ctl.web.Store(d.web)
	if err := d.web.launch(opts.web); err != nil {
		return fail(err)
	}
	return d, nil
}

func newIdentity(s *storage.Store, name string) (storage.Identity, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return storage.Identity{}, err
	}
	if name == "" {
		name, _ = os.Hostname()
		if name == "" {
			name = "furudesk"
		}
	}
	id := storage.Identity{PrivateKey: key, DeviceID: string(devicesync.DeviceIDFromPublicKey(key.Public().(ed25519.PublicKey))),
		GroupID: devicesync.NewGroupID(), DeviceName: name, CreatedAt: time.Now()}
	if err := s.CreateIdentity(id); err != nil {
		return storage.Identity{}, err
	}
	return id, nil
}

// close stops everything that was opened, in reverse order; -v logs how
// long each step took (a quit must end within a second).
func (d *device) close() error {
	d.closeOnce.Do(func() { d.closeErr = d.closeAll() })
	return d.closeErr
}

func (d *device) closeAll() error {
	var errs []error
	t := time.Now()
	step := func(name string, err error) {
		errs = append(errs, err)
		if d.log != nil {
			d.log.Debug("shutdown", "step", name, "took", time.Since(t).Round(time.Millisecond))
		}
		t = time.Now()
	}
	if d.web != nil {
		step("web", d.web.stop())
	}
	if d.ctl != nil {
		step("ctl", d.ctl.close())
	}
	if d.app != nil {
		step("app", d.app.Close()) // publishes a last snapshot while rendering
	}
	if d.gl != nil {
		d.glStart.Do(func() {})             // a held start comes too late now
		step("group library", d.gl.Close()) // its fetches end; the node closes what it serves
	}
	if d.out != nil {
		step("audio", closeWithin("the audio output", audioCloseWait, d.out.Close, d.log))
	}
	if d.pm != nil {
		d.pm.Close() // the router forgets the mapping before the port closes
	}
	if d.node != nil {
		// Node.Close writes that snapshot before it closes the
		// connections (bounded), so the device taking over resumes from it.
		step("node", d.node.Close())
	}
	if d.cancel != nil {
		d.cancel()
	}
	if d.store != nil {
		step("store", d.store.Close())
	}
	return errors.Join(errs...)
}

// runHeadless runs the device until SIGINT or SIGTERM.
func runHeadless(opts options, stderr io.Writer) error {
	d, err := openDevice(opts, stderr)
	if err != nil {
		return err
	}
	go openAtLaunch(d.app, opts.open, opts.enqueue, stderr) // open.go
	// An always-on box may have a session bus: media keys and playerctl.
	stopMPRIS := startMPRIS(d.app, opts.dataDir, nil, nil, stderrLogger(opts))
	// On Windows, the media keys as hotkeys (SMTC needs a window); on
	// macOS it logs that there are none (no main loop without a window).
	stopMediaKeys := startMediaKeys(d.app, opts.dataDir, nil, stderrLogger(opts))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	fmt.Fprintf(stderr, "furudesk: headless, device %s, listening on %s, ctl socket %s\n",
		d.app.Status().DeviceID, d.app.Status().Listen, d.ctl.path)
	select {
	case <-sig:
	case <-d.app.Done():
	}
	signal.Stop(sig)
	stopMPRIS() // before the app closes
	stopMediaKeys()
	return d.close()
}
