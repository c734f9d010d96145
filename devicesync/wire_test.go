package devicesync

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/engine"
)

func TestReadLineBounds(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 101) + "\nafter"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	if l, err := readLine(r, 100); err != nil || string(l) != "short" {
		t.Fatalf("%q %v", l, err)
	}
	if l, err := readLine(r, 100); err != nil || len(l) != 100 {
		t.Fatalf("len %d %v", len(l), err)
	}
	if _, err := readLine(r, 100); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("101 bytes: %v", err)
	}
	r = bufio.NewReader(strings.NewReader("no newline"))
	if _, err := readLine(r, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated: %v", err)
	}
}

func TestDecodeLine(t *testing.T) {
	id := mkID(1)
	for _, tc := range []struct {
		line string
		want error
	}{
		{`{"type":"hello","group":"g","profile":{"device_id":"` + string(id) + `"},"vector":{},"extra":1}`, nil},
		{`{"type":"snapshot","state":{}}`, nil},
		{`{"type":"ops","ops":[]}`, nil},
		{`{"type":"whatever"}`, errUnknownType},
		{`{"state":{}}`, ErrMalformed},
		{`{"type":"snapshot"}`, ErrMalformed},
		{`{"type":"hello","group":"g","profile":{"device_id":"dev_x"}}`, ErrMalformed},
		{`{"type":"ops","ops":[{"id":"x","origin":"` + string(id) + `","seq":1,"kind":"k","body":{}}]}`, ErrMalformed},
		{`{"type":"pair_request","invite_id":"1","secret":"2"}`, ErrMalformed},
		{`not json`, ErrMalformed},
		{`{"type":7}`, ErrMalformed},
	} {
		_, err := decodeLine([]byte(tc.line))
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("decodeLine(%s) = %v, want %v", tc.line, err, tc.want)
		}
	}
	big := make([]Op, MaxOpsPerBatch+1)
	for i := range big {
		big[i] = mkOp(id, uint64(i+1), 1, KindProfileSet, profile{DeviceID: id})
	}
	line, _ := json.Marshal(opsMsg{Type: typeOps, Ops: big})
	if _, err := decodeLine(line); !errors.Is(err, ErrMalformed) {
		t.Fatalf("%d ops: %v", len(big), err)
	}
}

func TestDeviceIDFromPublicKey(t *testing.T) {
	k := newKey(t)
	id := DeviceIDFromPublicKey(k.Public().(ed25519PublicKey))
	if !ValidDeviceID(id) || len(id) != 4+deviceIDHexLen || id != DeviceIDFromPublicKey(k.Public().(ed25519PublicKey)) {
		t.Fatalf("id %q", id)
	}
	if g := NewGroupID(); !validGroupID(g) || g == NewGroupID() {
		t.Fatalf("group %q", g)
	}
}

// FuzzDecodeLine: no input panics the reader or decoder, nothing over the
// limit is returned, and what decodes re-encodes to the same type.
func FuzzDecodeLine(f *testing.F) {
	id := string(mkID(1))
	for _, s := range []string{
		`{"type":"hello","group":"g","profile":{"device_id":"` + id + `","name":"n","protocol_version":3},"devices":[],"vector":{"` + id + `":3}}`,
		`{"type":"snapshot","coordination":{"version":1,"device_id":"` + id + `"},"state":{"queue":[]}}`,
		`{"type":"ops","ops":[{"id":"` + id + `:1","origin":"` + id + `","seq":1,"hlc_ms":5,"kind":"device_trusted","body":{"target":"` + id + `"}}]}`,
		`{"type":"pair_request","invite_id":"0123456789abcdef","secret":"0123456789abcdef0123456789abcdef","profile":{"device_id":"` + id + `"}}`,
		`{"type":"pair_response","status":"pending"}`,
		`{"type":"unknown"}`, `{"type":null}`, `[]`, "\n\n", `{"type":"ops","ops":null}`,
	} {
		f.Add([]byte(s + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 512
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for {
			line, err := readLine(r, max)
			if err != nil {
				return
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes", len(line))
			}
			m, err := decodeLine(line)
			if err != nil {
				continue
			}
			out, err := encodeLine(m, 1<<20)
			if err != nil {
				t.Fatalf("re-encode %T: %v", m, err)
			}
			m2, err := decodeLine(out)
			if err != nil || m2.msgType() != m.msgType() {
				t.Fatalf("re-decode of %s: %v", out, err)
			}
		}
	})
}

// TestSnapshotLineDecodesAsMarshalled: the snapshot line spliced around a
// state kept compact decodes to the same message as one Marshal writes,
// and is held to the same limit.
func TestSnapshotLineDecodesAsMarshalled(t *testing.T) {
	state, err := compactJSON([]byte(`{"queue": [{"content_id": "b3:aa", "title": "<A & B>"}], "index": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	c := engine.Coordination{Version: engine.EnvelopeVersion, Device: "dev_a"}
	m := snapshotMsg{Type: typeSnapshot, Coordination: &c, State: state, Seq: 7, Sig: []byte{1, 2, 3}}
	spliced, err := encodeSnapshotLine(m, MaxLineBytes)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := encodeLine(m, MaxLineBytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(spliced) != len(plain) || spliced[len(spliced)-1] != '\n' {
		t.Fatalf("spliced line\n%s differs in length from\n%s", spliced, plain)
	}
	var a, b snapshotMsg
	if err := json.Unmarshal(spliced, &a); err != nil {
		t.Fatalf("spliced line %s: %v", spliced, err)
	}
	if err := json.Unmarshal(plain, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("spliced %+v, marshalled %+v", a, b)
	}
	if _, err := encodeSnapshotLine(m, len(plain)-2); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("a line over the limit: %v, want ErrLineTooLong", err)
	}
	if _, err := encodeSnapshotLine(m, len(plain)-1); err != nil {
		t.Fatalf("a line at the limit: %v", err)
	}
}
