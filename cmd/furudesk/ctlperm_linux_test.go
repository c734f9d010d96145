package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user the other-user tests run the real `furudesk ctl` as.
const nobody = 65534

// The ctl socket is 0600 even under umask 000, and another user is
// refused: by the permissions first, and, with those loosened, by the
// check of the caller's uid (SO_PEERCRED). The other user is a real
// process running the real `furudesk ctl` as nobody; the command does
// nothing, while the owner's still works.
func TestCtlRefusesOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	if binPath == "" {
		t.Skip("needs the built furudesk (not -short)")
	}
	old := syscall.Umask(0)
	r := newCtlRig(t)
	syscall.Umask(old)
	sock := filepath.Join(r.dir, ctlSocketName)
	if info, err := os.Stat(sock); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("ctl socket under umask 000: %v %v", info.Mode(), err)
	}
	// nobody may run the binary (TestMain's folder is private).
	if err := os.Chmod(filepath.Dir(binPath), 0o711); err != nil {
		t.Fatal(err)
	}
	asNobody := func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(binPath, append([]string{"ctl", "--data-dir", r.dir}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Env = []string{"HOME=/", "LANG=C.UTF-8"}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("run ctl as nobody: %v", err)
		return 0, ""
	}
	volume := r.app.Status().Volume

	code, out := asNobody("volume", "7")
	if code != 1 || !strings.Contains(out, "no furudesk is running for this data dir") {
		t.Fatalf("nobody with the data dir private: exit %d %q", code, out)
	}

	// Loosen everything the permissions protect: the uid check remains.
	for _, d := range []string{r.dir, filepath.Dir(r.dir)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	code, out = asNobody("volume", "7")
	if code != 1 || !strings.Contains(out, errCtlOtherUser.Error()) {
		t.Fatalf("nobody with the socket open to all: exit %d %q", code, out)
	}
	if got := r.app.Status().Volume; got != volume {
		t.Fatalf("another user changed the volume to %d", got)
	}
	if code, _, stderr := r.run("volume", "7"); code != 0 || r.app.Status().Volume != 7 {
		t.Fatalf("the owner: exit %d %s", code, stderr)
	}
}
