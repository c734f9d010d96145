package app

import (
	"strings"
	"testing"

	"github.com/furudesk/furudesk/audio"
)

// TestOutputNoticeIsWithdrawnWhenSoundWorks: a failed output is announced
// once in a plain sentence; when the device works again the error notice
// is withdrawn (so the window's red notice goes) and "working again" says
// so.
func TestOutputNoticeIsWithdrawnWhenSoundWorks(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	errorNotices := func() []Notice {
		var out []Notice
		for _, n := range r.app.Status().Notices {
			if n.Level == "error" {
				out = append(out, n)
			}
		}
		return out
	}
	r.audio(audio.Availability{Available: false, Err: audio.ErrNotConsuming})
	r.audio(audio.Availability{Available: false, Err: audio.ErrClosed}) // another reason: still one notice
	ns := errorNotices()
	if len(ns) != 1 || ns[0].Text != "No sound device is working: the device is not taking any sound" {
		t.Fatalf("error notices %+v, want one plain sentence", ns)
	}
	r.audio(audio.Availability{Available: true})
	if ns := errorNotices(); len(ns) != 0 {
		t.Fatalf("the error notice stays after the output works: %+v", ns)
	}
	all := r.app.Status().Notices
	if len(all) == 0 || all[len(all)-1].Text != "Audio output is working again" {
		t.Fatalf("notices %+v, want the output announced working", all)
	}
	r.audio(audio.Availability{Available: true})
	if n := len(r.app.Status().Notices); n != len(all) {
		t.Fatalf("a second Available repeated the notice: %+v", r.app.Status().Notices)
	}
	for _, n := range r.app.Status().Notices {
		if strings.Contains(n.Text, "audio:") {
			t.Fatalf("notice leaks the package prefix: %q", n.Text)
		}
	}
}
