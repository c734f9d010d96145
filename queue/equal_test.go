package queue

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
	"time"
)

// TestEqualSeesEveryField changes each field of a State, and of an
// Entry inside it, one at a time to another random value: Equal must
// tell every change, so a field added later without a comparison fails
// here instead of letting a changed state pass as unchanged.
func TestEqualSeesEveryField(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewSource(seed))
	base := State{
		Queue: []Entry{{ContentID: "b3:aa", Title: "One", Artists: []string{"A"}, Album: "X", DurationMS: 1000},
			{ContentID: "b3:bb", Title: "Two", DurationMS: 2000}},
		Index: 1, PositionMS: 500, Playing: true, Volume: 80, Repeat: "all",
	}
	if !base.Equal(base.Clone()) {
		t.Fatal("a state differs from its clone")
	}
	check := func(what string, st State) {
		t.Helper()
		a, _ := json.Marshal(base)
		b, _ := json.Marshal(st)
		if string(a) != string(b) && base.Equal(st) {
			t.Fatalf("seed %d: changing %s is not seen by Equal:\n%s\n%s", seed, what, a, b)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(State{}), reflect.TypeOf(Entry{})} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			for range 20 {
				st := base.Clone()
				target := reflect.ValueOf(&st).Elem()
				if typ == reflect.TypeOf(Entry{}) {
					st.Queue = append([]Entry(nil), st.Queue...)
					target = reflect.ValueOf(&st.Queue[0]).Elem()
				}
				v, ok := quick.Value(f.Type, r)
				if !ok {
					t.Fatalf("no random value of %s", f.Type)
				}
				target.Field(i).Set(v)
				check(typ.Name()+"."+f.Name, st)
			}
		}
	}
}
