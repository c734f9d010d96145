//go:build !ci && (linux || freebsd || openbsd || netbsd || dragonfly || windows || darwin)

package main

import (
	"errors"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// Fyne 2.7 has no API for a window's place on the screen, but its GLFW
// window runs code with its GL context current, and GLFW places windows
// by their content's top-left corner (with the static gravity it asks the
// window manager for), so a place read here and set again lands the
// window where it was, frame or not. These run on the Fyne goroutine.

// glfwWindow is what Fyne's GLFW window offers (an unexported type).
type glfwWindow interface{ RunWithContext(func()) }

// withGLFW runs f with the window's GLFW window; false when the window is
// not a GLFW one (or not created yet).
func withGLFW(w fyne.Window, f func(*glfw.Window)) (ok bool) {
	gw, isGLFW := w.(glfwWindow)
	if !isGLFW {
		return false
	}
	defer func() {
		if recover() != nil { // a GLFW error (a platform without window places)
			ok = false
		}
	}()
	gw.RunWithContext(func() {
		if g := glfw.GetCurrentContext(); g != nil {
			f(g)
			ok = true
		}
	})
	return ok
}

// windowPos is the place of the window's content on the screen.
func windowPos(w fyne.Window) (x, y int, ok bool) {
	ok = withGLFW(w, func(g *glfw.Window) { x, y = g.GetPos() })
	return x, y, ok
}

// setWindowPos moves the window's content to x, y.
func setWindowPos(w fyne.Window, x, y int) error {
	if !withGLFW(w, func(g *glfw.Window) { g.SetPos(x, y) }) {
		return errors.New("this window cannot be placed")
	}
	return nil
}

// followWindow calls moved with the window's new place whenever it moves
// and resized whenever its size changes (after GLFW's callbacks Fyne set,
// which it keeps calling).
func followWindow(w fyne.Window, moved func(x, y int), resized func()) {
	withGLFW(w, func(g *glfw.Window) {
		var prevPos glfw.PosCallback
		prevPos = g.SetPosCallback(func(gw *glfw.Window, x, y int) {
			if prevPos != nil {
				prevPos(gw, x, y)
			}
			moved(x, y)
		})
		var prevSize glfw.SizeCallback
		prevSize = g.SetSizeCallback(func(gw *glfw.Window, width, height int) {
			if prevSize != nil {
				prevSize(gw, width, height)
			}
			resized()
		})
	})
}

// onScreen reports whether a window of w×h at x, y shows at least a good
// part of its top on one of the screens (monitors come and go).
func onScreen(x, y, w, h int) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	for _, m := range glfw.GetMonitors() {
		mx, my, mw, mh := m.GetWorkarea()
		if x+min(w, 200) > mx && x < mx+mw-40 && y >= my-20 && y < my+mh-40 {
			return true
		}
	}
	return false
}
