package userdir

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// Secure gives dir a protected DACL with one entry: the current user, full
// control, inherited by the files and folders within (existing ones
// included: SetNamedSecurityInfo propagates it to them).
func Secure(dir string) error {
	dacl, err := userOnlyDACL()
	if err != nil {
		return err
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("userdir: making %s private: %w", dir, err)
	}
	return nil
}

// userOnlyDACL is a DACL granting the current user full control, for the
// object and, by inheritance, its children.
func userOnlyDACL() (*windows.ACL, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("userdir: who am I: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + u.User.Sid.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("userdir: security descriptor: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return nil, fmt.Errorf("userdir: security descriptor: %w", err)
	}
	return dacl, nil
}
