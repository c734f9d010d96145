// Package usererr pairs an error sentinel with the sentence a user reads:
// code tests the sentinel with errors.Is, front ends show the sentence.
// app and web make their errors with it.
package usererr

import (
	"errors"
	"fmt"
)

type userError struct {
	err  error
	text string
}

func (e *userError) Error() string { return e.err.Error() + ": " + e.text }
func (e *userError) Unwrap() error { return e.err }

// New wraps sentinel with a sentence for the user.
func New(sentinel error, format string, args ...any) error {
	return &userError{err: sentinel, text: fmt.Sprintf(format, args...)}
}

// Text is the sentence of the first error in err's chain made by New.
func Text(err error) (string, bool) {
	var ue *userError
	if errors.As(err, &ue) {
		return ue.text, true
	}
	return "", false
}
