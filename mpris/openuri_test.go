package mpris

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/furudesk/furudesk/app"
)

// openerPlayer is a fake player that can open files.
type openerPlayer struct {
	*fakePlayer
	mu     sync.Mutex
	opened [][]string
}

func (p *openerPlayer) OpenFiles(paths []string, enqueue bool) (app.Opened, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opened = append(p.opened, paths)
	return app.Opened{Tracks: len(paths)}, nil
}

// Issue 39: a player that opens files announces the file scheme and the
// library's MIME types, and OpenUri plays the file of a file:// URI.
func TestOpenUriPlaysAFile(t *testing.T) {
	t.Parallel()
	addr := startBus(t)
	p := &openerPlayer{fakePlayer: newFakePlayer(pausedAt(0, 0))}
	srv, err := Serve(context.Background(), connect(t, addr), p, Options{Now: (&fakeClock{}).Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	r := &rig{addr: addr}
	obj := r.object(t)
	if got := get(t, obj, ifaceRoot, "SupportedUriSchemes").([]string); !slices.Equal(got, []string{"file"}) {
		t.Errorf("SupportedUriSchemes = %v, want [file]", got)
	}
	if got := get(t, obj, ifaceRoot, "SupportedMimeTypes").([]string); !slices.Contains(got, "audio/flac") || !slices.Contains(got, "audio/mpeg") {
		t.Errorf("SupportedMimeTypes = %v, want the library's (audio/flac, audio/mpeg...)", got)
	}
	if err := obj.Call(ifacePlayer+".OpenUri", 0, "file:///home/u/Music/a%20b.flac").Err; err != nil {
		t.Fatal(err)
	}
	if err := obj.Call(ifacePlayer+".OpenUri", 0, "http://example.com/x.mp3").Err; dbusErrorName(err) != errNotSupported {
		t.Errorf("OpenUri(http://...) = %v, want %s", err, errNotSupported)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.opened) != 1 || !slices.Equal(p.opened[0], []string{"/home/u/Music/a b.flac"}) {
		t.Errorf("opened %q, want the one decoded path", p.opened)
	}
}
