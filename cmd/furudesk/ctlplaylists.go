package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/library"
)

const ctlPlaylistUsage = `usage: playlist show NAME|ID | create NAME | rename ID NAME | delete ID | add ID TRACK... |
  remove ID INDEX | move ID FROM TO | play ID [--append] | import FILE | export ID FILE`

// isPlaylistCmd reports whether cmd is one of the playlist, like and
// history commands (execPlaylist).
func isPlaylistCmd(cmd string) bool {
	switch cmd {
	case "playlists", "playlist", "like", "unlike", "history":
		return true
	}
	return false
}

// execPlaylist runs the playlist, like and history commands.
func execPlaylist(a *app.App, req ctlRequest) (any, error) {
	switch req.Cmd {
	case "playlists":
		if err := needArgs(req, 0, ""); err != nil {
			return nil, errors.New("usage: playlists")
		}
		return a.Playlists()
	case "like", "unlike":
		if err := needArgs(req, 1, "TRACK (a content id or a file of the library)"); err != nil {
			return nil, err
		}
		id, err := a.Resolve(req.Args[0])
		if err != nil {
			return nil, err
		}
		if err := a.SetLiked(id, req.Cmd == "like"); err != nil {
			return nil, err
		}
		if req.Cmd == "like" {
			return ctlMessage("Liked " + id), nil
		}
		return ctlMessage("Unliked " + id), nil
	case "history":
		if len(req.Args) > 0 {
			return nil, errors.New("usage: history")
		}
		h, err := a.History(0)
		if h == nil && err == nil {
			h = []app.PlaylistEntry{}
		}
		return h, err
	}
	if len(req.Args) == 0 {
		return nil, errors.New(ctlPlaylistUsage)
	}
	sub, args := req.Args[0], req.Args[1:]
	find := func() (app.PlaylistSummary, error) {
		if len(args) == 0 {
			return app.PlaylistSummary{}, errors.New(ctlPlaylistUsage)
		}
		return a.FindPlaylist(args[0])
	}
	index := func(what, s string) (int, error) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 {
			return 0, fmt.Errorf("%s takes a track index, counting from 0 as in `playlist show`, not %q", what, s)
		}
		return i, nil
	}
	switch sub {
	case "show":
		if len(args) == 0 {
			return nil, errors.New("usage: playlist show NAME|ID")
		}
		p, err := a.FindPlaylist(strings.Join(args, " "))
		if err != nil {
			return nil, err
		}
		return a.Playlist(p.ID)
	case "create":
		if len(args) == 0 {
			return nil, errors.New("usage: playlist create NAME")
		}
		return a.CreatePlaylist(strings.Join(args, " "))
	case "rename":
		if len(args) < 2 {
			return nil, errors.New("usage: playlist rename ID NAME")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		name := strings.Join(args[1:], " ")
		if err := a.RenamePlaylist(p.ID, name); err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Renamed “%s” to “%s”", p.Name, strings.TrimSpace(name))), nil
	case "delete":
		if len(args) != 1 {
			return nil, errors.New("usage: playlist delete ID")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		if err := a.DeletePlaylist(p.ID); err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Deleted “%s” on every device of the group", p.Name)), nil
	case "add":
		if len(args) < 2 {
			return nil, errors.New("usage: playlist add ID TRACK... (content ids or files of the library)")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(args)-1)
		for _, x := range args[1:] {
			id, err := a.Resolve(x)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		if err := a.AddToPlaylist(p.ID, ids, -1); err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Added %s to “%s”", tracksWord(len(ids)), p.Name)), nil
	case "remove":
		if len(args) != 2 {
			return nil, errors.New("usage: playlist remove ID INDEX")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		i, err := index("remove", args[1])
		if err != nil {
			return nil, err
		}
		if err := a.RemoveFromPlaylist(p.ID, []int{i}); err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Removed track %d from “%s”", i, p.Name)), nil
	case "move":
		if len(args) != 3 {
			return nil, errors.New("usage: playlist move ID FROM TO")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		from, err := index("move", args[1])
		if err != nil {
			return nil, err
		}
		to, err := index("move", args[2])
		if err != nil {
			return nil, err
		}
		if err := a.MoveInPlaylist(p.ID, from, to); err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Moved track %d of “%s” to %d", from, p.Name, to)), nil
	case "play":
		if len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "--append") {
			return nil, errors.New("usage: playlist play ID [--append]")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		appendQ := len(args) == 2
		if err := a.PlayPlaylist(p.ID, 0, appendQ); err != nil {
			return nil, err
		}
		if appendQ {
			return ctlMessage(fmt.Sprintf("Added “%s” to the queue", p.Name)), nil
		}
		return ctlMessage(fmt.Sprintf("Playing “%s”", p.Name)), nil
	case "import":
		if len(args) != 1 {
			return nil, errors.New("usage: playlist import FILE")
		}
		return a.ImportPlaylist(args[0])
	case "export":
		if len(args) != 2 {
			return nil, errors.New("usage: playlist export ID FILE")
		}
		p, err := find()
		if err != nil {
			return nil, err
		}
		return a.ExportPlaylist(p.ID, args[1])
	}
	return nil, fmt.Errorf("unknown playlist command %q; %s", sub, ctlPlaylistUsage)
}

func tracksWord(n int) string {
	if n == 1 {
		return "1 track"
	}
	return strconv.Itoa(n) + " tracks"
}

// absPlaylistArgs makes the file arguments of the playlist commands
// absolute on the client, whose working directory is the user's; the
// instance runs elsewhere.
func absPlaylistArgs(req ctlRequest) ctlRequest {
	abs := func(i int) {
		if i < len(req.Args) && !strings.HasPrefix(req.Args[i], library.ContentIDPrefix) {
			if p, err := filepath.Abs(req.Args[i]); err == nil {
				req.Args[i] = p
			}
		}
	}
	switch {
	case req.Cmd == "open":
		for i := range req.Args {
			if req.Args[i] != enqueueFlag && !strings.Contains(req.Args[i], "://") {
				abs(i)
			}
		}
	case req.Cmd == "like" || req.Cmd == "unlike":
		abs(0)
	case req.Cmd == "playlist" && len(req.Args) > 0:
		switch req.Args[0] {
		case "import":
			abs(1)
		case "export":
			abs(2)
		case "add":
			for i := 2; i < len(req.Args); i++ {
				abs(i)
			}
		}
	}
	return req
}
