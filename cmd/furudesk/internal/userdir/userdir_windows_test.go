package userdir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// grantees lists the SIDs dir's DACL grants anything to, and whether the
// DACL is protected from inheritance: what a test checks Secure did.
func grantees(path string) (sids []string, protected bool, err error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, false, err
	}
	ctl, _, err := sd.Control()
	if err != nil {
		return nil, false, err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return nil, false, err
	}
	if dacl == nil {
		return nil, ctl&windows.SE_DACL_PROTECTED != 0, fmt.Errorf("userdir: %s has a null DACL: everyone may open it", path)
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil, false, err
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		sids = append(sids, sid.String())
	}
	return sids, ctl&windows.SE_DACL_PROTECTED != 0, nil
}

func me(t *testing.T) string {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	return u.User.Sid.String()
}

func TestSecureLeavesTheUserAloneOnTheDirAndWhatItHolds(t *testing.T) {
	// Not t.TempDir: its cleanup fails under Wine 8 (see ctlconn's tests).
	tmp, err := os.MkdirTemp("", "userdir")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	dir := filepath.Join(tmp, "furudesk")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "sub", "before.db")
	if err := os.WriteFile(old, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Open to everyone first, as a dir found loosened would be.
	sd, err := windows.SecurityDescriptorFromString("D:(A;OICI;FA;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	open, _, _ := sd.DACL()
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, open, nil); err != nil {
		t.Fatal(err)
	}
	if sids, _, err := grantees(dir); err != nil || !slices.Contains(sids, "S-1-1-0") {
		t.Fatalf("the loosened dir grants %v (%v), want Everyone among them", sids, err)
	}

	if err := Secure(dir); err != nil {
		t.Fatal(err)
	}
	if underWine() {
		// Wine 8 keeps no DACL on files: it maps one to unix mode bits
		// and makes one up from them when asked, always with SYSTEM and
		// Everyone in it.
		t.Skip("Wine 8 synthesizes file DACLs from unix modes; Secure ran without error, the DACL is checked on Windows")
	}
	after := filepath.Join(dir, "after.db")
	if err := os.WriteFile(after, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, old, after} {
		sids, _, err := grantees(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !slices.Equal(sids, []string{me(t)}) {
			t.Errorf("%s grants %v, want this user (%s) alone", p, sids, me(t))
		}
	}
	if _, protected, _ := grantees(dir); !protected {
		t.Errorf("%s inherits its parent's entries", dir)
	}
}

// underWine says whether this runs under Wine (its ntdll exports
// wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
