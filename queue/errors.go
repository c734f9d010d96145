package queue

import (
	"errors"
	"fmt"
	"time"
)

// Errors of the controls a user can act on. Code tests them with
// errors.Is; UserText gives the sentence a user reads, naming the index,
// track or value concerned.
var (
	ErrSeekRange    = errors.New("queue: position past the end of the track")
	ErrQueueIndex   = errors.New("queue: no such queue index")
	ErrQueueEmpty   = errors.New("queue: the queue is empty")
	ErrBadArgument  = errors.New("queue: invalid argument")
	ErrQueueChanged = errors.New("queue: the queue changed")
	ErrQueueFull    = errors.New("queue: the queue is full")
)

// Error is a sentinel with the sentence a user reads.
type Error struct {
	Err  error
	Text string
}

func (e *Error) Error() string { return e.Err.Error() + ": " + e.Text }
func (e *Error) Unwrap() error { return e.Err }

// UserText is the sentence for the user, without the package prefix.
func (e *Error) UserText() string { return e.Text }

func userErr(sentinel error, format string, args ...any) error {
	return &Error{Err: sentinel, Text: fmt.Sprintf(format, args...)}
}

// clock formats a track position as m:ss.
func clock(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
