//go:build !windows

package main

// attachConsole is for Windows' GUI-subsystem exe; a program here always
// has the terminal that started it.
func attachConsole() {}
