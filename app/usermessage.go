package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/furudesk/furudesk/internal/usererr"
	"regexp"
	"strings"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

// Errors of the App methods a user can act on. Code tests them with
// errors.Is; front ends show UserMessage(err), which names the device,
// track or value concerned.
var (
	ErrOffline      = errors.New("app: the device is offline")
	ErrNotMember    = errors.New("app: not a device of this group")
	ErrSeekRange    = queue.ErrSeekRange
	ErrQueueIndex   = queue.ErrQueueIndex
	ErrQueueEmpty   = queue.ErrQueueEmpty
	ErrNotInLibrary = errors.New("app: not in the library")
	ErrUnreadable   = errors.New("app: the file could not be read")
	ErrBadArgument  = queue.ErrBadArgument
	ErrQueueChanged = queue.ErrQueueChanged
	ErrQueueFull    = queue.ErrQueueFull
)

// userErr wraps sentinel with a sentence for the user.
func userErr(sentinel error, format string, args ...any) error {
	return usererr.New(sentinel, format, args...)
}

// UserMessage turns err into a plain sentence for the user: no package
// prefixes, no JSON decoder internals. Front ends (the window, ctl) show
// it instead of err.Error(); code keeps testing the sentinels.
func UserMessage(err error) string {
	if err == nil {
		return ""
	}
	if t, ok := usererr.Text(err); ok {
		return t
	}
	var qe *queue.Error
	if errors.As(err, &qe) {
		return qe.UserText()
	}
	switch {
	case errors.Is(err, engine.ErrConfig):
		return configMessage(err)
	case errors.Is(err, ErrClosed):
		return "furudesk is shutting down"
	case errors.Is(err, ErrTimeout):
		return "furudesk did not answer in time; try again"
	case errors.Is(err, devicesync.ErrInviteMalformed):
		return "this is not a valid invite code: copy the whole code (it starts with frid://i/) from the device that created it"
	case errors.Is(err, devicesync.ErrInviteExpired):
		return "this invite has expired: create a new one on the other device"
	case errors.Is(err, devicesync.ErrInviteInvalid):
		if strings.Contains(err.Error(), "own") {
			return "this invite was created on this device: use it on the device that should join"
		}
		return "the other device does not know this invite, or it was used already: create a new one"
	case errors.Is(err, devicesync.ErrPairDenied):
		return "the other device refused the pairing request"
	case errors.Is(err, devicesync.ErrPairBusy):
		return "the other device has too many pairing requests waiting; try again later"
	case errors.Is(err, devicesync.ErrPairTimeout):
		return "the other device did not answer the pairing request in time"
	case errors.Is(err, devicesync.ErrUnknownRequest):
		return "there is no such pairing request (it may have been answered already)"
	case errors.Is(err, devicesync.ErrUnknownDevice):
		return "that device is not in this group"
	case errors.Is(err, devicesync.ErrRevokeSelf):
		return "a device cannot remove itself from the group: leave the group instead"
	case errors.Is(err, devicesync.ErrAlone):
		return "this device is alone in its group: there is nothing to leave"
	case errors.Is(err, devicesync.ErrInviteTaken):
		return "another device's request with this invite is waiting on the other device: ask its user to answer it, or create a new invite"
	case errors.Is(err, devicesync.ErrGroupFull):
		return "the group has the maximum number of devices"
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return "the input is not valid JSON"
	}
	return plain(err.Error())
}

// pkgPrefix matches the package prefixes of sentinel errors.
var pkgPrefix = regexp.MustCompile(`\b(app|engine|devicesync|storage|audio|library|mpris|ui): `)

// plain removes package prefixes from an error text.
func plain(s string) string { return pkgPrefix.ReplaceAllString(s, "") }

// configFieldHelp says what each playback setting accepts.
var configFieldHelp = map[string]string{
	"owner_timeout_ms": fmt.Sprintf("owner_timeout_ms must be a whole number of milliseconds between %d and %d",
		engine.MinOwnerTimeoutMS, engine.MaxOwnerTimeoutMS),
	"discovery_ms": fmt.Sprintf("discovery_ms must be a whole number of milliseconds between 0 and %d",
		engine.MaxDiscoveryMS),
	"claim_on_startup":       "claim_on_startup must be true or false",
	"automatic_failover":     "automatic_failover must be true or false",
	"take_paused_on_startup": "take_paused_on_startup must be true or false",
}

var (
	configUnknown = regexp.MustCompile(`unknown field "([^"]*)"`)
	configField   = regexp.MustCompile(`field "([a-z_]+)"|\b([a-z_]+) = `)
)

// configMessage is the sentence for an engine.ErrConfig error: which
// setting is wrong and what it accepts.
func configMessage(err error) string {
	s := err.Error()
	if m := configUnknown.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("%q is not a playback setting (the settings are claim_on_startup, automatic_failover, "+
			"take_paused_on_startup, discovery_ms and owner_timeout_ms)", m[1])
	}
	if m := configField.FindStringSubmatch(s); m != nil {
		f := m[1] + m[2]
		if help, ok := configFieldHelp[f]; ok {
			return help
		}
	}
	return `the playback settings must be a JSON object such as {"owner_timeout_ms": 120000}`
}
