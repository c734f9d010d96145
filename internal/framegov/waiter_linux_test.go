//go:build linux

package framegov

import (
	"os"
	"testing"
	"time"
)

// A pipe stands for the display connection: its read end is what a hold
// waits on, a write to it is the display server sending events.
func pipeWaiter(t *testing.T) (*fdWaiter, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	fw, err := newFDWaiter(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return fw, w
}

// long is a hold no test waits out: the tests wait for the real event.
const long = time.Minute

func TestHoldEndsWhenTheDisplaySendsEvents(t *testing.T) {
	fw, display := pipeWaiter(t)
	done := make(chan End, 1)
	go func() { done <- fw.Wait(long) }()
	if _, err := display.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if e := <-done; e != Input {
		t.Fatalf("a hold with display events pending ended with %v, want input", e)
	}
}

func TestHoldEndsWhenTheAppHasWork(t *testing.T) {
	fw, _ := pipeWaiter(t)
	done := make(chan End, 1)
	go func() { done <- fw.Wait(long) }()
	fw.Wake()
	if e := <-done; e != Work {
		t.Fatalf("a woken hold ended with %v, want work", e)
	}
}

func TestWorkQueuedBetweenHoldsEndsTheNextOneAtOnce(t *testing.T) {
	fw, _ := pipeWaiter(t)
	fw.Wake()
	fw.Wake() // two pieces of work, one wake-up is enough
	if e := fw.Wait(long); e != Work {
		t.Fatalf("a hold after a wake ended with %v, want work at once", e)
	}
	// The wake was used up: the next hold lasts its time.
	if e := fw.Wait(time.Millisecond); e != Timeout {
		t.Fatalf("the hold after that ended with %v, want timeout", e)
	}
}

func TestNoDisplayNoWaiter(t *testing.T) {
	if _, err := newFDWaiter(-1); err == nil {
		t.Fatal("a waiter without a display fd was made")
	}
}
