package web

import (
	"errors"
	"fmt"
	"github.com/furudesk/furudesk/internal/usererr"
	"slices"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// request is one message from a page: a command with a request id that
// its reply carries. Unknown fields make it malformed.
type request struct {
	ID       int64    `json:"id"`
	Op       string   `json:"op"`
	MS       int64    `json:"ms,omitempty"`
	Value    int      `json:"value,omitempty"`
	On       bool     `json:"on,omitempty"`
	Mode     string   `json:"mode,omitempty"`
	Device   string   `json:"device,omitempty"`
	Index    int      `json:"index,omitempty"`
	To       int      `json:"to,omitempty"`
	IDs      []string `json:"ids,omitempty"`
	Next     bool     `json:"next,omitempty"`
	Query    string   `json:"query,omitempty"`
	Playlist string   `json:"playlist,omitempty"`
	Append   bool     `json:"append,omitempty"`
	// The browser as an output (output.go).
	Page    string `json:"page,omitempty"`
	Fresh   bool   `json:"fresh,omitempty"`
	Here    bool   `json:"here,omitempty"`
	Token   uint64 `json:"token,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Content string `json:"content,omitempty"`
	Track   uint64 `json:"track,omitempty"`
	Err     string `json:"err,omitempty"`
}

// reply answers one request: ok, or a sentence for the user.
type reply struct {
	T     string `json:"t"`
	ID    int64  `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Data  any    `json:"data,omitempty"`
}

// maxSeek bounds a seek position: no track is 1000 hours long.
const maxSeek = 1000 * time.Hour

var errUnknownOp = errors.New("web: unknown command")

// run executes req on b and returns what the reply carries.
func run(b Backend, req request) (any, error) {
	if len(req.IDs) > MaxIDs {
		return nil, userErr(ErrBadRequest, "At most %d tracks at once.", MaxIDs)
	}
	switch req.Op {
	case "toggle":
		return nil, b.TogglePlay()
	case "next":
		return nil, b.Next()
	case "prev":
		return nil, b.Prev()
	case "seek":
		if req.MS < 0 || time.Duration(req.MS)*time.Millisecond > maxSeek {
			return nil, userErr(ErrBadRequest, "That position is outside the track.")
		}
		return nil, b.Seek(time.Duration(req.MS) * time.Millisecond)
	case "volume":
		if req.Value < 0 || req.Value > 100 {
			return nil, userErr(ErrBadRequest, "The volume goes from 0 to 100, not %d.", req.Value)
		}
		return nil, b.SetVolume(req.Value)
	case "shuffle":
		return nil, b.SetShuffle(req.On)
	case "repeat":
		return nil, b.SetRepeat(req.Mode)
	case "transfer":
		return nil, b.Transfer(engine.DeviceID(req.Device))
	case "jump":
		return nil, b.JumpTo(req.Index)
	case "move":
		return nil, move(b, req.Index, req.To)
	case "remove":
		st := b.Status()
		if req.Index < 0 || req.Index >= len(st.Queue) {
			return nil, userErr(ErrBadRequest, "That track is no longer in the queue.")
		}
		return nil, b.RemoveQueueEntries([]int{req.Index}, []string{st.Queue[req.Index].ContentID})
	case "enqueue":
		return nil, b.Enqueue(req.IDs, req.Next)
	case "play":
		return nil, b.PlayTracks(req.IDs, req.Index)
	case "library":
		ts, err := b.Library()
		if err != nil {
			return nil, err
		}
		out := make([]LibTrack, 0, len(ts))
		for _, t := range ts {
			out = append(out, libTrack(t))
		}
		return out, nil
	case "search":
		if len(req.Query) > MaxSearch {
			return nil, userErr(ErrBadRequest, "A search is at most %d characters.", MaxSearch)
		}
		ts, err := b.SearchLibrary(req.Query, SearchLimit)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(ts))
		for _, t := range ts {
			ids = append(ids, t.ContentID)
		}
		return ids, nil
	case "playlists":
		ps, err := b.Playlists()
		if ps == nil {
			ps = []app.PlaylistSummary{}
		}
		return ps, err
	case "playlist":
		p, err := b.Playlist(req.Playlist)
		if err != nil {
			return nil, err
		}
		return playlistView(p), nil
	case "playlist_add":
		return nil, b.AddToPlaylist(req.Playlist, req.IDs, -1)
	case "playlist_play":
		return nil, b.PlayPlaylist(req.Playlist, req.Index, req.Append)
	case "like":
		if len(req.IDs) != 1 {
			return nil, userErr(ErrBadRequest, "Like one track at a time.")
		}
		return nil, b.SetLiked(req.IDs[0], req.On)
	}
	return nil, userErr(errUnknownOp, "This page is newer or older than furudesk (unknown command %q): reload it.", req.Op)
}

// move moves the queue's entry at from to where the entry at to plays
// (the play order while shuffle is on), naming its content id so a queue
// changed in between is not edited by mistake: as ctl's move.
func move(b Backend, from, to int) error {
	st := b.Status()
	if from < 0 || to < 0 || from >= len(st.Queue) || to >= len(st.Queue) {
		return userErr(ErrBadRequest, "That track is no longer in the queue.")
	}
	place := to
	if st.Shuffle {
		place = slices.Index(st.Order, to)
	}
	return b.MoveInQueue([]int{from}, []string{st.Queue[from].ContentID}, place)
}

// errorText is err as the page shows it.
func errorText(err error) string {
	if _, ok := usererr.Text(err); ok || errors.Is(err, ErrNotPaired) {
		return Message(err)
	}
	if m := app.UserMessage(err); m != "" {
		return m
	}
	return fmt.Sprint(err)
}
