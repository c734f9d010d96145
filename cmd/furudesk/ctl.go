package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/cmd/furudesk/internal/ctlconn"
	"github.com/furudesk/furudesk/engine"
)

// ctlSocketName is the unix socket of the running instance inside its data
// dir. On Windows the path names a named pipe instead (ctlconn: Wine has
// no AF_UNIX, and a pipe can be restricted to the user).
const ctlSocketName = "ctl.sock"

// Limits of the ctl protocol: one JSON request line, one JSON answer.
const (
	maxCtlRequest = 1 << 20
	maxCtlArgs    = 10000
	ctlTimeout    = 30 * time.Second
)

type ctlRequest struct {
	Cmd  string   `json:"cmd"`
	Args []string `json:"args"`
}

type ctlResponse struct {
	OK      bool            `json:"ok"`
	Stream  bool            `json:"stream,omitempty"` // lines follow (ctltracks.go)
	Error   string          `json:"error,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Message string          `json:"message,omitempty"` // a confirmation for the user, printed as text
}

// ctlMessage is a result that is a confirmation sentence, not data.
type ctlMessage string

type ctlServer struct {
	path string
	ln   net.Listener
	app  *app.App
	web  atomic.Pointer[webPlayer] // set once the device has its web player
	wg   sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open connections, closed by close
}

func listenCtl(dataDir string, a *app.App) (*ctlServer, error) {
	path := filepath.Join(dataDir, ctlSocketName)
	// The data dir lock is ours, so a socket file left here belongs to a
	// crashed instance: Listen replaces it.
	ln, err := ctlconn.Listen(path)
	if err != nil {
		return nil, err
	}
	s := &ctlServer{path: path, ln: ln, app: a, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

func (s *ctlServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// close stops accepting and ends the connections still open (a client
// reading a long stream, one that sent nothing): shutting down does not
// wait for them.
func (s *ctlServer) close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if runtime.GOOS != "windows" {
		_ = os.Remove(s.path)
	}
	return err
}

func (s *ctlServer) handle(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(ctlTimeout))
	r := bufio.NewReader(io.LimitReader(c, maxCtlRequest))
	line, err := r.ReadBytes('\n')
	var resp ctlResponse
	var req ctlRequest
	if err != nil && len(line) == 0 {
		return
	}
	// The request is read first, so that the caller, done writing, reads
	// the refusal.
	if err := checkCtlPeer(c); err != nil {
		resp.Error = err.Error()
	} else if err := json.Unmarshal(line, &req); err != nil || len(req.Args) > maxCtlArgs {
		resp.Error = "malformed request"
	} else if req.Cmd == "tracks" {
		s.streamTracks(c, req)
		return
	} else if v, err := s.exec(req); err != nil {
		resp.Error = app.UserMessage(err)
	} else {
		resp.OK = true
		if m, ok := v.(ctlMessage); ok {
			resp.Message = string(m)
		} else if v != nil {
			resp.Result, _ = json.Marshal(v)
		}
	}
	b, _ := json.Marshal(resp)
	_, _ = c.Write(append(b, '\n'))
}

func needArgs(req ctlRequest, n int, usage string) error {
	if len(req.Args) != n {
		return fmt.Errorf("usage: %s %s", req.Cmd, usage)
	}
	return nil
}

// exec runs one ctl command on the app.
func (s *ctlServer) exec(req ctlRequest) (any, error) {
	a := s.app
	if isPlaylistCmd(req.Cmd) {
		return execPlaylist(a, req) // ctlplaylists.go
	}
	switch req.Cmd {
	case "status":
		return a.Status(), nil
	case "play":
		if len(req.Args) == 0 {
			return nil, a.Resume()
		}
		es, err := resolveAll(a, req.Args)
		if err != nil {
			return nil, err
		}
		return nil, a.PlayEntries(es, 0)
	case "pause":
		return nil, a.Pause()
	case "resume":
		return nil, a.Resume()
	case "toggle":
		return nil, a.TogglePlay()
	case "next":
		return nil, a.Next()
	case "prev":
		return nil, a.Prev()
	case "seek":
		if err := needArgs(req, 1, "MS"); err != nil {
			return nil, err
		}
		ms, err := strconv.ParseInt(req.Args[0], 10, 64)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("seek takes a position in milliseconds, a whole number such as 90000 for 1:30, not %q", req.Args[0])
		}
		if ms > maxSeekMS {
			return nil, fmt.Errorf("seek: %s ms is past the end of any track", req.Args[0])
		}
		// The app refuses a position past the end of the current track.
		return nil, a.Seek(time.Duration(ms) * time.Millisecond)
	case "volume":
		if err := needArgs(req, 1, "0..100"); err != nil {
			return nil, err
		}
		v, err := strconv.Atoi(req.Args[0])
		if err != nil || v < 0 || v > 100 {
			return nil, fmt.Errorf("volume takes a whole number from 0 to 100, not %q", req.Args[0])
		}
		return nil, a.SetVolume(v)
	case "repeat":
		if err := needArgs(req, 1, "off|all|one"); err != nil {
			return nil, err
		}
		return nil, a.SetRepeat(req.Args[0])
	case "shuffle":
		if err := needArgs(req, 1, "on|off"); err != nil {
			return nil, err
		}
		on, err := onOff(req)
		if err != nil {
			return nil, err
		}
		return nil, a.SetShuffle(on)
	case "jump":
		if err := needArgs(req, 1, "INDEX"); err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(req.Args[0])
		if err != nil || i < 0 {
			return nil, fmt.Errorf("jump takes a queue index, counting from 0 like the index of `queue`, not %q", req.Args[0])
		}
		// The app refuses an index past the end of the queue, in the
		// same counting.
		return nil, a.JumpTo(i)
	case "clear":
		return nil, a.ClearQueue()
	case "queue":
		st := a.Status()
		q := map[string]any{"index": st.Index, "queue": st.Queue, "playing": st.Playing, "position_ms": st.PositionMS}
		if st.Shuffle {
			q["order"] = st.Order
		}
		return q, nil
	case "move":
		if err := needArgs(req, 2, "FROM TO"); err != nil {
			return nil, err
		}
		ix, err := queueIndexes(req.Cmd, req.Args)
		if err != nil {
			return nil, err
		}
		return nil, moveInQueue(a, ix[0], ix[1])
	case "remove":
		if len(req.Args) == 0 {
			return nil, errors.New("usage: remove INDEX... (queue indexes, from 0 as in queue)")
		}
		ix, err := queueIndexes(req.Cmd, req.Args)
		if err != nil {
			return nil, err
		}
		return nil, a.RemoveQueueEntries(ix, nil)
	case "enqueue":
		if len(req.Args) == 0 {
			return nil, errors.New("usage: enqueue ID|PATH (one or more)")
		}
		es, err := resolveAll(a, req.Args)
		if err != nil {
			return nil, err
		}
		return nil, a.EnqueueEntries(es, false)
	case "devices":
		return a.Status().Devices, nil
	case "transfer":
		if err := needArgs(req, 1, "DEVICE_ID"); err != nil {
			return nil, err
		}
		d, err := findDevice(a.Status().Devices, req.Args[0])
		if err != nil {
			return nil, err
		}
		return transferAndConfirm(a, d, transferConfirmWait)
	case "invite":
		return a.Invite()
	case "pair":
		if err := needArgs(req, 1, "CODE"); err != nil {
			return nil, err
		}
		if err := a.Pair(req.Args[0]); err != nil {
			return nil, err
		}
		st := a.Status()
		return ctlMessage("Pairing request sent as " + st.DeviceName + ", fingerprint " + st.Fingerprint +
			": accept it on the other device if it shows this fingerprint next to the request"), nil
	case "pairing":
		p := a.Status().Pairing
		if p == nil {
			p = []app.PairingRequest{}
		}
		return p, nil
	case "accept":
		if len(req.Args) < 1 || len(req.Args) > 2 || (len(req.Args) == 2 && req.Args[1] != "--join-theirs") {
			return nil, errors.New("usage: accept REQUEST_ID [--join-theirs]")
		}
		name := req.Args[0]
		for _, p := range a.Status().Pairing {
			if p.ID == req.Args[0] {
				name = p.Name
			}
		}
		if err := a.Accept(req.Args[0], len(req.Args) == 2); err != nil {
			return nil, err
		}
		return ctlMessage("Accepted: " + name + " joins the group"), nil
	case "leave":
		if err := needArgs(req, 0, "(no arguments)"); err != nil {
			return nil, err
		}
		if err := a.Leave(); err != nil {
			return nil, err
		}
		return ctlMessage("This device left its group; the other devices remove it"), nil
	case "deny":
		if err := needArgs(req, 1, "REQUEST_ID"); err != nil {
			return nil, err
		}
		if err := a.Deny(req.Args[0]); err != nil {
			return nil, err
		}
		return ctlMessage("Denied"), nil
	case "revoke":
		if err := needArgs(req, 1, "DEVICE_ID"); err != nil {
			return nil, err
		}
		d, err := findDevice(a.Status().Devices, req.Args[0])
		if err != nil {
			return nil, err
		}
		if err := a.Revoke(d.DeviceID); err != nil {
			return nil, err
		}
		return ctlMessage("Removed " + d.Name + " from the group"), nil
	case "name":
		if err := needArgs(req, 1, "NAME"); err != nil {
			return nil, err
		}
		return nil, a.SetDeviceName(req.Args[0])
	case "passive":
		if err := needArgs(req, 1, "on|off"); err != nil {
			return nil, err
		}
		on, err := onOff(req)
		if err != nil {
			return nil, err
		}
		return nil, a.SetPassive(on)
	case "config":
		if len(req.Args) == 1 && req.Args[0] == "get" {
			return a.PlaybackConfig(), nil
		}
		if len(req.Args) == 2 && req.Args[0] == "set" {
			c, err := engine.ParseConfig([]byte(req.Args[1]))
			if err != nil {
				return nil, err
			}
			if err := a.SetPlaybackConfig(c); err != nil {
				return nil, err
			}
			return c, nil
		}
		return nil, errors.New("usage: config get | config set JSON")
	case "replaygain":
		if len(req.Args) == 0 {
			return ctlMessage("ReplayGain: " + string(a.Status().ReplayGain)), nil
		}
		if err := needArgs(req, 1, "off|track|album|auto"); err != nil {
			return nil, err
		}
		if err := a.SetReplayGain(req.Args[0]); err != nil {
			return nil, err
		}
		return ctlMessage("ReplayGain: " + string(a.Status().ReplayGain)), nil
	case "scan":
		return nil, a.Rescan()
	case "demo":
		if err := a.GenerateDemo(); err != nil {
			return nil, err
		}
		return ctlMessage("Demo tracks written to " + filepath.Join(a.DataDir(), "demo") + " and added to the library"), nil
	case "search":
		if len(req.Args) == 0 {
			return nil, errors.New("usage: search WORDS")
		}
		return ctlTracksOf(a.SearchLibrary(strings.Join(req.Args, " "), 100))
	case "cache":
		return ctlCache(a, req)
	case "upload-limit":
		return ctlUploadLimit(a, req)
	case "open":
		return execOpen(a, req) // open.go
	case "carry":
		return ctlCarry(a, req)
	case "public-addr":
		return ctlPublicAddr(a, req)
	case "portmap":
		return ctlPortMap(a, req)
	case "raise":
		return raiseWindow() // instance.go
	case "window":
		return viewWindow() // instance.go
	case "stats":
		return runtimeStats(), nil // ctlstats.go
	case "web":
		return ctlWeb(s.web.Load(), req) // webplayer.go
	}
	return nil, fmt.Errorf("unknown command %q (see furudesk ctl --help)", req.Cmd)
}

// transferConfirmWait bounds how long transfer waits for the target's
// first snapshot, so its confirmation says what the target does.
const transferConfirmWait = 1500 * time.Millisecond

// transferPoll is how often transfer looks for the target's confirmation.
const transferPoll = 20 * time.Millisecond

// transferAndConfirm moves playback to d and waits (at most wait) for d to
// report as the owner: the confirmation says whether it plays, or that it
// paused and why (no files for the queue).
func transferAndConfirm(a *app.App, d app.DeviceStatus, wait time.Duration) (ctlMessage, error) {
	ch, cancel := a.Subscribe()
	defer cancel()
	before := a.Status().OwnerHeard
	if err := a.Transfer(d.DeviceID); err != nil {
		return "", err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	// A snapshot that only confirms what is shown wakes no subscriber
	// (app.Status.OwnerHeard): look at the newest status now and then too.
	poll := time.NewTicker(transferPoll)
	defer poll.Stop()
	for {
		select {
		case <-ch:
		case <-poll.C:
		case <-t.C:
			return ctlMessage("Handed over to " + d.Name + "; it has not confirmed yet"), nil
		}
		st := a.Status()
		if st.Owner != d.DeviceID || (!d.Self && st.OwnerHeard == before) {
			continue
		}
		switch {
		case st.Playing:
			return ctlMessage("Playing on " + d.Name), nil
		case st.OwnerNotice != "":
			return ctlMessage(d.Name + " took over but paused: " + st.OwnerNotice), nil
		}
		return ctlMessage("Paused on " + d.Name), nil
	}
}

// maxSeekMS bounds a seek position before it becomes a time.Duration: no
// track is 1000 hours long.
const maxSeekMS = 1000 * 60 * 60 * 1000

// onOff parses the one on|off argument of req.
func onOff(req ctlRequest) (bool, error) {
	switch req.Args[0] {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%s takes on or off, not %q", req.Cmd, req.Args[0])
}

// findDevice finds a device of the group by id, or by name when no id
// matches (names need not be unique: an ambiguous name is refused).
func findDevice(devs []app.DeviceStatus, arg string) (app.DeviceStatus, error) {
	var byName []app.DeviceStatus
	for _, d := range devs {
		if string(d.DeviceID) == arg {
			return d, nil
		}
		if strings.EqualFold(d.Name, arg) {
			byName = append(byName, d)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return app.DeviceStatus{}, fmt.Errorf("%s is not a device of this group (see `devices`)", arg)
	}
	return app.DeviceStatus{}, fmt.Errorf("%d devices are called %s: give the device id (see `devices`)", len(byName), arg)
}

// ctlTrack is a catalog track as ctl prints it: durations in
// milliseconds, like `queue` and `status`.
type ctlTrack struct {
	ContentID   string    `json:"content_id"`
	Path        string    `json:"path"`
	Title       string    `json:"title"`
	Artists     []string  `json:"artists"`
	Album       string    `json:"album"`
	AlbumArtist string    `json:"album_artist"`
	TrackNo     int       `json:"track_no"`
	DiscNo      int       `json:"disc_no"`
	Year        int       `json:"year"`
	Genre       string    `json:"genre"`
	DurationMS  int64     `json:"duration_ms"`
	Format      string    `json:"format"`
	Size        int64     `json:"size"`
	ModTime     time.Time `json:"mod_time"`
	Cover       string    `json:"cover,omitempty"`
	// Where the track is: a file of this device (local), the devices
	// whose libraries have it (holders, this one included when local), a
	// copy fetched before (cached), and whether it plays now.
	Local    bool              `json:"local"`
	Holders  []engine.DeviceID `json:"holders"`
	Cached   bool              `json:"cached,omitempty"`
	Playable bool              `json:"playable"`
	Where    string            `json:"where"`
}

func ctlTracksOf(ts []app.LibraryTrack, err error) ([]ctlTrack, error) {
	if err != nil {
		return nil, err
	}
	out := make([]ctlTrack, 0, len(ts))
	for _, t := range ts {
		out = append(out, ctlTrackOf(t))
	}
	return out, nil
}

// ctlTrackOf is t as ctl prints it: the modification time only of a
// local file, holders never null.
func ctlTrackOf(t app.LibraryTrack) ctlTrack {
	c := ctlTrack{ContentID: t.ContentID, Path: t.Path, Title: t.Title, Artists: t.Artists,
		Album: t.Album, AlbumArtist: t.AlbumArtist, TrackNo: t.TrackNo, DiscNo: t.DiscNo, Year: t.Year,
		Genre: t.Genre, DurationMS: t.Duration.Milliseconds(), Format: t.Format, Size: t.Size,
		Cover: t.Cover, Local: t.Local, Holders: t.Holders, Cached: t.Cached, Playable: t.Playable, Where: t.Where}
	if t.Local {
		c.ModTime = t.ModTime
	}
	if c.Holders == nil {
		c.Holders = []engine.DeviceID{}
	}
	return c
}

// resolveAll turns content ids and files into queue entries, each file
// with its own metadata.
func resolveAll(a *app.App, args []string) ([]app.Entry, error) {
	if len(args) > app.MaxQueue {
		return nil, fmt.Errorf("at most %d tracks at once", app.MaxQueue)
	}
	es := make([]app.Entry, 0, len(args))
	for _, x := range args {
		e, err := a.ResolveEntry(x)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

// queueIndexes reads queue indexes, counting from 0 as `queue` lists them.
func queueIndexes(cmd string, args []string) ([]int, error) {
	out := make([]int, 0, len(args))
	for _, s := range args {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 {
			return nil, fmt.Errorf("%s takes queue indexes, counting from 0 like the index of `queue`, not %q", cmd, s)
		}
		out = append(out, i)
	}
	return out, nil
}

// moveInQueue moves the queue's entry at index from to where the entry at
// index to plays (with shuffle on, the play order is what changes). The
// entry's content id goes along, so a queue changed in between is not
// edited by mistake.
func moveInQueue(a *app.App, from, to int) error {
	st := a.Status()
	if from >= len(st.Queue) || to >= len(st.Queue) {
		return a.MoveInQueue([]int{max(from, to)}, nil, 0) // the app names the range
	}
	place := to
	if st.Shuffle {
		place = slices.Index(st.Order, to)
	}
	return a.MoveInQueue([]int{from}, []string{st.Queue[from].ContentID}, place)
}

const ctlUsage = `Usage: furudesk ctl --data-dir DIR <command> [args]

Commands:
  status                      this device and the group, as JSON
  play [ID|PATH...]           play these tracks (content ids or files), or resume
  pause | resume | toggle | next | prev | clear
  seek MS | volume 0..100 | repeat off|all|one | shuffle on|off
  jump INDEX                  play the queue's track at INDEX (from 0, as in queue)
  queue | enqueue ID|PATH...
  move FROM TO                move the queue's track at FROM to where TO plays
  remove INDEX...             remove these tracks from the queue
  devices | transfer DEVICE_ID|NAME
  invite | pair CODE | pairing | accept REQUEST_ID [--join-theirs] | deny REQUEST_ID
                              (pairing lists each request's key fingerprint: accept only
                              if the other device shows the same one as its own)
  revoke DEVICE_ID | leave | name NAME | passive on|off
  config get | config set JSON
  replaygain [off|track|album|auto]   this device's volume leveling (no argument: show it)
  scan | demo | search WORDS...
  tracks [--offset N] [--limit N] [--fields a,b,...]   the catalog, streamed as a JSON array
                              (the union of the group's libraries, as search: each track
                              says whether it is local, which devices hold it and whether
                              it plays now)
  cache [limit MB | clear]    tracks fetched from other devices: usage, size limit, empty it
  upload-limit [KB/s | 0]     what this device sends to the others per second (0: no limit)
  carry [on | off]            carry other devices' traffic (connect members that cannot reach each other)
  public-addr [ADDR... | off] the host:port devices outside this network dial (a port forwarded on the router)
  portmap [on | off]          map this device's port on the router (UPnP-IGD / NAT-PMP); alone: what the router answered
  playlists                   the playlists, Liked and the smart lists, as JSON
  playlist show NAME|ID | create NAME | rename ID NAME | delete ID
  playlist add ID TRACK... | remove ID INDEX | move ID FROM TO
  playlist play ID [--append] play it instead of the queue, or add it to the queue
  playlist import FILE | export ID FILE   M3U/M3U8 files
  like TRACK | unlike TRACK | history
  open [--enqueue] FILE|FOLDER|file://URI...
                              play these files and folders now (folders in track order),
                              or append them; files outside the music folders play from
                              where they are, not added (furudesk FILE... does this)
  raise                       show the window (a second launch does this)
  window                      the window's page, controls and where they are, pop-ups
                              and focus, as JSON (for scripts and tests that drive it)
  stats                       goroutines and memory of the running furudesk, as JSON
  web                         the web player's address and pairing state (--web ADDR turns it on)
  web pair                    a one-use pairing code for a browser, valid 10 minutes
  web info | web browsers | web revoke BROWSER_ID   as JSON; remove a paired browser
`

// runCtl is the client: it sends one command to the instance of the data
// dir and prints the JSON answer. Errors go to stderr with exit code 1.
func runCtl(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("furudesk ctl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ctlUsage, "\nFlags:\n"); fs.PrintDefaults() }
	dataDir := fs.String("data-dir", "", "data dir of the running instance (default: the platform's per-user data dir)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	dir := *dataDir
	if dir == "" {
		d, err := defaultDataDir()
		if err != nil {
			fmt.Fprintln(stderr, "furudesk ctl:", err)
			return 1
		}
		dir = d
	}
	req := absPlaylistArgs(ctlRequest{Cmd: fs.Arg(0), Args: fs.Args()[1:]})
	if req.Cmd == "help" {
		fs.Usage()
		return 0
	}
	res, stream, err := ctlSend(filepath.Join(dir, ctlSocketName), req)
	if err != nil {
		fmt.Fprintln(stderr, "furudesk ctl:", err)
		return 1
	}
	if stream != nil {
		defer stream.Close()
		if err := printStream(bufio.NewReader(stream), stdout); err != nil {
			fmt.Fprintln(stderr, "furudesk ctl:", err)
			return 1
		}
		return 0
	}
	if res.Message != "" {
		fmt.Fprintln(stdout, res.Message)
	}
	if len(res.Result) > 0 {
		res := res.Result
		var out strings.Builder
		var v any
		if json.Unmarshal(res, &v) == nil {
			b, _ := json.MarshalIndent(v, "", "  ")
			out.Write(b)
		} else {
			out.Write(res)
		}
		fmt.Fprintln(stdout, out.String())
	}
	return 0
}

func ctlCall(path string, req ctlRequest) (ctlResponse, error) {
	resp, stream, err := ctlSend(path, req)
	if stream != nil {
		_ = stream.Close()
		return ctlResponse{}, errors.New("furudesk answered with a stream")
	}
	return resp, err
}

// ctlSend sends req and reads the answer. For a streamed answer it returns
// the rest of the connection (the caller reads and closes it), with no
// deadline: the stream's own end says when it is complete.
func ctlSend(path string, req ctlRequest) (ctlResponse, io.ReadCloser, error) {
	return ctlSendWithin(path, req, ctlTimeout+5*time.Second)
}

// ctlCallWithin is ctlCall with the answer awaited for at most wait.
func ctlCallWithin(path string, req ctlRequest, wait time.Duration) (ctlResponse, error) {
	resp, stream, err := ctlSendWithin(path, req, wait)
	if stream != nil {
		_ = stream.Close()
		return ctlResponse{}, errors.New("furudesk answered with a stream")
	}
	return resp, err
}

// ctlSendWithin is ctlSend waiting at most wait for the answer.
func ctlSendWithin(path string, req ctlRequest, wait time.Duration) (ctlResponse, io.ReadCloser, error) {
	c, err := ctlconn.Dial(path, min(wait, 5*time.Second))
	if err != nil {
		return ctlResponse{}, nil, fmt.Errorf("no furudesk is running for this data dir (%v)", err)
	}
	keep := false
	defer func() {
		if !keep {
			c.Close()
		}
	}()
	_ = c.SetDeadline(time.Now().Add(wait))
	b, err := json.Marshal(req)
	if err != nil {
		return ctlResponse{}, nil, err
	}
	if len(req.Args) > maxCtlArgs {
		return ctlResponse{}, nil, fmt.Errorf("%s takes at most %d arguments at once, not %d", req.Cmd, maxCtlArgs, len(req.Args))
	}
	if len(b)+1 > maxCtlRequest {
		// The server reads no more and closes: the caller would see a
		// broken pipe.
		return ctlResponse{}, nil, fmt.Errorf("%s with %d arguments is a request of %d KB, more than the %d KB furudesk reads: give fewer at once",
			req.Cmd, len(req.Args), (len(b)+1)>>10, maxCtlRequest>>10)
	}
	if _, err := c.Write(append(b, '\n')); err != nil {
		return ctlResponse{}, nil, err
	}
	r := bufio.NewReader(io.LimitReader(c, 64<<20))
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return ctlResponse{}, nil, fmt.Errorf("no answer from furudesk: %v", err)
	}
	var resp ctlResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return ctlResponse{}, nil, fmt.Errorf("malformed answer from furudesk: %v", err)
	}
	if !resp.OK {
		return ctlResponse{}, nil, errors.New(resp.Error)
	}
	if resp.Stream {
		keep = true
		_ = c.SetDeadline(time.Time{})
		return resp, streamConn{Reader: io.MultiReader(r, c), c: c}, nil
	}
	return resp, nil, nil
}

// streamConn reads the rest of a streamed answer.
type streamConn struct {
	io.Reader
	c net.Conn
}

func (s streamConn) Close() error { return s.c.Close() }
