//go:build linux && cgo && !wayland && !ci

package framegov

// #cgo pkg-config: x11
// #include <X11/Xlib.h>
// static int displayFD(void *d) { return d ? ConnectionNumber((Display *)d) : -1; }
import "C"

import (
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// NewWaiter is the Waiter of the window's loop: it waits on GLFW's
// connection to the X server. Call it on the UI goroutine once the loop
// runs; an error means the loop cannot be held (no X display).
func NewWaiter() (w Waiter, err error) {
	defer func() {
		if r := recover(); r != nil { // GLFW's errors are panics
			w, err = nil, errNoDisplay
		}
	}()
	d := unsafe.Pointer(glfw.GetX11Display())
	fw, err := newPollerWaiter(int(C.displayFD(d)))
	if err != nil {
		return nil, err
	}
	return fw, nil
}
