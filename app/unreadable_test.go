package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/library"
)

// QA bug 10: the scan notice counts only the tracks the library got and
// names the files it could not read, and Status.Scan lists them.
func TestScanNoticeNamesUnreadableFiles(t *testing.T) {
	r := buildRig(t, self)
	r.lib = &fakeLibrary{j: r.j, result: library.ScanResult{Found: 10, Added: 9, Skipped: 1, NotAudio: 1, BrokenTags: 1,
		Problems: []library.Problem{
			{Path: "/music/tagless.mp3", Err: errors.New("id3: bad frame")}, // indexed anyway
			{Path: "/music/corrupt.mp3", Err: fmt.Errorf("%w: no MPEG audio frames", library.ErrNotAudio)},
		}}}
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	st := r.waitStatus("scan done", func(s Status) bool { return !s.Scan.Running && len(s.Notices) > 0 })
	want := "Library scanned: 9 tracks (9 added, 0 removed). Could not read 1 file: corrupt.mp3 (not audio)"
	if got := st.Notices[len(st.Notices)-1].Text; got != want {
		t.Fatalf("notice\n got %q\nwant %q", got, want)
	}
	if len(st.Scan.Failed) != 1 || st.Scan.Failed[0].Path != "/music/corrupt.mp3" {
		t.Fatalf("Scan.Failed %+v", st.Scan.Failed)
	}
}

// QA bug 10: playing a file of a music folder that could not be read
// says so and why, instead of "add its folder".
func TestResolveSaysWhyAFileIsNotInTheLibrary(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "corrupt.mp3")
	if err := os.WriteFile(bad, []byte(strings.Repeat("not audio ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, self, Options{Config: fastCfg(), Music: []string{dir}})
	_, err := r.app.Resolve(bad)
	if !errors.Is(err, ErrUnreadable) || UserMessage(err) != "could not read "+bad+": not audio" {
		t.Fatalf("unreadable file: %v (%q)", err, UserMessage(err))
	}
	_, err = r.app.Resolve(filepath.Join(dir, "gone.mp3"))
	if !errors.Is(err, ErrNotInLibrary) || !strings.HasSuffix(UserMessage(err), "does not exist") {
		t.Fatalf("missing file: %v", err)
	}
	other := filepath.Join(t.TempDir(), "x.mp3")
	if err := os.WriteFile(other, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.app.Resolve(other); !strings.Contains(UserMessage(err), "add its folder") {
		t.Fatalf("file outside the music folders: %v", err)
	}
}

// QA bug 7: a code the transport refuses at once (malformed, this
// device's own invite) is an error of Pair, not a later notice.
func TestPairRefusedCodeIsAnError(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	if err := r.app.Pair("garbage"); !errors.Is(err, devicesync.ErrInviteMalformed) {
		t.Fatalf("garbage: %v", err)
	}
	r.tr.mu.Lock()
	r.tr.pairErr = fmt.Errorf("%w: the invite is this device's own", devicesync.ErrInviteInvalid)
	r.tr.mu.Unlock()
	err := r.app.Pair("frid://i/xyz")
	if !errors.Is(err, devicesync.ErrInviteInvalid) || !strings.Contains(UserMessage(err), "created on this device") {
		t.Fatalf("own invite: %v (%q)", err, UserMessage(err))
	}
}

// The scan at launch says nothing when the library did not change (the
// unreadable files stay named in Status.Scan); a scan the user asks for
// always sums up.
func TestScanSummaryOnlyWhenSomethingChanged(t *testing.T) {
	r := buildRig(t, self)
	r.lib = &fakeLibrary{j: r.j, result: library.ScanResult{Found: 10, Skipped: 1,
		Problems: []library.Problem{{Path: "/music/corrupt.mp3", Err: fmt.Errorf("%w: no frames", library.ErrNotAudio)}}}}
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	st := r.waitStatus("scan done", func(s Status) bool { return !s.Scan.Running && s.Scan.Found == 10 })
	for _, n := range st.Notices {
		if strings.HasPrefix(n.Text, "Library scanned") {
			t.Fatalf("a launch scan that changed nothing says %q", n.Text)
		}
	}
	if len(st.Scan.Failed) != 1 {
		t.Fatalf("the unreadable file is not named in the status: %+v", st.Scan)
	}
	if err := r.app.Rescan(); err != nil {
		t.Fatal(err)
	}
	r.waitStatus("the asked scan's summary", func(s Status) bool {
		return !s.Scan.Running && len(s.Notices) > 0 && strings.HasPrefix(s.Notices[len(s.Notices)-1].Text, "Library scanned: 9 tracks (0 added, 0 removed)")
	})
	// Something added at launch is said.
	r2 := buildRig(t, self)
	r2.lib = &fakeLibrary{j: r2.j, result: library.ScanResult{Found: 3, Added: 1}}
	r2.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	r2.waitStatus("the summary of a scan that added a track", func(s Status) bool {
		return len(s.Notices) > 0 && s.Notices[len(s.Notices)-1].Text == "Library scanned: 3 tracks (1 added, 0 removed)"
	})
}
