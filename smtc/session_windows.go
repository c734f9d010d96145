package smtc

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Session is the media keys of a running furudesk: SMTC, the hotkeys, or
// neither (Mode). Its methods are safe from any goroutine.
type Session struct {
	p      Player
	opts   Options
	now    func() time.Time
	log    *slog.Logger
	mode   Mode
	reason error

	presses chan press // from the OS's threads to the control loop
	stop    chan struct{}
	done    chan struct{}
	tid     uint32 // the hotkey thread, for WM_QUIT
	once    sync.Once
}

// tickEvery is how often the control loop calls Core.Tick.
const tickEvery = time.Second

// press is one button, or a seek of the OS's seek bar.
type press struct {
	b    Button
	seek bool
	pos  time.Duration
}

// Start shows p in the SMTC of opts.HWND or, when that cannot be had,
// takes the media keys as hotkeys. It returns once the path is chosen;
// only a nil p is an error. Log Mode and Reason; call Close before the
// app closes.
func Start(p Player, opts Options) (*Session, error) {
	if p == nil {
		return nil, ErrNoPlayer
	}
	s := &Session{
		p:       p,
		opts:    opts,
		now:     opts.Now,
		log:     opts.Logger,
		presses: make(chan press, MaxPendingPresses),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	ready := make(chan struct{})
	go s.run(ready)
	<-ready
	return s, nil
}

// Mode is the path the media keys take.
func (s *Session) Mode() Mode { return s.mode }

// Reason is why SMTC is not used (nil in ModeSMTC); in ModeNone it says
// why the hotkeys are not either.
func (s *Session) Reason() error { return s.reason }

// Close shows the player as closed, gives up the controls or the hotkeys
// and waits for the session's thread. It is idempotent.
func (s *Session) Close() error {
	s.once.Do(func() {
		close(s.stop)
		if s.mode == ModeHotkeys {
			postQuit(s.tid)
		}
		<-s.done
	})
	return nil
}

// enqueue hands a press to the control loop; called on the OS's threads,
// it never blocks (a full queue drops the press).
func (s *Session) enqueue(pr press) {
	select {
	case s.presses <- pr:
	default:
	}
}

// run owns one OS thread for the session's life: COM calls and the
// hotkeys' messages belong to the thread that made them.
func (s *Session) run(ready chan<- struct{}) {
	defer close(s.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var smtcErr error = ErrNoWindow
	if s.opts.HWND != 0 {
		uninit, err := roInit()
		if err == nil {
			defer uninit()
			var c *controls
			if c, err = openControls(s.opts.HWND, s.enqueue); err == nil {
				defer c.close()
				s.mode = ModeSMTC
				close(ready)
				s.control(NewCore(s.opts.ArtURL), func(p Push) {
					if err := c.push(p); err != nil {
						s.log.Debug("smtc: push", "err", err)
					}
				})
				return
			}
		}
		smtcErr = err
	}
	s.reason = smtcErr
	keys, err := registerHotkeys()
	if err != nil {
		s.mode, s.reason = ModeNone, errors.Join(smtcErr, err)
		close(ready)
		<-s.stop
		return
	}
	defer unregisterHotkeys(keys)
	s.mode, s.tid = ModeHotkeys, windows.GetCurrentThreadId()
	close(ready)
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		s.control(NewCore(nil), nil) // the display only says what is enabled
	}()
	if err := pumpHotkeys(s.enqueue); err != nil {
		s.log.Warn("media keys: the hotkeys' message loop ended", "err", err)
	}
	<-loopDone
}

// control follows the status and acts on presses until Close. push (nil
// for the hotkeys) sends what the core says changed to the OS.
func (s *Session) control(core *Core, push func(Push)) {
	updates, cancel := s.p.Subscribe()
	defer cancel()
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	for {
		var p Push
		select {
		case <-s.stop:
			return
		case st, ok := <-updates:
			if !ok {
				return
			}
			p = core.Step(st, s.now())
		case <-tick.C:
			p = core.Tick(s.now())
		case pr := <-s.presses:
			var (
				called bool
				err    error
			)
			if pr.seek {
				called, err = SeekTo(s.p, core.Shown(), pr.pos)
			} else {
				called, err = Press(s.p, core.Shown(), pr.b)
			}
			s.log.Debug("media keys: pressed", "button", pr.b, "seek", pr.seek, "called", called, "err", err)
		}
		if push != nil && !p.Empty() {
			push(p)
		}
	}
}

// controls is one window's SystemMediaTransportControls and what pushes
// to it; only the session's thread uses it.
type controls struct {
	smtc     *comObj // ISystemMediaTransportControls
	smtc2    *comObj // ISystemMediaTransportControls2; nil before Windows 8.1
	updater  *comObj // ISystemMediaTransportControlsDisplayUpdater
	music    *comObj // IMusicDisplayProperties
	music2   *comObj // IMusicDisplayProperties2 (the album); may be nil
	uris     *comObj // IUriRuntimeClassFactory; nil: no thumbnails
	streams  *comObj // IRandomAccessStreamReferenceStatics; nil: no thumbnails
	buttons  *handler
	seeks    *handler
	buttonTk int64
	seekTk   int64
}

// The vtable slots used (IInspectable's six come first).
const (
	slotGetForWindow = 6 // ISystemMediaTransportControlsInterop

	slotPutPlaybackStatus   = 7 // ISystemMediaTransportControls
	slotGetDisplayUpdater   = 8
	slotPutIsEnabled        = 11
	slotPutIsPlayEnabled    = 13
	slotPutIsStopEnabled    = 15
	slotPutIsPauseEnabled   = 17
	slotPutIsPreviousEnable = 25
	slotPutIsNextEnabled    = 27
	slotAddButtonPressed    = 32
	slotRemoveButtonPressed = 33

	slotUpdateTimeline         = 12 // ISystemMediaTransportControls2
	slotAddPositionRequested   = 13
	slotRemovePositionRequestd = 14

	slotPutType         = 7 // ISystemMediaTransportControlsDisplayUpdater
	slotPutThumbnail    = 11
	slotGetMusic        = 12
	slotClearAll        = 16
	slotUpdate          = 17
	slotPutTitle        = 7  // IMusicDisplayProperties
	slotPutArtist       = 11 // IMusicDisplayProperties
	slotPutAlbumTitle   = 7  // IMusicDisplayProperties2
	slotGetButton       = 6  // ISystemMediaTransportControlsButtonPressedEventArgs
	slotGetRequestedPos = 6  // IPlaybackPositionChangeRequestedEventArgs
	slotCreateUri       = 6  // IUriRuntimeClassFactory
	slotCreateFromUri   = 7  // IRandomAccessStreamReferenceStatics
	slotPutStartTime    = 7  // ISystemMediaTransportControlsTimelineProperties
	slotPutEndTime      = 9
	slotPutMinSeekTime  = 11
	slotPutMaxSeekTime  = 13
	slotPutPosition     = 15
	mediaPlaybackMusic  = 1
	timeSpanPerDuration = 100 // a TimeSpan counts 100 ns
	wordIs64Bits        = ^uintptr(0)>>63 == 1
)

// openControls gets the SMTC of hwnd and hooks its buttons and seek bar
// to enqueue. Any refusal on the way (Wine's stubs, a window SMTC will
// not take) is SMTC being unavailable.
func openControls(hwnd uintptr, enqueue func(press)) (c *controls, err error) {
	interop, err := factory(runtimeClassSMTC, &iidSMTCInterop)
	if err != nil {
		return nil, err
	}
	defer interop.release()
	c = &controls{}
	defer func() {
		if err != nil {
			c.close()
			c = nil
		}
	}()
	if c.smtc, err = interop.out(slotGetForWindow, hwnd, uintptr(unsafe.Pointer(&iidSMTC))); err != nil {
		return nil, fmt.Errorf("smtc: GetForWindow: %w", err)
	}
	if err = c.smtc.call(slotPutIsEnabled, 1); err != nil {
		return nil, fmt.Errorf("smtc: put_IsEnabled: %w", err)
	}
	if c.updater, err = c.smtc.out(slotGetDisplayUpdater); err != nil {
		return nil, fmt.Errorf("smtc: get_DisplayUpdater: %w", err)
	}
	if err = c.updater.call(slotPutType, mediaPlaybackMusic); err != nil {
		return nil, fmt.Errorf("smtc: put_Type(Music): %w", err)
	}
	if c.music, err = c.updater.out(slotGetMusic); err != nil {
		return nil, fmt.Errorf("smtc: get_MusicProperties: %w", err)
	}
	c.music2, _ = c.music.query(&iidMusicProperties2)

	c.buttons = newHandler(iidButtonPressedHandler, func(args *comObj) {
		var b int32
		if args.call(slotGetButton, uintptr(unsafe.Pointer(&b))) == nil {
			enqueue(press{b: Button(b)})
		}
	})
	if err = c.smtc.call(slotAddButtonPressed, c.buttons.ptr(), uintptr(unsafe.Pointer(&c.buttonTk))); err != nil {
		c.buttonTk = 0
		return nil, fmt.Errorf("smtc: add_ButtonPressed: %w", err)
	}

	// The seek bar (Windows 8.1 and later), on 64-bit Windows: a TimeSpan
	// is passed in one register there.
	if wordIs64Bits {
		if c.smtc2, _ = c.smtc.query(&iidSMTC2); c.smtc2 != nil {
			c.seeks = newHandler(iidPositionChangeHandler, func(args *comObj) {
				var ts int64
				if args.call(slotGetRequestedPos, uintptr(unsafe.Pointer(&ts))) == nil {
					enqueue(press{seek: true, pos: time.Duration(ts * timeSpanPerDuration)})
				}
			})
			if c.smtc2.call(slotAddPositionRequested, c.seeks.ptr(), uintptr(unsafe.Pointer(&c.seekTk))) != nil {
				c.seekTk = 0
			}
		}
	}
	// Thumbnails by URI; without these factories there are none.
	if c.uris, err = factory(runtimeClassUri, &iidUriFactory); err == nil {
		if c.streams, err = factory(runtimeClassStreamRefer, &iidStreamRefStatics); err != nil {
			c.uris.release()
			c.uris = nil
		}
	}
	return c, nil
}

// push sends the parts p says changed.
func (c *controls) push(p Push) error {
	d := p.Display
	var errs []error
	note := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("smtc: %s: %w", what, err))
		}
	}
	if p.Buttons {
		b := d.Buttons
		for _, f := range []struct {
			slot int
			on   bool
			name string
		}{
			{slotPutIsPlayEnabled, b.Play, "put_IsPlayEnabled"},
			{slotPutIsPauseEnabled, b.Pause, "put_IsPauseEnabled"},
			{slotPutIsStopEnabled, b.Stop, "put_IsStopEnabled"},
			{slotPutIsNextEnabled, b.Next, "put_IsNextEnabled"},
			{slotPutIsPreviousEnable, b.Previous, "put_IsPreviousEnabled"},
		} {
			note(f.name, c.smtc.call(f.slot, boolArg(f.on)))
		}
	}
	if p.Status {
		note("put_PlaybackStatus", c.smtc.call(slotPutPlaybackStatus, uintptr(d.Status)))
	}
	if p.Properties {
		pr := d.Properties
		note("put_Title", putString(c.music, slotPutTitle, pr.Title))
		note("put_Artist", putString(c.music, slotPutArtist, pr.Artist))
		if c.music2 != nil {
			note("put_AlbumTitle", putString(c.music2, slotPutAlbumTitle, pr.Album))
		}
	}
	if p.Thumbnail {
		note("put_Thumbnail", c.putThumbnail(d.Properties.Thumbnail))
	}
	if p.Properties || p.Thumbnail {
		note("Update", c.updater.call(slotUpdate))
	}
	if p.Timeline && c.smtc2 != nil {
		note("UpdateTimelineProperties", c.putTimeline(d.Timeline))
	}
	return errors.Join(errs...)
}

// putThumbnail shows the image at uri, or none for "".
func (c *controls) putThumbnail(uri string) error {
	if uri == "" || c.uris == nil {
		return c.updater.call(slotPutThumbnail, 0)
	}
	var u *comObj
	err := withHString(uri, func(h hstring) error {
		var err error
		u, err = c.uris.out(slotCreateUri, uintptr(h))
		return err
	})
	if err != nil {
		return fmt.Errorf("Uri(%s): %w", uri, err)
	}
	defer u.release()
	ref, err := c.streams.out(slotCreateFromUri, uintptr(unsafe.Pointer(u)))
	if err != nil {
		return fmt.Errorf("RandomAccessStreamReference.CreateFromUri: %w", err)
	}
	defer ref.release()
	return c.updater.call(slotPutThumbnail, uintptr(unsafe.Pointer(ref)))
}

// putTimeline updates the seek bar: 0 to End (none when unknown), at
// Position.
func (c *controls) putTimeline(t Timeline) error {
	tl, err := activate(runtimeClassTimeline, &iidTimelineProperties)
	if err != nil {
		return err
	}
	defer tl.release()
	for _, f := range []struct {
		slot int
		v    time.Duration
	}{
		{slotPutStartTime, 0}, {slotPutEndTime, t.End},
		{slotPutMinSeekTime, 0}, {slotPutMaxSeekTime, t.End},
		{slotPutPosition, min(t.Position, max(t.End, t.Position))},
	} {
		if err := tl.call(f.slot, uintptr(int64(f.v)/timeSpanPerDuration)); err != nil {
			return err
		}
	}
	return c.smtc2.call(slotUpdateTimeline, uintptr(unsafe.Pointer(tl)))
}

// close shows the player as closed, unhooks the handlers and lets go of
// everything; it is safe on a half-opened controls.
func (c *controls) close() {
	if c.smtc != nil {
		_ = c.smtc.call(slotPutPlaybackStatus, uintptr(StatusClosed))
		if c.updater != nil {
			_ = c.updater.call(slotClearAll)
			_ = c.updater.call(slotUpdate)
		}
		if c.buttonTk != 0 {
			_ = c.smtc.call(slotRemoveButtonPressed, uintptr(c.buttonTk))
		}
		_ = c.smtc.call(slotPutIsEnabled, 0)
	}
	if c.smtc2 != nil && c.seekTk != 0 {
		_ = c.smtc2.call(slotRemovePositionRequestd, uintptr(c.seekTk))
	}
	for _, h := range []*handler{c.buttons, c.seeks} {
		if h != nil {
			handlerRelease(h) // ours; the OS released its own on remove
		}
	}
	for _, o := range []*comObj{c.streams, c.uris, c.music2, c.music, c.updater, c.smtc2, c.smtc} {
		o.release()
	}
	*c = controls{}
}

func putString(o *comObj, slot int, s string) error {
	return withHString(s, func(h hstring) error { return o.call(slot, uintptr(h)) })
}

func boolArg(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}
