//go:build !windows

package smtc

// Session is the media keys of a running furudesk (Windows only).
type Session struct{}

// Start returns ErrUnsupported: SMTC and the hotkeys are Windows only.
func Start(p Player, opts Options) (*Session, error) {
	if p == nil {
		return nil, ErrNoPlayer
	}
	return nil, ErrUnsupported
}

// Mode is ModeNone.
func (s *Session) Mode() Mode { return ModeNone }

// Reason is ErrUnsupported.
func (s *Session) Reason() error { return ErrUnsupported }

// Close does nothing.
func (s *Session) Close() error { return nil }
