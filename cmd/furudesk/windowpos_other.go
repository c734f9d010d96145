//go:build ci || !(linux || freebsd || openbsd || netbsd || dragonfly || windows || darwin)

package main

import (
	"errors"

	"fyne.io/fyne/v2"
)

// Without GLFW (the ci build) the window's place is not known.

func windowPos(fyne.Window) (x, y int, ok bool) { return 0, 0, false }

func setWindowPos(fyne.Window, int, int) error {
	return errors.New("this window cannot be placed")
}

func onScreen(x, y, w, h int) bool { return false }

func followWindow(fyne.Window, func(x, y int), func()) {}
