package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/furudesk/furudesk/app"
)

// `ctl tracks` streams the library of the group (app.EachLibraryTrack:
// this device's tracks as the database reads them, those only other
// devices have merged in where they sort, each with where it is): the
// answer is a line saying a stream follows, one line per track, and a
// last line with the count or the error, so the first track is on its way
// before the whole catalog is read and neither end holds it whole. The
// client prints the JSON array as the lines come.

// ctlStreamEnd is the last line of a stream.
type ctlStreamEnd struct {
	End   bool   `json:"end"`
	Count int    `json:"count"`
	Error string `json:"error,omitempty"`
}

// trackFields are the fields `ctl tracks --fields` may name, in the order
// ctlTrack prints them.
var trackFields = []struct {
	name string
	get  func(t *ctlTrack) any
}{
	{"content_id", func(t *ctlTrack) any { return t.ContentID }},
	{"path", func(t *ctlTrack) any { return t.Path }},
	{"title", func(t *ctlTrack) any { return t.Title }},
	{"artists", func(t *ctlTrack) any { return t.Artists }},
	{"album", func(t *ctlTrack) any { return t.Album }},
	{"album_artist", func(t *ctlTrack) any { return t.AlbumArtist }},
	{"track_no", func(t *ctlTrack) any { return t.TrackNo }},
	{"disc_no", func(t *ctlTrack) any { return t.DiscNo }},
	{"year", func(t *ctlTrack) any { return t.Year }},
	{"genre", func(t *ctlTrack) any { return t.Genre }},
	{"duration_ms", func(t *ctlTrack) any { return t.DurationMS }},
	{"format", func(t *ctlTrack) any { return t.Format }},
	{"size", func(t *ctlTrack) any { return t.Size }},
	{"mod_time", func(t *ctlTrack) any { return t.ModTime }},
	{"cover", func(t *ctlTrack) any { return t.Cover }},
	{"local", func(t *ctlTrack) any { return t.Local }},
	{"holders", func(t *ctlTrack) any { return t.Holders }},
	{"cached", func(t *ctlTrack) any { return t.Cached }},
	{"playable", func(t *ctlTrack) any { return t.Playable }},
	{"where", func(t *ctlTrack) any { return t.Where }},
}

// tracksQuery is what `ctl tracks [--offset N] [--limit N] [--fields a,b]`
// asks for.
type tracksQuery struct {
	offset, limit int
	fields        []int // indexes of trackFields; nil: every field
}

func parseTracksQuery(args []string) (tracksQuery, error) {
	q := tracksQuery{limit: -1}
	const usage = "usage: tracks [--offset N] [--limit N] [--fields a,b,...]"
	for i := 0; i < len(args); i++ {
		if i+1 >= len(args) {
			return q, errors.New(usage)
		}
		v := args[i+1]
		switch args[i] {
		case "--offset", "--limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return q, fmt.Errorf("%s takes a whole number of tracks, 0 or more, not %q", args[i], v)
			}
			if args[i] == "--offset" {
				q.offset = n
			} else {
				q.limit = n
			}
		case "--fields":
			q.fields = nil
			for _, f := range strings.Split(v, ",") {
				k := fieldIndex(strings.TrimSpace(f))
				if k < 0 {
					names := make([]string, len(trackFields))
					for j, tf := range trackFields {
						names[j] = tf.name
					}
					return q, fmt.Errorf("there is no track field %q; the fields are %s", f, strings.Join(names, ", "))
				}
				q.fields = append(q.fields, k)
			}
		default:
			return q, errors.New(usage)
		}
		i++
	}
	return q, nil
}

func fieldIndex(name string) int {
	for i, f := range trackFields {
		if f.name == name {
			return i
		}
	}
	return -1
}

// encode is the JSON of t with the fields q asks for, in their order.
func (q tracksQuery) encode(t ctlTrack) ([]byte, error) {
	if q.fields == nil {
		return json.Marshal(t)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range q.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(trackFields[k].name)
		v, err := json.Marshal(trackFields[k].get(&t))
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// streamTracks answers `tracks` on c.
func (s *ctlServer) streamTracks(c net.Conn, req ctlRequest) {
	w := bufio.NewWriterSize(c, 64<<10)
	q, err := parseTracksQuery(req.Args)
	if err != nil {
		b, _ := json.Marshal(ctlResponse{Error: err.Error()})
		_, _ = w.Write(append(b, '\n'))
		_ = w.Flush()
		return
	}
	_, _ = w.WriteString(`{"ok":true,"stream":true}` + "\n")
	// The header goes out at once: the client knows the catalog is on
	// its way while the database starts reading.
	if w.Flush() != nil {
		return
	}
	n := 0
	err = s.app.EachLibraryTrack(q.offset, q.limit, func(t app.LibraryTrack) error {
		line, err := q.encode(ctlTrackOf(t))
		if err != nil {
			return err
		}
		line = append(line, '\n')
		if n < 16 || w.Available() < len(line) {
			// The first tracks one by one, then in full buffers; a
			// client that stopped reading fails the write in time.
			_ = c.SetWriteDeadline(time.Now().Add(ctlTimeout))
			if _, err := w.Write(line); err != nil {
				return err
			}
			n++
			if n <= 16 {
				return w.Flush()
			}
			return nil
		}
		_, err = w.Write(line)
		n++
		return err
	})
	end := ctlStreamEnd{End: true, Count: n}
	if err != nil {
		end.Error = err.Error()
	}
	b, _ := json.Marshal(end)
	_, _ = w.Write(append(b, '\n'))
	_ = w.Flush()
}

// printStream prints a stream's lines as one indented JSON array, as
// they arrive; the last line's error is returned.
func printStream(r *bufio.Reader, stdout io.Writer) error {
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	_, _ = out.WriteString("[")
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil && len(line) == 0 {
			_, _ = out.WriteString("\n]\n")
			return fmt.Errorf("the answer stopped after %d tracks: %v", n, err)
		}
		var end ctlStreamEnd
		if json.Unmarshal(line, &end) == nil && end.End {
			if n > 0 {
				_, _ = out.WriteString("\n")
			}
			_, _ = out.WriteString("]\n")
			if end.Error != "" {
				return errors.New(end.Error)
			}
			return nil
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, bytes.TrimSpace(line), "  ", "  "); err != nil {
			return fmt.Errorf("malformed answer from furudesk: %v", err)
		}
		if n > 0 {
			_, _ = out.WriteString(",")
		}
		_, _ = out.WriteString("\n  ")
		_, _ = out.Write(ind.Bytes())
		n++
		if n <= 16 {
			_ = out.Flush() // the first ones at once
		}
	}
}
