package web

import "time"

// Limits of the web player, named in one place. Everything that grows from
// what a browser sends is bounded by one of them.
const (
	// CodeLen is the length of a pairing code, CodeTTL how long it is
	// valid; a code pairs one browser.
	CodeLen = 8
	CodeTTL = 10 * time.Minute
	// MaxOpenCodes bounds the codes waiting at once: asking for one more
	// drops the oldest.
	MaxOpenCodes = 8

	// MaxWrongCodes wrong codes from one address make it wait BlockFor.
	MaxWrongCodes = 5
	BlockFor      = 10 * time.Minute
	// MaxTrackedAddrs bounds the addresses whose wrong codes are counted;
	// past it the ones not blocked are forgotten first.
	MaxTrackedAddrs = 4096

	// MaxBrowsers bounds the paired browsers of this device.
	MaxBrowsers = 64
	// MaxLabel bounds a browser's label ("Android · Chrome").
	MaxLabel = 64
	// LastSeenEvery is how often a browser's last-seen time is saved.
	LastSeenEvery = 5 * time.Minute

	// MaxMessage bounds one WebSocket message from a browser, MaxPairBody
	// the body of a pairing request.
	MaxMessage  = 16 << 10
	MaxPairBody = 1 << 10
	// A browser may send MsgBurst messages at once and MsgRate a second
	// after that; more is a flood and its connection is closed.
	MsgRate  = 20
	MsgBurst = 40
	// MaxConns bounds the open WebSocket connections of the server,
	// MaxConnsPerBrowser those of one paired browser.
	MaxConns           = 256
	MaxConnsPerBrowser = 8
	// MaxIDs bounds the content ids or indexes of one command.
	MaxIDs = 1000
	// MaxSearch bounds a search query, SearchLimit its results.
	MaxSearch   = 200
	SearchLimit = 200
	// WriteTimeout bounds one write to a browser; a slower one is closed.
	WriteTimeout = 10 * time.Second
)
