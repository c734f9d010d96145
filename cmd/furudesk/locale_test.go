package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// `furudesk ctl` in the C.UTF-8 locale prints only its own answer: Fyne's
// package init does not complain about the locale.
func TestCtlQuietInTheCLocale(t *testing.T) {
	if binPath == "" {
		t.Skip("needs the binary built by TestMain (not in -short mode)")
	}
	for _, lang := range []string{"C.UTF-8", "C", "POSIX.UTF-8"} {
		cmd := exec.Command(binPath, "ctl", "--data-dir", t.TempDir(), "status")
		cmd.Env = []string{"LANG=" + lang, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), "Fyne") || !strings.Contains(string(out), "no furudesk is running") {
			t.Errorf("LANG=%s: ctl printed %q", lang, out)
		}
	}
}
