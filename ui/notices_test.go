package ui

import (
	"strings"
	"testing"

	"github.com/furudesk/furudesk/app"
)

// TestSameNoticeTextShownOnce: a text the app sends again (a peer's
// notice relayed twice) is one row, the newest; after the app withdraws
// only one of its copies the row stays, after both it goes.
func TestSameNoticeTextShownOnce(t *testing.T) {
	h := newHarness(t, 3)
	a := app.Notice{ID: 1, Level: "error", Text: "devB-box has no file for Gap A, paused"}
	b := app.Notice{ID: 2, Level: "info", Text: "Playing on devC-box"}
	a2 := app.Notice{ID: 3, Level: "error", Text: a.Text + "."}
	h.apply(func(st *app.Status) { st.Notices = []app.Notice{a, b, a2} })
	got := h.u.notices.texts()
	if len(got) != 2 || got[0] != b.Text || got[1] != a2.Text {
		t.Fatalf("notices %q, want each text once, the repeated one last", got)
	}
	h.apply(func(st *app.Status) { st.Notices = []app.Notice{b, a2} })
	if got := h.u.notices.texts(); len(got) != 2 {
		t.Fatalf("one copy withdrawn: notices %q, want the row kept", got)
	}
	h.apply(func(st *app.Status) { st.Notices = []app.Notice{b} })
	if got := h.u.notices.texts(); len(got) != 1 || got[0] != b.Text {
		t.Fatalf("both copies withdrawn: notices %q", got)
	}
}

// TestNoticeSayingTheBannerIsNotShown: "Playing on Living room" is already
// the banner's text, so the strip does not repeat it.
func TestNoticeSayingTheBannerIsNotShown(t *testing.T) {
	h := newHarness(t, 10)
	h.playing()
	h.remote()
	h.u.notices.view.RemoveAll()
	h.apply(func(st *app.Status) {
		st.Notices = []app.Notice{{ID: 7, Level: "info", Text: "Playing on Living room"}}
	})
	if got := h.u.notices.texts(); len(got) != 0 {
		t.Fatalf("notices %q, want none besides the banner %q", got, h.u.banner.label.Text)
	}
}

// TestUnreadableFileIsNoRedNotice: after a scan that could not read a
// file (on every launch while the file is there) the strip says only
// what was scanned, as information; the file is named in the sidebar.
func TestUnreadableFileIsNoRedNotice(t *testing.T) {
	h := newHarness(t, 3)
	h.apply(func(st *app.Status) {
		st.Scan = app.ScanStatus{Found: 4, Done: 4, Errors: 1,
			Failed: []app.ScanFailure{{Path: "/m/broken.mp3", Reason: "not an audio file"}}}
		st.Notices = []app.Notice{{ID: 1, Level: "error",
			Text: "Library scanned: 3 tracks (0 added, 0 removed). Could not read 1 file: broken.mp3 (not an audio file)"}}
	})
	got := h.u.notices.texts()
	if len(got) != 1 || got[0] != "Library scanned: 3 tracks (0 added, 0 removed)." {
		t.Fatalf("notices %q", got)
	}
	if h.u.notices.rows[h.u.notices.view.Objects[0]].problem {
		t.Fatal("the scan summary is shown as a problem")
	}
	if !h.u.scanBar.view.Visible() || !strings.Contains(h.u.scanBar.label.Text, "broken.mp3") {
		t.Fatalf("sidebar %q, want the file named", h.u.scanBar.label.Text)
	}
	if lvl, _ := scanNoticeText("error", "Scan failed: disk gone"); lvl != "error" {
		t.Fatal("a failed scan is still an error")
	}
}

// A music folder that is missing is marked so in Settings and its scan
// summary stays a problem; Details names every file the status lists and
// speaks of more only beyond what it lists.
func TestMissingFolderIsMarkedAndDetailsNameEveryFile(t *testing.T) {
	h := newHarness(t, 3)
	h.apply(func(st *app.Status) {
		st.Folders = []string{"/m/here", "/m/gone"}
		st.Scan = app.ScanStatus{Found: 4, Done: 4, Errors: 3, Missing: []string{"/m/gone"},
			Failed: []app.ScanFailure{{Path: "/m/gone", Reason: "the folder is unavailable"},
				{Path: "/m/here/a.mp3", Reason: "not audio"}, {Path: "/m/here/b.mp3", Reason: "permission denied"}}}
		st.Notices = []app.Notice{{ID: 1, Level: "error", Text: "Library scanned: 3 tracks (0 added, 0 removed). Missing: /m/gone"}}
	})
	if got := h.u.notices.texts(); len(got) != 1 || !h.u.notices.rows[h.u.notices.view.Objects[0]].problem {
		t.Fatalf("notices %q: want the missing folder as a problem", got)
	}
	h.u.showPage(PageSettings)
	var marked []string
	for _, o := range h.u.settings.folders.Objects {
		marked = append(marked, labelsWith(o, func(s string) bool { return strings.Contains(s, "missing") })...)
	}
	if len(marked) != 1 || marked[0] != "/m/gone — missing" {
		t.Fatalf("marked %q, want only /m/gone", marked)
	}
	h.u.scanBar.showDetails()
	texts := strings.Join(labelsWith(h.u.win.Canvas().Overlays().Top(), func(string) bool { return true }), "|")
	for _, want := range []string{"a.mp3", "b.mp3", "gone"} {
		if !strings.Contains(texts, want) {
			t.Fatalf("details %q do not name %s", texts, want)
		}
	}
	if strings.Contains(texts, "more file") {
		t.Fatalf("details %q speak of more files than the 3 they list", texts)
	}
}
