package smtc

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The WinRT calls: combase.dll (Windows 8 and later; its absence is how
// Windows 7 says there is no SMTC).
var (
	combase                  = windows.NewLazySystemDLL("combase.dll")
	procRoInitialize         = combase.NewProc("RoInitialize")
	procRoUninitialize       = combase.NewProc("RoUninitialize")
	procRoGetActivationFact  = combase.NewProc("RoGetActivationFactory")
	procRoActivateInstance   = combase.NewProc("RoActivateInstance")
	procWindowsCreateString  = combase.NewProc("WindowsCreateString")
	procWindowsDeleteString  = combase.NewProc("WindowsDeleteString")
	errNoCombase             = fmt.Errorf("smtc: combase.dll has no WinRT (Windows 7 or older)")
	roInitMultithreaded      = uintptr(1)
	hrRPCChangedMode         = hresult(0x80010106)
	hrNoInterface            = hresult(0x80004002)
	hrOK                     = uintptr(0)
	runtimeClassSMTC         = "Windows.Media.SystemMediaTransportControls"
	runtimeClassTimeline     = "Windows.Media.SystemMediaTransportControlsTimelineProperties"
	runtimeClassUri          = "Windows.Foundation.Uri"
	runtimeClassStreamRefer  = "Windows.Storage.Streams.RandomAccessStreamReference"
	iidIUnknown              = guid(0x00000000, 0x0000, 0x0000, 0xc000, 0x000000000046)
	iidIAgileObject          = guid(0x94ea2b94, 0xe9cc, 0x49e0, 0xc0ff, 0xee64ca8f5b90)
	iidSMTCInterop           = guid(0xddb0472d, 0xc911, 0x4a1f, 0x86d9, 0xdc3d71a95f5a)
	iidSMTC                  = guid(0x99fa3ff4, 0x1742, 0x42a6, 0x902e, 0x087d41f965ec)
	iidSMTC2                 = guid(0xea98d2f6, 0x7f3c, 0x4af2, 0xa586, 0x72889808efb1)
	iidMusicProperties2      = guid(0x00368462, 0x97d3, 0x44b9, 0xb00f, 0x008afcefaf18)
	iidTimelineProperties    = guid(0x5125316a, 0xc3a2, 0x475b, 0x8507, 0x93534dc88f15)
	iidUriFactory            = guid(0x44a9796f, 0x723e, 0x4fdf, 0xa218, 0x033e75b0c084)
	iidStreamRefStatics      = guid(0x857309dc, 0x3fbf, 0x4e7d, 0x986f, 0xef3b1a07a964)
	iidButtonPressedHandler  = guid(0x0557e996, 0x7b23, 0x5bae, 0xaa81, 0xea0d671143a4)
	iidPositionChangeHandler = guid(0x44e34f15, 0xbdc0, 0x50a7, 0xace4, 0x39e91fb753f1)
)

// guid spells a GUID as it is written: 8-4-4-4-12 hex digits.
func guid(d1 uint32, d2, d3, d4 uint16, d5 uint64) windows.GUID {
	g := windows.GUID{Data1: d1, Data2: d2, Data3: d3}
	g.Data4[0], g.Data4[1] = byte(d4>>8), byte(d4)
	for i := range 6 {
		g.Data4[2+i] = byte(d5 >> (8 * (5 - i)))
	}
	return g
}

// hresult is a failed COM call's result.
type hresult uint32

func (h hresult) Error() string {
	names := map[hresult]string{
		0x80004001: "E_NOTIMPL", 0x80004002: "E_NOINTERFACE", 0x80004005: "E_FAIL",
		0x80070057: "E_INVALIDARG", 0x8000ffff: "E_UNEXPECTED", 0x80040154: "REGDB_E_CLASSNOTREG",
		0x80010106: "RPC_E_CHANGED_MODE", 0x80070005: "E_ACCESSDENIED", 0x8007000e: "E_OUTOFMEMORY",
		0x80070578: "ERROR_INVALID_WINDOW_HANDLE",
	}
	if n, ok := names[h]; ok {
		return fmt.Sprintf("HRESULT %#08x (%s)", uint32(h), n)
	}
	return fmt.Sprintf("HRESULT %#08x", uint32(h))
}

// check turns a returned HRESULT into an error (nil for S_OK and S_FALSE).
func check(r uintptr) error {
	if int32(uint32(r)) < 0 {
		return hresult(uint32(r))
	}
	return nil
}

// maxSlots bounds the vtable index any call here uses.
const maxSlots = 64

// comObj is a COM interface pointer returned by Windows: its first word
// is its vtable. Only pointers Windows gave are ever *comObj.
type comObj struct{ vtbl *[maxSlots]uintptr }

// call invokes vtable slot with o as this.
func (o *comObj) call(slot int, args ...uintptr) error {
	a := make([]uintptr, 0, 1+len(args))
	a = append(a, uintptr(unsafe.Pointer(o)))
	a = append(a, args...)
	r, _, _ := syscall.SyscallN(o.vtbl[slot], a...)
	return check(r)
}

// out calls slot with args and a last out-parameter receiving an
// interface pointer.
func (o *comObj) out(slot int, args ...uintptr) (*comObj, error) {
	var res *comObj
	err := o.call(slot, append(args, uintptr(unsafe.Pointer(&res)))...)
	if err == nil && res == nil {
		err = hresult(0x80004003) // E_POINTER: S_OK with nothing
	}
	return res, err
}

// release drops a reference; nil is fine.
func (o *comObj) release() {
	if o != nil {
		syscall.SyscallN(o.vtbl[2], uintptr(unsafe.Pointer(o)))
	}
}

// query is QueryInterface.
func (o *comObj) query(iid *windows.GUID) (*comObj, error) {
	return o.out(0, uintptr(unsafe.Pointer(iid)))
}

// hstring is a WinRT string; 0 is the empty string.
type hstring uintptr

// newHString makes an HSTRING of s (NULs cut it short: clean removed them).
func newHString(s string) (hstring, error) {
	u, err := windows.UTF16FromString(s)
	if err != nil {
		return 0, fmt.Errorf("smtc: %q: %w", s, err)
	}
	var h hstring
	r, _, _ := procWindowsCreateString.Call(uintptr(unsafe.Pointer(&u[0])), uintptr(len(u)-1), uintptr(unsafe.Pointer(&h)))
	if err := check(r); err != nil {
		return 0, fmt.Errorf("smtc: WindowsCreateString: %w", err)
	}
	return h, nil
}

func (h hstring) free() {
	if h != 0 {
		_, _, _ = procWindowsDeleteString.Call(uintptr(h))
	}
}

// withHString calls f with an HSTRING of s, freed after.
func withHString(s string, f func(h hstring) error) error {
	h, err := newHString(s)
	if err != nil {
		return err
	}
	defer h.free()
	return f(h)
}

// roInit joins this OS thread to the multithreaded apartment; done undoes
// it (nil when another apartment was there first: it is not ours).
func roInit() (done func(), err error) {
	if err := combase.Load(); err != nil {
		return nil, errNoCombase
	}
	if err := procRoInitialize.Find(); err != nil {
		return nil, errNoCombase
	}
	r, _, _ := procRoInitialize.Call(roInitMultithreaded)
	if err := check(r); err != nil {
		if err == hrRPCChangedMode {
			return func() {}, nil
		}
		return nil, fmt.Errorf("smtc: RoInitialize: %w", err)
	}
	return func() { _, _, _ = procRoUninitialize.Call() }, nil
}

// factory is RoGetActivationFactory of class for iid.
func factory(class string, iid *windows.GUID) (*comObj, error) {
	if err := procRoGetActivationFact.Find(); err != nil {
		return nil, errNoCombase
	}
	var f *comObj
	err := withHString(class, func(h hstring) error {
		r, _, _ := procRoGetActivationFact.Call(uintptr(h), uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&f)))
		return check(r)
	})
	if err == nil && f == nil {
		err = hresult(0x80004003)
	}
	if err != nil {
		return nil, fmt.Errorf("smtc: RoGetActivationFactory(%s): %w", class, err)
	}
	return f, nil
}

// activate is RoActivateInstance of class, queried for iid.
func activate(class string, iid *windows.GUID) (*comObj, error) {
	var inst *comObj
	err := withHString(class, func(h hstring) error {
		r, _, _ := procRoActivateInstance.Call(uintptr(h), uintptr(unsafe.Pointer(&inst)))
		return check(r)
	})
	if err == nil && inst == nil {
		err = hresult(0x80004003)
	}
	if err != nil {
		return nil, fmt.Errorf("smtc: RoActivateInstance(%s): %w", class, err)
	}
	defer inst.release()
	return inst.query(iid)
}

// handler is a COM object of ours: a TypedEventHandler the OS calls on
// threads of its pool. Its first field is what COM sees as the vtable.
type handler struct {
	vtbl   *[4]uintptr
	refs   atomic.Int32
	iid    windows.GUID
	invoke func(args *comObj)
}

var (
	handlerVtblOnce sync.Once
	handlerVtbl     [4]uintptr
	// live keeps every handler the OS may still hold reachable for the
	// garbage collector; Release of the last reference lets it go.
	live sync.Map // *handler -> struct{}
)

// newHandler returns a handler answering iid (and IUnknown, IAgileObject:
// it may be called on any thread) with one reference, the caller's.
func newHandler(iid windows.GUID, invoke func(args *comObj)) *handler {
	handlerVtblOnce.Do(func() {
		handlerVtbl = [4]uintptr{
			syscall.NewCallback(handlerQueryInterface),
			syscall.NewCallback(handlerAddRef),
			syscall.NewCallback(handlerRelease),
			syscall.NewCallback(handlerInvoke),
		}
	})
	h := &handler{vtbl: &handlerVtbl, iid: iid, invoke: invoke}
	h.refs.Store(1)
	live.Store(h, struct{}{})
	return h
}

func (h *handler) ptr() uintptr { return uintptr(unsafe.Pointer(h)) }

func handlerQueryInterface(h *handler, iid *windows.GUID, out **handler) uintptr {
	if out == nil {
		return uintptr(hresult(0x80004003))
	}
	switch *iid {
	case iidIUnknown, iidIAgileObject, h.iid:
		h.refs.Add(1)
		*out = h
		return hrOK
	}
	*out = nil
	return uintptr(hrNoInterface)
}

func handlerAddRef(h *handler) uintptr { return uintptr(h.refs.Add(1)) }

func handlerRelease(h *handler) uintptr {
	n := h.refs.Add(-1)
	if n == 0 {
		live.Delete(h)
	}
	return uintptr(n)
}

func handlerInvoke(h *handler, sender, args *comObj) uintptr {
	if args != nil {
		h.invoke(args)
	}
	return hrOK
}
