package ctlconn

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

func TestASecondListenerOnTheSameDataDirIsRefused(t *testing.T) {
	if underWine() {
		t.Skip("Wine 8 ignores FILE_FLAG_FIRST_PIPE_INSTANCE; Windows honours it")
	}
	path := sockPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ln2, err := Listen(path); err == nil {
		ln2.Close()
		t.Fatal("a second listener took the pipe of a live one")
	}
}

func TestThePipeNameIsPerDataDirAndIgnoresCase(t *testing.T) {
	a, _ := PipeName(`C:\Users\a\AppData\Local\furudesk\ctl.sock`)
	b, _ := PipeName(`c:\users\A\appdata\local\FURUDESK\ctl.sock`)
	c, _ := PipeName(`C:\Users\a\other\ctl.sock`)
	if a != b || a == c || !strings.HasPrefix(a, `\\.\pipe\furudesk-ctl-`) {
		t.Fatalf("names %q %q %q", a, b, c)
	}
}

func TestBothEndsSeeThisUserAtTheOtherEnd(t *testing.T) {
	path := sockPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	errs := make(chan error, 1)
	go func() {
		s, err := ln.Accept()
		if err != nil {
			errs <- err
			return
		}
		defer s.Close()
		errs <- CheckPeer(s)
	}()
	c, err := Dial(path, 5*time.Second) // Dial checks the server
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := <-errs; err != nil {
		t.Fatalf("server's check of this user: %v", err)
	}
	if err := processIsUser(uint32(os.Getpid())); err != nil {
		t.Fatal(err)
	}
}

func TestDialWithNobodyListeningIsNotExist(t *testing.T) {
	_, err := Dial(sockPath(t), time.Second)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want os.ErrNotExist", err)
	}
}

// underWine says whether this runs under Wine (its ntdll exports
// wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
