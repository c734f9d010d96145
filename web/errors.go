package web

import (
	"errors"
	"fmt"
	"github.com/furudesk/furudesk/internal/usererr"
)

// Errors a browser or a user can act on. Code tests them with errors.Is;
// pages and ctl show Message(err).
var (
	ErrWrongCode   = errors.New("web: wrong pairing code")
	ErrExpiredCode = errors.New("web: pairing code expired")
	ErrUsedCode    = errors.New("web: pairing code already used")
	ErrBlocked     = errors.New("web: too many wrong codes")
	ErrNotPaired   = errors.New("web: browser not paired")
	ErrNoBrowser   = errors.New("web: no such browser")
	ErrFull        = errors.New("web: too many paired browsers")
	ErrBadRequest  = errors.New("web: bad request")
	ErrOff         = errors.New("web: the web player is off")
)

// userErr wraps sentinel with a sentence for the user.
func userErr(sentinel error, format string, args ...any) error {
	return usererr.New(sentinel, format, args...)
}

// Message is err as a sentence for the user, without package prefixes.
func Message(err error) string {
	if err == nil {
		return ""
	}
	if t, ok := usererr.Text(err); ok {
		return t
	}
	switch {
	case errors.Is(err, ErrWrongCode):
		return "That code is not right: check it and try again."
	case errors.Is(err, ErrExpiredCode):
		return "That code has expired: ask a device of the group for a new one."
	case errors.Is(err, ErrUsedCode):
		return "That code was already used: each code pairs one browser. Ask for a new one."
	case errors.Is(err, ErrNotPaired):
		return "This browser is not paired, or was removed: pair it again with a code."
	case errors.Is(err, ErrNoBrowser):
		return "There is no such browser: see the list of paired browsers."
	case errors.Is(err, ErrFull):
		return fmt.Sprintf("At most %d browsers can be paired: remove one first.", MaxBrowsers)
	case errors.Is(err, ErrOff):
		return "The web player is off: start furudesk with --web ADDR, or turn it on in Settings."
	}
	return err.Error()
}
