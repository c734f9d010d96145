//go:build linux

package framegov

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A non-blocking pipe stands for the display connection: its read end is
// what a hold waits on, a write to it is the display server sending
// events, a read the toolkit taking them.
type display struct{ r, w int }

func (d display) send(t *testing.T) {
	if _, err := unix.Write(d.w, []byte{1}); err != nil {
		t.Fatal(err)
	}
}

func (d display) take(t *testing.T) {
	var b [64]byte
	if _, err := unix.Read(d.r, b[:]); err != nil {
		t.Fatal(err)
	}
}

func pipeWaiter(t *testing.T) (*pollerWaiter, display) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	w, err := newPollerWaiter(p[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); unix.Close(p[0]); unix.Close(p[1]) })
	return w, display{p[0], p[1]}
}

// long is a hold no test waits out: the tests wait for the real event.
const long = time.Minute

func TestHoldEndsWhenTheDisplaySendsEvents(t *testing.T) {
	fw, display := pipeWaiter(t)
	done := make(chan End, 1)
	go func() { done <- fw.Wait(long, nil) }()
	display.send(t)
	if e := <-done; e != Input {
		t.Fatalf("a hold during which the display sent events ended with %v, want input", e)
	}
	// Events the toolkit has not read yet end the next hold at once.
	if e := fw.Wait(long, nil); e != Input {
		t.Fatalf("a hold with unread events ended with %v, want input", e)
	}
	// Once it read them, what was sent before does not end a hold.
	display.take(t)
	if e := fw.Wait(time.Millisecond, nil); e != Timeout {
		t.Fatalf("a hold after the events were read ended with %v, want timeout", e)
	}
}

func TestHoldEndsWhenTheAppHasWork(t *testing.T) {
	fw, _ := pipeWaiter(t)
	wake := make(chan struct{})
	done := make(chan End, 1)
	go func() { done <- fw.Wait(long, wake) }()
	wake <- struct{}{}
	if e := <-done; e != Work {
		t.Fatalf("a woken hold ended with %v, want work", e)
	}
}

func TestABlockingDisplayFDIsRefused(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := newPollerWaiter(p[0]); err == nil {
		t.Fatal("a waiter on a blocking fd was made (the poller would make the toolkit's fd non-blocking)")
	}
}

func TestNoDisplayNoWaiter(t *testing.T) {
	if _, err := newPollerWaiter(-1); err == nil {
		t.Fatal("a waiter without a display fd was made")
	}
}

func TestStopClosesTheWaitersDuplicateFD(t *testing.T) {
	fw, _ := pipeWaiter(t)
	g := Run(Options{Policy: DefaultPolicy, Waiter: fw, Do: func(f func()) { go f() }})
	g.Stop()
	if err := fw.dup.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after Stop the duplicate of the display fd is still open (closing it again: %v)", err)
	}
}
