package reach

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestObservedCandidatesAreWhatMembersSaw(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	o := NewObserved()
	local := []string{"10.1.0.2", "127.0.0.1"}
	if !o.Report("a", "198.51.100.1:40001", local, now) {
		t.Fatal("a first report does not change the candidates")
	}
	if o.Report("a", "198.51.100.1:40002", local, now) {
		t.Error("the same IP from another source port changed the candidates")
	}
	o.Report("b", "203.0.113.9:5000", local, now)
	o.Report("c", "203.0.113.9:5001", local, now)
	got := o.Candidates(7400, now)
	want := []string{"203.0.113.9:7400", "198.51.100.1:7400"}
	if !slices.Equal(got, want) {
		t.Fatalf("candidates %v, want %v (most members first, with the listening port)", got, want)
	}
	if got := o.Candidates(7400, now.Add(ObservedFor+time.Second)); len(got) != 0 {
		t.Errorf("reports older than ObservedFor still count: %v", got)
	}
	o.Forget("b")
	o.Forget("c")
	if got := o.Candidates(7400, now); !slices.Equal(got, []string{"198.51.100.1:7400"}) {
		t.Errorf("after forgetting b and c: %v", got)
	}
}

func TestObservedRefusesWhatIsNotAnOutsideAddress(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	o := NewObserved()
	local := []string{"10.1.0.2"}
	for _, seen := range []string{"", "nonsense", "10.1.0.2:5000", "127.0.0.1:5000", "[::1]:5000", "0.0.0.0:5000",
		"224.0.0.251:5353", "169.254.1.1:5000", "host.example:5000", "198.51.100.1:0"} {
		if o.Report("a", seen, local, now) {
			t.Errorf("report %q accepted", seen)
		}
	}
	if o.Report("", "198.51.100.1:5000", local, now) {
		t.Error("a report without a member accepted")
	}
	if got := o.Candidates(7400, now); len(got) != 0 {
		t.Errorf("candidates %v from refused reports", got)
	}
}

func TestObservedIsBounded(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	o := NewObserved()
	for i := range MaxObservers + 10 {
		o.Report(fmt.Sprint("m", i), fmt.Sprintf("203.0.113.%d:5000", i+1), nil, now)
	}
	if len(o.reports) != MaxObservers {
		t.Errorf("%d reporters kept, limit %d", len(o.reports), MaxObservers)
	}
	if got := o.Candidates(7400, now); len(got) != MaxObserved {
		t.Errorf("%d candidates, limit %d", len(got), MaxObserved)
	}
	if o.Candidates(0, now) != nil {
		t.Error("candidates without a listening port")
	}
}
