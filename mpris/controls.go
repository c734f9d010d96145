package mpris

import (
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/furudesk/furudesk/openfiles"
)

// D-Bus error names the server answers with.
const (
	errNotSupported    = "org.freedesktop.DBus.Error.NotSupported"
	errInvalidArgs     = "org.freedesktop.DBus.Error.InvalidArgs"
	errUnknownIface    = "org.freedesktop.DBus.Error.UnknownInterface"
	errUnknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
	errReadOnly        = "org.freedesktop.DBus.Error.PropertyReadOnly"
)

func dbusError(name, msg string) *dbus.Error {
	return dbus.NewError(name, []any{msg})
}

// failed reports an app error to the D-Bus caller with its sentence.
func failed(err error) *dbus.Error {
	if err == nil {
		return nil
	}
	return dbus.MakeFailedError(err)
}

// rootObj is org.mpris.MediaPlayer2.
type rootObj struct{ s *Server }

// Raise shows the window (no effect without Options.Raise).
func (o rootObj) Raise() *dbus.Error {
	if o.s.opts.Raise != nil {
		o.s.opts.Raise()
	}
	return nil
}

// Quit ends furudesk (no effect without Options.Quit). It runs on its own
// goroutine so the reply leaves before the app shuts the server down.
func (o rootObj) Quit() *dbus.Error {
	if q := o.s.opts.Quit; q != nil {
		go q()
	}
	return nil
}

// playerObj is org.mpris.MediaPlayer2.Player. Each method is one call on
// the app, which drives whichever device owns the output. Calls the
// specification says have no effect in the current state (Play without a
// track, Next when CanGoNext is false, a stale SetPosition) return at once.
type playerObj struct{ s *Server }

func (o playerObj) Next() *dbus.Error {
	if _, p := o.s.snapshot(); !p.canGoNext {
		return nil
	}
	return failed(o.s.p.Next())
}

func (o playerObj) Previous() *dbus.Error {
	if _, p := o.s.snapshot(); !p.canGoPrevious {
		return nil
	}
	return failed(o.s.p.Prev())
}

func (o playerObj) Pause() *dbus.Error {
	if _, p := o.s.snapshot(); !p.canPause {
		return nil
	}
	return failed(o.s.p.Pause())
}

func (o playerObj) PlayPause() *dbus.Error {
	if _, p := o.s.snapshot(); !p.canPause {
		return nil
	}
	return failed(o.s.p.TogglePlay())
}

// Stop pauses and goes back to the start of the track: the app has no
// stopped state with a track loaded.
func (o playerObj) Stop() *dbus.Error {
	if v, _ := o.s.snapshot(); v.st.Track == nil {
		return nil
	}
	if err := o.s.p.Pause(); err != nil {
		return failed(err)
	}
	return failed(o.s.p.Seek(0))
}

func (o playerObj) Play() *dbus.Error {
	if _, p := o.s.snapshot(); !p.canPlay {
		return nil
	}
	return failed(o.s.p.Resume())
}

// SeekBy is the D-Bus method Seek (renamed in Go, where Seek means
// io.Seeker): it moves by offset µs; before the start means the start,
// past the end means Next, as the specification says.
func (o playerObj) SeekBy(offset int64) *dbus.Error {
	v, p := o.s.snapshot()
	if !p.canSeek {
		return nil
	}
	pos := v.positionUS(o.s.now()) + offset
	if pos >= v.lengthUS() {
		return failed(o.s.p.Next())
	}
	return failed(o.s.p.Seek(time.Duration(max(pos, 0)) * time.Microsecond))
}

// SetPosition moves to pos µs of the track trackID; a stale track id or a
// position outside the track is ignored, as the specification says.
func (o playerObj) SetPosition(trackID dbus.ObjectPath, pos int64) *dbus.Error {
	v, p := o.s.snapshot()
	if !p.canSeek || trackID != p.meta.trackID || pos < 0 || pos > v.lengthUS() {
		return nil
	}
	return failed(o.s.p.Seek(time.Duration(pos) * time.Microsecond))
}

// OpenUri plays a file:// URI now (app.OpenFiles), when the player can
// open files; other schemes are refused with the reason.
func (o playerObj) OpenUri(uri string) *dbus.Error {
	op, ok := o.s.p.(Opener)
	if !ok {
		return dbusError(errNotSupported, "furudesk cannot open URIs; add the folder to the library instead")
	}
	paths, probs := openfiles.Paths([]string{uri}, "")
	if len(probs) > 0 {
		return dbusError(errNotSupported, probs[0].String())
	}
	_, err := op.OpenFiles(paths, false)
	return failed(err)
}
