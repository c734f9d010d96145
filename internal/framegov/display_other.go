//go:build !linux || !cgo || wayland || ci

package framegov

// NewWaiter reports that this build has no display fd to wait on: the
// loop runs as Fyne made it.
func NewWaiter() (Waiter, error) { return nil, errNoDisplay }
