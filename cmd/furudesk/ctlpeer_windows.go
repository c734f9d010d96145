package main

import (
	"fmt"
	"net"

	"github.com/furudesk/furudesk/cmd/furudesk/internal/ctlconn"
)

// checkCtlPeer refuses a ctl connection from a process of another user.
// The pipe's DACL already keeps other users out; this holds even if it
// were loosened.
func checkCtlPeer(c net.Conn) error {
	if err := ctlconn.CheckPeer(c); err != nil {
		return fmt.Errorf("furudesk ctl accepts commands only from the user running furudesk: %w", err)
	}
	return nil
}
