package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID returns the uid of the process at the other end of c, from
// SO_PEERCRED (its credentials when it connected).
func peerUID(c *net.UnixConn) (uid int, known bool, err error) {
	uid, err = socketUID(c, func(fd int) (uint32, error) {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			return 0, err
		}
		return cred.Uid, nil
	})
	return uid, err == nil, err
}
