package ctlconn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// pipeBuffer is the size of each direction's pipe buffer.
const pipeBuffer = 64 << 10

// ErrOtherUser is a pipe client or server running as another user.
var ErrOtherUser = errors.New("ctlconn: the other end runs as another user")

// PipeName is the named pipe Listen and Dial use for path: one per user
// and data dir, \\.\pipe\furudesk-ctl-<hash>.
func PipeName(path string) (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	// Windows paths are case-insensitive: C:\Users\A and c:\users\a are
	// one data dir.
	sum := sha256.Sum256([]byte(sid.String() + "\x00" + strings.ToLower(abs)))
	return `\\.\pipe\furudesk-ctl-` + hex.EncodeToString(sum[:12]), nil
}

// userSID is the SID of the user running this process.
func userSID() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("ctlconn: who am I: %w", err)
	}
	return u.User.Sid.Copy()
}

// userOnly is a security descriptor granting the current user alone, in
// full (a protected DACL: nothing inherited).
func userOnly() (*windows.SecurityAttributes, error) {
	sid, err := userSID()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + sid.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("ctlconn: security descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// Listen creates the named pipe for path (PipeName) and listens on it. It
// fails when the pipe exists already: another instance, or another user
// squatting the name.
func Listen(path string) (net.Listener, error) {
	name, err := PipeName(path)
	if err != nil {
		return nil, err
	}
	sa, err := userOnly()
	if err != nil {
		return nil, err
	}
	l := &pipeListener{name: name, sa: sa}
	l.next, err = l.newPipe(true)
	if err != nil {
		return nil, fmt.Errorf("ctl pipe %s: %w", name, err)
	}
	l.closeEv, err = windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		_ = windows.CloseHandle(l.next)
		return nil, fmt.Errorf("ctl pipe %s: %w", name, err)
	}
	return l, nil
}

// pipeListener accepts one client per pipe instance; the next instance is
// created as soon as one is taken, so a client rarely finds the pipe busy.
type pipeListener struct {
	name    string
	sa      *windows.SecurityAttributes
	closeEv windows.Handle // set by Close: wakes a waiting Accept

	accept sync.Mutex     // one Accept at a time; it owns next
	next   windows.Handle // the instance waiting for a client, or 0

	mu     sync.Mutex
	closed bool
}

func (l *pipeListener) newPipe(first bool) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return 0, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	return windows.CreateNamedPipe(name, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
}

func (l *pipeListener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Accept waits for a client on the pending instance. Close ends the wait
// with net.ErrClosed.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.accept.Lock()
	defer l.accept.Unlock()
	if l.isClosed() {
		l.drop()
		return nil, net.ErrClosed
	}
	if l.next == 0 {
		h, err := l.newPipe(false)
		if err != nil {
			return nil, fmt.Errorf("ctl pipe %s: %w", l.name, err)
		}
		l.next = h
	}
	h := l.next
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(ev)
	ov := windows.Overlapped{HEvent: ev}
	err = windows.ConnectNamedPipe(h, &ov)
	if errors.Is(err, windows.ERROR_IO_PENDING) {
		r, werr := windows.WaitForMultipleObjects([]windows.Handle{ev, l.closeEv}, false, windows.INFINITE)
		if werr != nil {
			err = werr
		} else if r == windows.WAIT_OBJECT_0+1 {
			_ = windows.CancelIoEx(h, &ov)
			var n uint32
			_ = windows.GetOverlappedResult(h, &ov, &n, true)
			l.drop()
			return nil, net.ErrClosed
		} else {
			var n uint32
			err = windows.GetOverlappedResult(h, &ov, &n, false)
		}
	}
	if err != nil && !errors.Is(err, windows.ERROR_PIPE_CONNECTED) {
		// A client that came and went before we saw it (ERROR_NO_DATA):
		// this instance is spent; the next Accept makes another.
		l.drop()
		return nil, fmt.Errorf("ctl pipe %s: %w", l.name, err)
	}
	l.next = 0
	// The next instance before this one is handed out, so the pipe name
	// always exists while the listener is open.
	if h2, err := l.newPipe(false); err == nil {
		l.next = h2
	}
	// os.NewFile sees the overlapped handle and puts it on the runtime's
	// poller: reads and writes do not hold a thread, deadlines work.
	return &pipeConn{File: os.NewFile(uintptr(h), l.name), h: h, addr: pipeAddr(l.name), server: true}, nil
}

// drop closes the pending instance; the caller holds l.accept.
func (l *pipeListener) drop() {
	if l.next != 0 {
		_ = windows.CloseHandle(l.next)
		l.next = 0
	}
}

// Close stops the listener; a waiting Accept returns net.ErrClosed.
// Connections accepted before stay open.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return net.ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	_ = windows.SetEvent(l.closeEv)
	l.accept.Lock() // Accept has returned: the pending instance is ours
	l.drop()
	_ = windows.CloseHandle(l.closeEv) // a later Accept sees closed first
	l.accept.Unlock()
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// pipeConn is one end of a connected pipe instance.
type pipeConn struct {
	*os.File
	h      windows.Handle
	addr   pipeAddr
	server bool
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.addr }
func (c *pipeConn) RemoteAddr() net.Addr { return c.addr }

var (
	kernel32      = windows.NewLazySystemDLL("kernel32.dll")
	waitNamedPipe = kernel32.NewProc("WaitNamedPipeW")
)

// Dial connects to the pipe for path (PipeName) within timeout, and
// checks that the server runs as this user (a pipe squatted by another
// user is refused with ErrOtherUser).
func Dial(path string, timeout time.Duration) (net.Conn, error) {
	name, err := PipeName(path)
	if err != nil {
		return nil, err
	}
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		// SECURITY_IDENTIFICATION: the server may learn who we are, not
		// act as us.
		h, err := windows.CreateFile(name16, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil,
			windows.OPEN_EXISTING, windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		if err == nil {
			c := &pipeConn{File: os.NewFile(uintptr(h), name), h: h, addr: pipeAddr(name)}
			if err := CheckPeer(c); err != nil {
				_ = c.Close()
				return nil, err
			}
			return c, nil
		}
		if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
			return nil, fmt.Errorf("ctl pipe %s: %w", name, os.ErrNotExist)
		}
		if !errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("ctl pipe %s: %w", name, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("ctl pipe %s: busy for %v", name, timeout)
		}
		// Every instance taken: wait until one is free (or the time is up).
		_, _, _ = waitNamedPipe.Call(uintptr(unsafe.Pointer(name16)), uintptr(left.Milliseconds()+1))
	}
}

// CheckPeer returns nil when the process at the other end of c (a
// connection from Listen or Dial) runs as this process's user, and an
// error (ErrOtherUser, or why it cannot tell) otherwise.
func CheckPeer(c net.Conn) error {
	pc, ok := c.(*pipeConn)
	if !ok {
		return fmt.Errorf("ctlconn: %T is not a pipe connection", c)
	}
	var pid uint32
	var err error
	if pc.server {
		err = windows.GetNamedPipeClientProcessId(pc.h, &pid)
	} else {
		err = windows.GetNamedPipeServerProcessId(pc.h, &pid)
	}
	if err != nil {
		return fmt.Errorf("ctlconn: which process is calling: %w", err)
	}
	return processIsUser(pid)
}

// processIsUser checks that process pid runs as this process's user.
func processIsUser(pid uint32) error {
	me, err := userSID()
	if err != nil {
		return err
	}
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("ctlconn: process %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return fmt.Errorf("ctlconn: process %d's token: %w", pid, err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return fmt.Errorf("ctlconn: process %d's user: %w", pid, err)
	}
	if !u.User.Sid.Equals(me) {
		return fmt.Errorf("%w (process %d is %s, this is %s)", ErrOtherUser, pid, u.User.Sid, me)
	}
	return nil
}
