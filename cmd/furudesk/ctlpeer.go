//go:build !windows

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// errCtlOtherUser is the answer to a ctl connection from another user.
var errCtlOtherUser = errors.New("furudesk ctl accepts commands only from the user running furudesk")

// checkCtlPeer refuses a ctl connection whose peer runs as another user
// than this process, where the system says who the peer is (peerUID). The
// socket's mode and the data dir's already keep other users out; this
// holds even if they were loosened.
func checkCtlPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("ctl: not a unix socket connection")
	}
	uid, known, err := peerUID(uc)
	if err != nil {
		return fmt.Errorf("ctl: cannot tell who is calling: %w", err)
	}
	if known && uid != os.Getuid() {
		return fmt.Errorf("%w (uid %d); this caller is uid %d", errCtlOtherUser, os.Getuid(), uid)
	}
	return nil
}

// socketUID reads the peer's uid from c's socket with get.
func socketUID(c *net.UnixConn, get func(fd int) (uint32, error)) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid uint32
	var getErr error
	if err := raw.Control(func(fd uintptr) { uid, getErr = get(int(fd)) }); err != nil {
		return 0, err
	}
	return int(uid), getErr
}
