package engine

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParseConfig: ParseConfig either returns a valid config or an ErrConfig,
// never panics, and accepts its own output.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"claim_on_startup":false}`, `{"owner_timeout_ms":0}`, `{"extra":1}`,
		`{"discovery_ms":"1"}`, `{} x`, `null`, `[]`, `{"discovery_ms":1e3}`,
		`{"claim_on_startup":true,"automatic_failover":true,"take_paused_on_startup":true,"discovery_ms":3000,"owner_timeout_ms":120000}`,
		`{"owner_timeout_ms":18446744073709551615}`, `{"DISCOVERY_MS":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config fails Validate: %v", err)
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if c2, err := ParseConfig(out); err != nil || c2 != c {
			t.Fatalf("round trip: %+v %v", c2, err)
		}
	})
}

// FuzzEnvelope: decoding arbitrary snapshot and command JSON never panics,
// and a decoded envelope fed to an engine never breaks its invariants.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"state":{}}`,
		`{"coordination":{"version":1,"device_id":"b","claim":{"counter":3,"issuer":"b","owner":"b"},"heartbeat":7,"output":{"available":true,"playing":true}},"state":{}}`,
		`{"coordination":{"version":1,"device_id":"b","claim":{"counter":18446744073709551615,"issuer":"b","owner":"a"}},"state":null}`,
		`{"stamp":{"version":1,"claim":{"counter":3,"issuer":"b","owner":"a"},"sequence":1},"handoff":true,"body":{}}`,
		`{"stamp":{"version":2,"claim":{"counter":1,"issuer":"","owner":"a"},"sequence":0},"body":1}`,
		`{"coordination":null}`, `{"stamp":{}}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &fakeClock{}
		e, _ := New("a", "g", DefaultConfig(), c)
		var s Snapshot[json.RawMessage]
		if json.Unmarshal(data, &s) == nil && s.Coordination != nil {
			before := e.Claim()
			err := e.Announce("b", *s.Coordination)
			if err == nil && e.Claim().Compare(before) < 0 {
				t.Fatal("claim went backwards")
			}
			if err != nil && e.Claim() != before {
				t.Fatal("a rejected announcement changed the claim")
			}
		}
		var cmd Command[json.RawMessage]
		if json.Unmarshal(data, &cmd) == nil && cmd.Stamp != nil {
			v := e.Receive("b", *cmd.Stamp, cmd.Handoff)
			if v == Accepted && (!e.Fence(*cmd.Stamp) || !e.MayRender()) {
				t.Fatalf("accepted %+v but fence/render false", cmd.Stamp)
			}
		}
		checkInvariants(t, e)
	})
}

func checkInvariants(t *testing.T, e *Engine) {
	t.Helper()
	if e.MayRender() != (e.Owner() == e.ID()) {
		t.Fatal("MayRender must equal Owner()==self")
	}
	if st := e.Stats(); st.Senders > MaxSendersPerTerm || st.Peers > MaxTrackedPeers {
		t.Fatalf("bounds: %+v", st)
	}
	if !validClaim(e.Claim()) {
		t.Fatalf("invalid winning claim %+v", e.Claim())
	}
}

// FuzzReceive feeds a byte-coded sequence of inputs (commands, announcements,
// ticks, transfers) to one engine and checks its invariants after each.
func FuzzReceive(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{3, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 2, 200, 200, 2})
	f.Add([]byte{1, 255, 4, 0, 9, 9, 0, 9, 8, 0, 9, 10, 5, 1, 1, 5, 1, 2})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &fakeClock{}
		cfg := DefaultConfig()
		cfg.OwnerTimeoutMS = 1000
		cfg.DiscoveryMS = 100
		e, _ := New("a", "g", cfg, c)
		e.RequestStartup()
		names := []DeviceID{"a", "b", "c", "d", "e"}
		accepted := map[acceptKeyT]uint64{}
		last := e.Claim()
		for len(data) >= 3 {
			op, x, y := data[0], data[1], data[2]
			data = data[3:]
			from := names[int(x)%len(names)]
			claim := Claim{uint64(y % 8), names[int(y/8)%len(names)], names[int(x/8)%len(names)]}
			switch op % 7 {
			case 0, 1:
				st := CommandStamp{Version: EnvelopeVersion - uint32(x%16/15), Claim: claim, Sequence: uint64(y % 16)}
				v := e.Receive(from, st, op%7 == 1)
				if v == Accepted {
					k := acceptKeyT{st.Claim, from}
					if prev, ok := accepted[k]; ok && st.Sequence <= prev {
						t.Fatalf("accepted seq %d after %d", st.Sequence, prev)
					}
					accepted[k] = st.Sequence
					if st.Claim.Owner != "a" || e.Claim() != st.Claim {
						t.Fatalf("accepted %+v with claim %+v", st, e.Claim())
					}
				}
			case 2:
				_ = e.Announce(from, Coordination{Version: EnvelopeVersion, Device: from, Claim: claim, Heartbeat: uint64(y), Output: Output{Available: x&1 == 1, Playing: x&2 == 2}})
			case 3:
				c.advance(ms(int(binary.LittleEndian.Uint16([]byte{x, y}))))
				e.Tick()
			case 4:
				e.Heartbeat(Output{Available: x&1 == 1})
			case 5:
				_, _ = e.Transfer(from)
			case 6:
				if e.HasReady() {
					e.Ready()
					e.Advance()
				}
			}
			if e.Claim().Compare(last) < 0 {
				t.Fatal("claim went backwards")
			}
			last = e.Claim()
			checkInvariants(t, e)
		}
	})
}

type acceptKeyT struct {
	c    Claim
	from DeviceID
}
