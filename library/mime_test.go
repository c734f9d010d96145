package library

import (
	"maps"
	"slices"
	"testing"
)

func TestEveryFormatHasMIMETypes(t *testing.T) {
	for ext, f := range formats {
		if len(mimeTypes[f]) == 0 {
			t.Errorf("format %s (%s) has no MIME type: the desktop entry would not offer it", f, ext)
		}
	}
	for f := range mimeTypes {
		if !slices.Contains(slices.Collect(maps.Values(formats)), f) {
			t.Errorf("MIME types for %s, a format the library does not index", f)
		}
	}
	got := MIMETypes()
	if !slices.IsSorted(got) || !slices.Contains(got, "audio/flac") || !slices.Contains(got, "audio/mpeg") {
		t.Errorf("MIMETypes() = %v, want sorted with audio/flac and audio/mpeg", got)
	}
}
