// Package userdir makes furudesk's data dir private to the user running
// it. On Linux, macOS and the BSDs that is the 0700 mode the dir is made
// with (os.MkdirAll), and nothing is done here. On Windows, where a new
// dir under %LOCALAPPDATA% inherits whatever its parent grants, Secure
// sets a protected DACL granting the current user alone, inherited by
// every file and folder within, and rewrites it on each start, so a dir
// found open (copied in, or loosened by hand) is tightened too.
package userdir
