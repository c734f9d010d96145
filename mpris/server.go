package mpris

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
)

// Names on the bus.
const (
	// BusName is the well-known name furudesk asks for. When another
	// process holds it (a second furudesk on another data dir), the server
	// takes BusName + ".instance<pid>", as the specification suggests.
	BusName = "org.mpris.MediaPlayer2.furudesk"
	// ObjectPath is where the MPRIS interfaces live.
	ObjectPath dbus.ObjectPath = "/org/mpris/MediaPlayer2"

	ifaceRoot   = "org.mpris.MediaPlayer2"
	ifacePlayer = "org.mpris.MediaPlayer2.Player"
	ifaceProps  = "org.freedesktop.DBus.Properties"
	ifaceIntro  = "org.freedesktop.DBus.Introspectable"
)

// Errors of Serve.
var (
	// ErrUnsupported is returned by Serve with a nil conn where there is no
	// D-Bus session bus (macOS, Windows).
	ErrUnsupported = errors.New("mpris: MPRIS needs a D-Bus session bus, which this platform does not have")
	// ErrNoPlayer is returned by Serve with a nil Player.
	ErrNoPlayer = errors.New("mpris: no player to serve")
	// ErrNameTaken is returned when neither BusName nor the per-process
	// instance name could be owned.
	ErrNameTaken = errors.New("mpris: the MPRIS bus name is owned by another connection")
)

// Options are the optional parts of the server.
type Options struct {
	// Raise shows the window; nil makes CanRaise false. Called on a D-Bus
	// goroutine: a Fyne front end wraps its body in fyne.Do.
	Raise func()
	// Quit ends furudesk; nil makes CanQuit false. Called on a D-Bus
	// goroutine and must not wait for Close of this server.
	Quit func()
	// ArtURL returns a URL (file://...) of the cover of a track, or "" when
	// there is none. It is called from the server's status goroutine when
	// the current track or the library version changes, never per
	// property read. NewCoverCache makes one from app.Cover.
	ArtURL func(contentID string) string
	// Now is the clock Position is extrapolated with; nil is time.Now.
	Now func() time.Time
	// Logger receives failures to emit signals; nil discards.
	Logger *slog.Logger
}

// Server is one MPRIS service on the bus. Its methods are safe from any
// goroutine.
type Server struct {
	conn    *dbus.Conn
	ownConn bool
	name    string
	p       Player
	opts    Options
	now     func() time.Time
	log     *slog.Logger

	mu    sync.Mutex
	cur   view
	props playerProps

	// Only the status goroutine touches these.
	artKey string
	art    string

	cancelSub func()
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Serve exports the MPRIS interfaces for p on conn (nil: a new connection
// to the session bus, closed by Close), takes the bus name, and keeps the
// properties in step with p's status until ctx ends or Close is called.
func Serve(ctx context.Context, conn *dbus.Conn, p Player, opts Options) (*Server, error) {
	if p == nil {
		return nil, ErrNoPlayer
	}
	s := &Server{
		conn: conn,
		p:    p,
		opts: opts,
		now:  opts.Now,
		log:  opts.Logger,
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if conn == nil {
		c, err := sessionBus()
		if err != nil {
			return nil, err
		}
		s.conn, s.ownConn = c, true
	}

	updates, cancel := p.Subscribe()
	s.cancelSub = cancel
	s.cur = s.view(p.Status())
	s.props = deriveProps(s.cur)

	if err := s.export(); err != nil {
		s.release()
		return nil, err
	}
	if err := s.requestName(); err != nil {
		s.release()
		return nil, err
	}
	go s.loop(updates)
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// BusName is the name the server owns: BusName or an instance name.
func (s *Server) BusName() string { return s.name }

// Done is closed when the server stopped: after Close, or when the bus
// connection was lost.
func (s *Server) Done() <-chan struct{} { return s.done }

// Close stops following the status, removes the objects, gives up the bus
// name and closes the connection if Serve opened it. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		s.closeErr = s.release()
	})
	return s.closeErr
}

// release undoes what Serve did; it is safe on a half-built server.
func (s *Server) release() error {
	if s.cancelSub != nil {
		s.cancelSub()
	}
	var errs []error
	if s.name != "" {
		if _, err := s.conn.ReleaseName(s.name); err != nil && !errors.Is(err, dbus.ErrClosed) {
			errs = append(errs, fmt.Errorf("mpris: release %s: %w", s.name, err))
		}
	}
	for _, iface := range []string{ifaceRoot, ifacePlayer, ifaceProps, ifaceIntro} {
		if err := s.conn.Export(nil, ObjectPath, iface); err != nil {
			errs = append(errs, fmt.Errorf("mpris: unexport %s: %w", iface, err))
		}
	}
	if s.ownConn {
		if err := s.conn.Close(); err != nil {
			errs = append(errs, fmt.Errorf("mpris: close bus connection: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (s *Server) export() error {
	objs := []struct {
		v       any
		mapping map[string]string
		iface   string
	}{
		{rootObj{s}, nil, ifaceRoot},
		{playerObj{s}, map[string]string{"SeekBy": "Seek"}, ifacePlayer},
		{propsObj{s}, nil, ifaceProps},
		{introspect.Introspectable(s.introspection()), nil, ifaceIntro},
	}
	for _, o := range objs {
		if err := s.conn.ExportWithMap(o.v, o.mapping, ObjectPath, o.iface); err != nil {
			return fmt.Errorf("mpris: export %s: %w", o.iface, err)
		}
	}
	return nil
}

// requestName owns BusName, or the instance name when another process has
// it. Objects are exported before, so a client seeing the name can use it.
func (s *Server) requestName() error {
	names := []string{BusName, fmt.Sprintf("%s.instance%d", BusName, os.Getpid())}
	for _, name := range names {
		reply, err := s.conn.RequestName(name, dbus.NameFlagDoNotQueue)
		if err != nil {
			return fmt.Errorf("mpris: request %s: %w", name, err)
		}
		if reply == dbus.RequestNameReplyPrimaryOwner || reply == dbus.RequestNameReplyAlreadyOwner {
			s.name = name
			return nil
		}
	}
	return ErrNameTaken
}

// loop follows the app's status until Close or the connection is lost.
func (s *Server) loop(updates <-chan app.Status) {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			return
		case <-s.conn.Context().Done():
			s.log.Warn("mpris: the session bus connection was lost")
			return
		case st, ok := <-updates:
			if !ok {
				return
			}
			s.update(st)
		}
	}
}

// update makes st the shown status and signals what changed.
func (s *Server) update(st app.Status) {
	next := s.view(st)
	props := deriveProps(next)
	s.mu.Lock()
	prev, prevProps := s.cur, s.props
	s.cur, s.props = next, props
	s.mu.Unlock()

	if ch := props.changed(prevProps); len(ch) > 0 {
		if err := s.conn.Emit(ObjectPath, ifaceProps+".PropertiesChanged", ifacePlayer, ch, []string{}); err != nil {
			s.log.Warn("mpris: emit PropertiesChanged", "err", err)
		}
	}
	if jumped(prev, next) {
		if err := s.conn.Emit(ObjectPath, ifacePlayer+".Seeked", next.positionUS(next.at)); err != nil {
			s.log.Warn("mpris: emit Seeked", "err", err)
		}
	}
}

// view stamps st with the time now and the art URL of its track. The art
// callback runs again only when the track or the library changed.
func (s *Server) view(st app.Status) view {
	v := view{st: st, at: s.now()}
	if s.opts.ArtURL == nil || st.Track == nil {
		return v
	}
	key := fmt.Sprintf("%s\x00%d", st.Track.ContentID, st.LibraryVersion)
	if key != s.artKey {
		s.artKey, s.art = key, s.opts.ArtURL(st.Track.ContentID)
	}
	v.art = s.art
	return v
}

// snapshot is the shown status and its properties.
func (s *Server) snapshot() (view, playerProps) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.props
}
