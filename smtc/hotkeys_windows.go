package smtc

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32                = windows.NewLazySystemDLL("user32.dll")
	procRegisterHotKey    = user32.NewProc("RegisterHotKey")
	procUnregisterHotKey  = user32.NewProc("UnregisterHotKey")
	procGetMessageW       = user32.NewProc("GetMessageW")
	procPeekMessageW      = user32.NewProc("PeekMessageW")
	procPostThreadMessage = user32.NewProc("PostThreadMessageW")
)

const (
	wmQuit      = 0x0012
	wmHotkey    = 0x0312
	wmUser      = 0x0400
	pmNoRemove  = 0x0000
	modNoRepeat = 0x4000
	// hotkeyBase is the first hotkey id; ids below 0xC000 are an
	// application's own.
	hotkeyBase = 0x3800
)

// msg is winuser.h's MSG.
type msg struct {
	hwnd    uintptr
	message uint32
	wParam  uintptr
	lParam  uintptr
	time    uint32
	pt      struct{ x, y int32 }
	private uint32
}

// registerHotkeys takes the media keys for this thread (no window: the
// WM_HOTKEY messages come to its queue). Keys another program holds are
// left out; it fails only when it got none of them.
func registerHotkeys() ([]int, error) {
	// The thread's message queue first (PeekMessage makes it, as
	// PostThreadMessage's documentation asks): WM_HOTKEY and postQuit's
	// WM_QUIT go to it. Without it Wine 8's wineserver was seen to crash
	// on the first media key (3 times of 3 in one prefix; none with it).
	var m msg
	_, _, _ = procPeekMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, wmUser, wmUser, pmNoRemove)
	var ids []int
	var errs []error
	for i, vk := range HotkeyKeys {
		id := hotkeyBase + i
		r, _, err := procRegisterHotKey.Call(0, uintptr(id), modNoRepeat, uintptr(vk))
		if r == 0 {
			// Vista has no MOD_NOREPEAT.
			r, _, err = procRegisterHotKey.Call(0, uintptr(id), 0, uintptr(vk))
		}
		if r == 0 {
			errs = append(errs, fmt.Errorf("RegisterHotKey(%#x): %w", vk, err))
			continue
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("smtc: no media key could be registered: %w", errors.Join(errs...))
	}
	return ids, nil
}

func unregisterHotkeys(ids []int) {
	for _, id := range ids {
		_, _, _ = procUnregisterHotKey.Call(0, uintptr(id))
	}
}

// pumpHotkeys hands each media key of WM_HOTKEY to enqueue until WM_QUIT
// (postQuit).
func pumpHotkeys(enqueue func(press)) error {
	var m msg
	for {
		r, _, err := procGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0)
		switch int32(r) {
		case 0:
			return nil // WM_QUIT
		case -1:
			return fmt.Errorf("smtc: GetMessage: %w", err)
		}
		if m.message != wmHotkey {
			continue
		}
		vk := uint32(m.lParam>>16) & 0xffff
		if b, ok := HotkeyButton(vk); ok {
			enqueue(press{b: b})
		}
	}
}

// postQuit ends pumpHotkeys on thread tid.
func postQuit(tid uint32) {
	_, _, _ = procPostThreadMessage.Call(uintptr(tid), wmQuit, 0, 0)
}
