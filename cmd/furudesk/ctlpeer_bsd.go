//go:build darwin || freebsd

package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID returns the uid of the process at the other end of c, from
// LOCAL_PEERCRED.
func peerUID(c *net.UnixConn) (uid int, known bool, err error) {
	uid, err = socketUID(c, func(fd int) (uint32, error) {
		cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			return 0, err
		}
		return cred.Uid, nil
	})
	return uid, err == nil, err
}
