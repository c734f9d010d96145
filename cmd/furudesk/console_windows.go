package main

import (
	"os"

	"golang.org/x/sys/windows"
)

var procAttachConsole = windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole")

// attachConsole gives furudesk.exe, a GUI-subsystem program, the console
// of the cmd.exe or PowerShell that started it, so `furudesk ctl status`,
// --version and --headless print there. Output already redirected (a
// pipe, a file) is left alone; started from Explorer or the Start menu
// there is no console to attach and nothing changes.
func attachConsole() {
	out, _ := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE)
	errh, _ := windows.GetStdHandle(windows.STD_ERROR_HANDLE)
	if out != 0 && out != windows.InvalidHandle && errh != 0 && errh != windows.InvalidHandle {
		return
	}
	const attachParentProcess = ^uintptr(0) // ATTACH_PARENT_PROCESS
	if r, _, _ := procAttachConsole.Call(attachParentProcess); r == 0 {
		return
	}
	con, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	if out == 0 || out == windows.InvalidHandle {
		os.Stdout = con
	}
	if errh == 0 || errh == windows.InvalidHandle {
		os.Stderr = con
	}
}
