package smtc

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/furudesk/furudesk/app"
)

// chanPlayer sends the name of each control called on calls; its status
// plays a track.
type chanPlayer struct{ calls chan string }

func (c chanPlayer) Status() app.Status { return status(track("a", "A"), true, 1000) }
func (c chanPlayer) Subscribe() (<-chan app.Status, func()) {
	ch := make(chan app.Status, 1)
	ch <- c.Status()
	return ch, func() {}
}
func (c chanPlayer) call(name string) error       { c.calls <- name; return nil }
func (c chanPlayer) TogglePlay() error            { return c.call("toggle") }
func (c chanPlayer) Pause() error                 { return c.call("pause") }
func (c chanPlayer) Resume() error                { return c.call("resume") }
func (c chanPlayer) Next() error                  { return c.call("next") }
func (c chanPlayer) Prev() error                  { return c.call("prev") }
func (c chanPlayer) Seek(pos time.Duration) error { return c.call("seek " + pos.String()) }

func (c chanPlayer) want(t *testing.T, name string) {
	t.Helper()
	select {
	case got := <-c.calls:
		if got != name {
			t.Errorf("called %q, want %q", got, name)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("%q was not called within 5 s", name)
	}
}

// Without a window there is no SMTC: the media keys are hotkeys, and a
// WM_HOTKEY of each reaches its control.
func TestWithoutAWindowTheMediaKeysAreHotkeys(t *testing.T) {
	p := chanPlayer{calls: make(chan string, 8)}
	t0 := time.Now()
	s, err := Start(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("mode %v, reason %v (Start took %v)", s.Mode(), s.Reason(), time.Since(t0).Round(time.Millisecond))
	if s.Mode() != ModeHotkeys {
		t.Fatalf("mode %v (%v), want the hotkeys", s.Mode(), s.Reason())
	}
	if s.Reason() != ErrNoWindow {
		t.Errorf("reason %v, want %v", s.Reason(), ErrNoWindow)
	}
	time.Sleep(100 * time.Millisecond) // the control loop takes the status
	for _, k := range []struct {
		vk   uint32
		want string
	}{{VKMediaPlayPause, "toggle"}, {VKMediaNextTrack, "next"}, {VKMediaPrevTrack, "prev"}} {
		// What Windows posts for a hotkey: its id, and the key in lParam's
		// high word.
		r, _, err := procPostThreadMessage.Call(uintptr(s.tid), wmHotkey, hotkeyBase, uintptr(k.vk)<<16)
		if r == 0 {
			t.Fatalf("PostThreadMessage: %v", err)
		}
		p.want(t, k.want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// keyInput is winuser.h's INPUT holding a KEYBDINPUT (64-bit layout).
type keyInput struct {
	typ   uint32
	_     uint32
	vk    uint16
	scan  uint16
	flags uint32
	time  uint32
	_     uint32
	extra uintptr
	_     [8]byte
}

// A media key typed (SendInput: the path of the keyboard's own keys) is
// taken by the hotkeys and reaches its control.
func TestATypedMediaKeyReachesItsControl(t *testing.T) {
	if unsafe.Sizeof(keyInput{}) != 40 {
		t.Skip("INPUT is laid out for 64-bit Windows here")
	}
	p := chanPlayer{calls: make(chan string, 8)}
	s, err := Start(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Mode() != ModeHotkeys {
		t.Fatalf("mode %v (%v), want the hotkeys", s.Mode(), s.Reason())
	}
	time.Sleep(100 * time.Millisecond) // the control loop takes the status
	const inputKeyboard, extendedKey, keyUp = 1, 0x1, 0x2
	in := []keyInput{
		{typ: inputKeyboard, vk: VKMediaNextTrack, flags: extendedKey},
		{typ: inputKeyboard, vk: VKMediaNextTrack, flags: extendedKey | keyUp},
	}
	sendInput := windows.NewLazySystemDLL("user32.dll").NewProc("SendInput")
	n, _, err := sendInput.Call(uintptr(len(in)), uintptr(unsafe.Pointer(&in[0])), unsafe.Sizeof(in[0]))
	if int(n) != len(in) {
		t.Skipf("SendInput took %d of %d inputs: %v (no interactive desktop?)", n, len(in), err)
	}
	p.want(t, "next")
}

// With a window, SMTC is used where Windows has it; where it does not
// (Wine, Windows 7) the reason is said and the hotkeys are used.
func TestWithAWindowSMTCOrTheHotkeys(t *testing.T) {
	user32 := windows.NewLazySystemDLL("user32.dll")
	create, destroy := user32.NewProc("CreateWindowExW"), user32.NewProc("DestroyWindow")
	class, _ := windows.UTF16PtrFromString("STATIC")
	title, _ := windows.UTF16PtrFromString("furudesk smtc test")
	hwnd, _, err := create.Call(0, uintptr(unsafe.Pointer(class)), uintptr(unsafe.Pointer(title)),
		0x10CF0000, 0, 0, 200, 100, 0, 0, 0, 0) // WS_OVERLAPPEDWINDOW|WS_VISIBLE
	if hwnd == 0 {
		t.Skipf("no window: %v", err)
	}
	defer destroy.Call(hwnd)

	p := chanPlayer{calls: make(chan string, 8)}
	t0 := time.Now()
	s, err := Start(p, Options{HWND: hwnd, ArtURL: func(string) string { return "file:///C:/no/such/cover.jpg" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mode %v, reason %v (Start took %v)", s.Mode(), s.Reason(), time.Since(t0).Round(time.Millisecond))
	if s.Mode() == ModeNone {
		t.Errorf("neither SMTC nor the hotkeys: %v", s.Reason())
	}
	if s.Mode() == ModeHotkeys && s.Reason() == nil {
		t.Error("the hotkeys are used and no reason is said")
	}
	time.Sleep(300 * time.Millisecond) // a push or two
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
