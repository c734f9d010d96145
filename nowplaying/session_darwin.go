//go:build darwin

package nowplaying

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ebitengine/purego/objc"

	"github.com/furudesk/furudesk/smtc"
)

// Session is Now Playing of a running furudesk. Close is safe from any
// goroutine.
type Session struct {
	p    smtc.Player
	fw   *framework
	opts Options
	now  func() time.Time
	log  *slog.Logger

	commands chan command // from the main thread to the session's goroutine
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	// The main thread's: set and read only in funcs run by Options.Main.
	target  objc.ID // the targetClassName instance, retained
	info    objc.ID // MPNowPlayingInfoCenter's defaultCenter; 0: attach failed
	remote  [NumCommands]objc.ID
	artwork objc.ID // retained; 0: none
}

// command is one command the OS sent, with a seek's position.
type command struct {
	c   Command
	pos time.Duration
}

// active is the running session, the one the target's methods reach.
var active atomic.Pointer[Session]

// Start loads MediaPlayer.framework and, on the main thread (through
// opts.Main), becomes the target of the remote commands; then it shows
// p's status until Close. It returns at once, without waiting for the main
// thread: what fails there is logged. Log its error (the media keys are
// not had then) or that Now Playing is used; call Close before the app
// closes.
func Start(p smtc.Player, opts Options) (*Session, error) {
	if p == nil {
		return nil, ErrNoPlayer
	}
	if opts.Main == nil {
		return nil, ErrNoMainThread
	}
	fw, err := load()
	if err != nil {
		return nil, err
	}
	s := &Session{
		p:        p,
		fw:       fw,
		opts:     opts,
		now:      opts.Now,
		log:      opts.Logger,
		commands: make(chan command, MaxPendingCommands),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if !active.CompareAndSwap(nil, s) {
		return nil, ErrRunning
	}
	opts.Main(s.attach) // before any push: Main runs its funcs in order
	go s.control()
	return s, nil
}

// Close stops following the status and queues, on the main thread, the
// removal of the command targets and of the now-playing entry. It does
// not wait for the main thread (it may be called on it, or after its loop
// ended). It is idempotent.
func (s *Session) Close() error {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		active.CompareAndSwap(s, nil)
		s.opts.Main(s.detach)
	})
	return nil
}

// handle answers a command on the main thread: it hands it to the
// session's goroutine and never blocks (a full queue drops it). The
// command is acted on later, so it is answered as a success unless no
// session runs.
func handle(c Command, event objc.ID) int {
	s := active.Load()
	if s == nil {
		return handlerCommandFailed
	}
	cmd := command{c: c}
	if c == CommandChangePlaybackPosition && event != 0 {
		cmd.pos = Position(objc.Send[float64](event, selPositionTime))
	}
	select {
	case s.commands <- cmd:
	default:
	}
	return handlerSuccess
}

// control owns the Core: it follows the status, queues on the main
// thread what changed, and acts on the commands, until Close.
func (s *Session) control() {
	defer close(s.done)
	updates, cancel := s.p.Subscribe()
	defer cancel()
	core := smtc.NewCore(s.opts.ArtURL)
	for {
		select {
		case <-s.stop:
			return
		case st, ok := <-updates:
			if !ok {
				return
			}
			if u := Plan(core.Step(st, s.now()), st); !u.Empty() {
				s.opts.Main(func() { s.apply(u) })
			}
		case c := <-s.commands:
			called, err := Act(s.p, core.Shown(), c.c, c.pos)
			s.log.Debug("media keys: command", "command", c.c, "called", called, "err", err)
		}
	}
}

// attach (main thread) makes the target and adds it to every command,
// all disabled until the first status.
func (s *Session) attach() {
	if !s.fw.onMain() {
		s.log.Info("media keys: none (nowplaying: not started on the main thread)")
		return
	}
	pool := objc.ID(s.fw.pool).Send(selNew)
	defer pool.Send(selDrain)
	remote := objc.ID(s.fw.commandCenter).Send(selSharedCommandCenter)
	info := objc.ID(s.fw.infoCenter).Send(selDefaultCenter)
	if remote == 0 || info == 0 {
		s.log.Info("media keys: none (nowplaying: MediaPlayer gave no command center or now-playing center)")
		return
	}
	s.target = objc.ID(s.fw.target).Send(selNew)
	for _, c := range Commands {
		rc := remote.Send(objc.RegisterName(c.Getter()))
		if rc == 0 {
			s.log.Debug("nowplaying: no such remote command", "command", c)
			continue
		}
		rc.Send(selAddTargetAction, s.target, objc.RegisterName(c.Action()))
		rc.Send(selSetEnabled, false)
		s.remote[c] = rc
	}
	s.info = info
}

// apply (main thread) sets what u names. Off the main thread (Fyne's
// loop has ended: the app is closing) it drops u.
func (s *Session) apply(u Update) {
	if s.info == 0 || !s.fw.onMain() {
		return
	}
	pool := objc.ID(s.fw.pool).Send(selNew)
	defer pool.Send(selDrain)
	if u.Artwork {
		if s.artwork != 0 {
			s.artwork.Send(selRelease)
		}
		s.artwork = s.fw.artworkOf(u.CoverPath)
		if s.artwork == 0 && u.CoverPath != "" {
			s.log.Debug("nowplaying: no artwork", "path", u.CoverPath)
		}
	}
	if u.Info {
		s.info.Send(selSetNowPlayingInfo, s.fw.dictionary(u.Entries, s.artwork))
	}
	if u.State {
		s.info.Send(selSetPlaybackState, uint(u.PlaybackState))
	}
	if u.Commands {
		for c, rc := range s.remote {
			if rc != 0 {
				rc.Send(selSetEnabled, u.Enabled[c])
			}
		}
	}
}

// detach (main thread) removes the target from the commands and clears
// the now-playing entry.
func (s *Session) detach() {
	if s.info == 0 || !s.fw.onMain() {
		return // the process ends with its entry anyway
	}
	for c, rc := range s.remote {
		if rc != 0 {
			rc.Send(selSetEnabled, false)
			rc.Send(selRemoveTarget, s.target)
			s.remote[c] = 0
		}
	}
	s.info.Send(selSetNowPlayingInfo, objc.ID(0))
	s.info.Send(selSetPlaybackState, uint(StateStopped))
	if s.artwork != 0 {
		s.artwork.Send(selRelease)
		s.artwork = 0
	}
	s.target.Send(selRelease)
	s.target, s.info = 0, 0
}
