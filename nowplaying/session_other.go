//go:build !darwin

package nowplaying

import "github.com/furudesk/furudesk/smtc"

// Session is Now Playing of a running furudesk (macOS only).
type Session struct{}

// Start returns ErrUnsupported: Now Playing is macOS only.
func Start(p smtc.Player, opts Options) (*Session, error) {
	if p == nil {
		return nil, ErrNoPlayer
	}
	return nil, ErrUnsupported
}

// Close does nothing.
func (s *Session) Close() error { return nil }
