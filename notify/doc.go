// Package notify tells the desktop when a new track starts: a
// notification (org.freedesktop.Notifications) with the title, the artist
// and album, and the cover, each replacing the one before.
//
// The rules, a pure function of the moments it is shown (Rules.Next):
//   - A notification is for a track that starts playing: a queue entry
//     (its content id and place in the queue) other than the last one
//     considered. Pausing, resuming and seeking tell nothing.
//   - None while the window has the focus: the user is looking at it.
//   - None while another device of the group plays, unless the user asked
//     for those too (Settings.OtherDevices).
//   - None when switched off (Settings.On).
//   - A track passed over by these rules is considered all the same: it is
//     not announced later, when the window loses the focus.
//
// Client speaks the protocol on a session bus; the front end feeds it the
// app's statuses (cmd/furudesk).
package notify
