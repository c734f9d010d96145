package framegov

import "errors"

// errNoDisplay: the window's loop cannot be held here.
var errNoDisplay = errors.New("framegov: no display connection to wait on (not X11)")
