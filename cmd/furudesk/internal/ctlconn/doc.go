// Package ctlconn is the local endpoint `furudesk ctl` talks to the running
// instance over, for the user running it alone:
//
//   - Linux, macOS, the BSDs: a unix socket at the path given (inside the
//     data dir), mode 0600 whatever the umask; the caller's uid is checked
//     by the ctl server (cmd/furudesk/ctlpeer*.go).
//   - Windows: a named pipe whose name is derived from the path and the
//     user's SID (Wine, and Windows before 10 1803, have no AF_UNIX; a pipe
//     is the Windows way anyway). Its DACL grants the current user alone,
//     remote clients are refused, the first instance is created with
//     FILE_FLAG_FIRST_PIPE_INSTANCE so nobody can squat the name first,
//     and CheckPeer compares the client's token user with ours.
//
// Listen and Dial take the same path on every platform, so callers never
// branch on the OS.
package ctlconn
