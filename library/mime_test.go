package library

import (
	"slices"
	"testing"

	"github.com/furudesk/furudesk/formats"
)

// Every container the library indexes has a MIME type for the desktop
// entry (the list itself is formats', checked there).
func TestEveryFormatHasMIMETypes(t *testing.T) {
	for _, c := range formats.All {
		if len(c.MIME) == 0 {
			t.Errorf("format %s has no MIME type: the desktop entry would not offer it", c.Name)
		}
	}
	got := MIMETypes()
	if !slices.IsSorted(got) || !slices.Contains(got, "audio/flac") || !slices.Contains(got, "audio/mpeg") {
		t.Errorf("MIMETypes() = %v, want sorted with audio/flac and audio/mpeg", got)
	}
}
