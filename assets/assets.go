// Package assets holds the images furudesk embeds in its binary.
package assets

import _ "embed"

// Icon is the application icon, a 256x256 PNG.
//
//go:embed icon.png
var Icon []byte
