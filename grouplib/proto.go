package grouplib

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/furudesk/furudesk/engine"
)

// The fetch protocol runs on a fetch connection (devicesync.FetchALPN),
// which only members of the group can open. The client sends one request
// line (JSON, at most maxRequestBytes); the server answers with one
// response line (JSON) and, when its status is "ok", exactly Len bytes of
// body; then the connection carries the next request. Requests:
//
//	get      bytes [Off, Off+Len) of a track's file (a range: seeking
//	         anywhere fetches from there); the answer says the file's Size
//	cover    the track's cover art, small (at most maxCoverBytes)
//	catalog  the catalog of device Origin from version Since, if the server
//	         holds it at version Want: gzip'd JSON lines (catalogHeader,
//	         then the items, then the removals)
//
// Statuses other than "ok" carry no body: "not_here" (the server has no
// file, cover or catalog for it), "busy" (its upload slots are taken: try
// another holder or later), "stale" (it holds the catalog at another
// version), "bad_request".

// Request operations.
const (
	opGet     = "get"
	opCover   = "cover"
	opCatalog = "catalog"
)

// Response statuses.
const (
	statusOK      = "ok"
	statusNotHere = "not_here"
	statusBusy    = "busy"
	statusStale   = "stale"
	statusBad     = "bad_request"
)

// Protocol limits.
const (
	maxRequestBytes  = 4 << 10
	maxResponseBytes = 4 << 10
	// maxGetBytes bounds one get: a download asks in chunks.
	maxGetBytes = 64 << 20
	// maxCoverBytes bounds a cover art answer.
	maxCoverBytes = 1 << 20
	// maxCatalogBytes bounds a catalog answer, compressed and not.
	maxCatalogBytes = 512 << 20
	// maxCatalogLine bounds one line of a catalog answer.
	maxCatalogLine = 64 << 10
)

type request struct {
	Op     string          `json:"op"`
	ID     string          `json:"id,omitempty"`
	Off    int64           `json:"off,omitempty"`
	Len    int64           `json:"len,omitempty"`
	Origin engine.DeviceID `json:"origin,omitempty"`
	Since  uint64          `json:"since,omitempty"`
	Want   uint64          `json:"want,omitempty"`
}

func (r request) validate() error {
	switch r.Op {
	case opGet:
		if !ValidContentID(r.ID) || r.Off < 0 || r.Len <= 0 || r.Len > maxGetBytes {
			return fmt.Errorf("get %q [%d, +%d)", trim(r.ID), r.Off, r.Len)
		}
	case opCover:
		if !ValidContentID(r.ID) {
			return fmt.Errorf("cover %q", trim(r.ID))
		}
	case opCatalog:
		if r.Origin == "" || len(r.Origin) > 64 || r.Want == 0 {
			return fmt.Errorf("catalog of %q at %d", trim(string(r.Origin)), r.Want)
		}
	default:
		return fmt.Errorf("unknown request %q", trim(r.Op))
	}
	return nil
}

type response struct {
	Status string `json:"status"`
	Size   int64  `json:"size,omitempty"` // get: the whole file
	Off    int64  `json:"off,omitempty"`
	Len    int64  `json:"len,omitempty"` // bytes of body that follow
	Reason string `json:"reason,omitempty"`
}

// errProtocol is a peer breaking the protocol: a malformed line, a body
// longer or shorter than announced, a range other than asked for.
var errProtocol = errors.New("grouplib: peer broke the fetch protocol")

// readLine reads one '\n'-terminated line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > max+1 {
			return nil, fmt.Errorf("%w: line over %d bytes", errProtocol, max)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// catalogHeader is the first line of a catalog answer.
type catalogHeader struct {
	Origin  engine.DeviceID `json:"origin"`
	Since   uint64          `json:"since"`
	Version uint64          `json:"version"`
	Floor   uint64          `json:"floor"`
	Full    bool            `json:"full,omitempty"`
	Items   int             `json:"items"`
	Gone    int             `json:"gone"`
}

type catalogItem struct {
	Ver   uint64 `json:"v"`
	Entry Entry  `json:"e"`
}

// encodeDelta writes d as a catalog answer's body.
func encodeDelta(d Delta) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 64<<10)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(catalogHeader{Origin: d.Origin, Since: d.Since, Version: d.Version, Floor: d.Floor,
		Full: d.Full, Items: len(d.Items), Gone: len(d.Gone)}); err != nil {
		return nil, err
	}
	for _, it := range d.Items {
		if err := enc.Encode(catalogItem{Ver: it.Ver, Entry: it.Entry}); err != nil {
			return nil, err
		}
	}
	for _, g := range d.Gone {
		if err := enc.Encode(g); err != nil {
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if buf.Len() > maxCatalogBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrCatalogTooLarge, buf.Len())
	}
	return buf.Bytes(), nil
}

// decodeDelta reads a catalog answer's body of origin, checking its shape
// and limits (the entries themselves are checked by Catalog.Apply).
func decodeDelta(body io.Reader, origin engine.DeviceID) (Delta, error) {
	zr, err := gzip.NewReader(body)
	if err != nil {
		return Delta{}, fmt.Errorf("%w: catalog: %v", errProtocol, err)
	}
	br := bufio.NewReaderSize(io.LimitReader(zr, maxCatalogBytes), 64<<10)
	line, err := readLine(br, maxCatalogLine)
	if err != nil {
		return Delta{}, fmt.Errorf("%w: catalog header: %v", errProtocol, err)
	}
	var h catalogHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Origin != origin || h.Items < 0 || h.Gone < 0 ||
		h.Items > MaxCatalogItems || h.Gone > MaxCatalogItems {
		return Delta{}, fmt.Errorf("%w: catalog header %q", errProtocol, trim(string(line)))
	}
	d := Delta{Origin: h.Origin, Since: h.Since, Version: h.Version, Floor: h.Floor, Full: h.Full,
		Items: make([]*Item, 0, h.Items), Gone: make([]Tombstone, 0, h.Gone)}
	for range h.Items {
		line, err := readLine(br, maxCatalogLine)
		if err != nil {
			return Delta{}, fmt.Errorf("%w: catalog item: %v", errProtocol, err)
		}
		var ci catalogItem
		if err := json.Unmarshal(line, &ci); err != nil {
			return Delta{}, fmt.Errorf("%w: catalog item: %v", errProtocol, err)
		}
		if err := ci.Entry.validate(); err != nil {
			return Delta{}, err
		}
		d.Items = append(d.Items, newItem(ci.Entry, ci.Ver))
	}
	for range h.Gone {
		line, err := readLine(br, maxCatalogLine)
		if err != nil {
			return Delta{}, fmt.Errorf("%w: catalog removal: %v", errProtocol, err)
		}
		var g Tombstone
		if err := json.Unmarshal(line, &g); err != nil {
			return Delta{}, fmt.Errorf("%w: catalog removal: %v", errProtocol, err)
		}
		d.Gone = append(d.Gone, g)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		return Delta{}, fmt.Errorf("%w: catalog answer longer than announced", errProtocol)
	}
	return d, nil
}
