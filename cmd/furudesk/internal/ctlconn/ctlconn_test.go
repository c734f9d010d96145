package ctlconn

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sockPath is a ctl.sock path in a fresh dir. Not t.TempDir: under Wine
// 8 its cleanup fails (os.RemoveAll's NtOpenFile-relative unlink is not
// implemented), failing every test; the dir is removed as far as the
// system allows.
func sockPath(t *testing.T) string {
	dir, err := os.MkdirTemp("", "ctlconn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "ctl.sock")
}

// echo serves ln: each connection gets back the line it sent.
func echo(t *testing.T, ln net.Listener) <-chan error {
	done := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				done <- err
				return
			}
			go func() {
				defer c.Close()
				line, err := bufio.NewReader(c).ReadString('\n')
				if err == nil {
					_, _ = c.Write([]byte("echo " + line))
				}
			}()
		}
	}()
	return done
}

func TestAClientOfThisUserIsAnsweredOverTheEndpoint(t *testing.T) {
	path := sockPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	done := echo(t, ln)
	for i := 0; i < 3; i++ { // one connection after another, as ctl makes them
		c, err := Dial(path, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatalf("SetDeadline: %v", err)
		}
		if _, err := c.Write([]byte("status\n")); err != nil {
			t.Fatal(err)
		}
		got, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || got != "echo status\n" {
			t.Fatalf("answer %q, %v", got, err)
		}
		c.Close()
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the waiting Accept")
	}
	if _, err := Dial(path, time.Second); err == nil {
		t.Fatal("Dial succeeded after Close")
	}
}

func TestAReadDeadlineEndsAWaitForASilentPeer(t *testing.T) {
	path := sockPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	if err := s.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatalf("SetReadDeadline: %v", err)
	}
	_, err = s.Read(make([]byte, 1))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read from a silent peer: %v, want a deadline error", err)
	}
}

func TestDialWithNobodyListeningSaysSo(t *testing.T) {
	_, err := Dial(sockPath(t), time.Second)
	if err == nil {
		t.Fatal("Dial succeeded with nobody listening")
	}
}
