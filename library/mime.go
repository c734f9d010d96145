package library

import "github.com/furudesk/furudesk/formats"

// MIMETypes lists, sorted, the MIME types of the formats the library
// indexes, their aliases included (formats, the one list): what the
// desktop entry's MimeType= and MPRIS's SupportedMimeTypes say furudesk
// opens, so the file manager offers furudesk for exactly the files it
// plays.
func MIMETypes() []string { return formats.MIMETypes() }
