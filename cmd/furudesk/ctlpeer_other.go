//go:build !linux && !darwin && !freebsd && !windows

package main

import "net"

// peerUID cannot tell the caller here (Windows, the other BSDs): the ctl
// socket relies on the data dir's and its own permissions alone.
func peerUID(*net.UnixConn) (uid int, known bool, err error) { return 0, false, nil }
