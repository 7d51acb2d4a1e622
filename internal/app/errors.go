package app

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of a use case's refusal. A use case returns one of the error
// types below (or wraps one); each matches its sentinel with errors.Is and
// its type with errors.As. The callers decide what a kind becomes: the web
// server maps each to one HTTP status in one place (server/errors.go,
// errStatus), the command line prints the message.
var (
	// ErrInput: the input is malformed or out of range (*InputError).
	ErrInput = errors.New("bad input")
	// ErrNotFound: the input names something that does not exist
	// (*NotFoundError).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the input is valid but the state of what it names
	// forbids the use case now: a model not ready, a corpus a model uses, a
	// finished job (*ConflictError).
	ErrConflict = errors.New("conflict")
	// ErrTooLarge: the input is over a size limit (*TooLargeError).
	ErrTooLarge = errors.New("too large")
	// ErrUnplaceable: the input is well-formed but the model cannot place
	// it: no tag of a set in its vocabulary, a document without the tags a
	// map needs (*UnplaceableError, *MapError).
	ErrUnplaceable = errors.New("the model cannot place the input")
)

// InputError says which field of a use case's input is wrong and why.
// Field is empty when the input as a whole is malformed (a body that does
// not parse) or when Reason names the field in its own words.
type InputError struct {
	Field  string
	Reason string
}

// Error is the field and the reason: "trials must be in 1..10" when the
// reason is a predicate ("must …", "is …", "are …"), "subset: …" otherwise;
// the reason alone when there is no field.
func (e *InputError) Error() string { return e.Named(e.Field) }

// Named is Error with the field called name, as a side calls it (a flag of
// the command line, such as "--trials").
func (e *InputError) Named(name string) string {
	switch {
	case name == "":
		return e.Reason
	case strings.HasPrefix(e.Reason, "must "), strings.HasPrefix(e.Reason, "is "), strings.HasPrefix(e.Reason, "are "):
		return name + " " + e.Reason
	}
	return name + ": " + e.Reason
}

// Is matches ErrInput.
func (e *InputError) Is(target error) bool { return target == ErrInput }

// BadInput is an *InputError of field with a formatted reason.
func BadInput(field, format string, a ...any) error {
	return &InputError{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// NotFoundError says what the input names that does not exist: `corpus
// "c0ffee" not found`, or Reason when set (a term outside a vocabulary,
// with the terms close to it).
type NotFoundError struct {
	What   string // "corpus", "model", "job", "document", "term", ...
	ID     string
	Reason string
}

func (e *NotFoundError) Error() string {
	if e.Reason != "" {
		return e.Reason
	}
	return fmt.Sprintf("%s %q not found", e.What, e.ID)
}

// Is matches ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// NotFound is the *NotFoundError of what id.
func NotFound(what, id string) error { return &NotFoundError{What: what, ID: id} }

// ConflictError says why the state of what the input names forbids the
// use case now, and what to do about it.
type ConflictError struct{ Reason string }

func (e *ConflictError) Error() string { return e.Reason }

// Is matches ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Conflict is a *ConflictError with a formatted reason.
func Conflict(format string, a ...any) error {
	return &ConflictError{Reason: fmt.Sprintf(format, a...)}
}

// TooLargeError says which limit the input passes.
type TooLargeError struct{ Reason string }

func (e *TooLargeError) Error() string { return e.Reason }

// Is matches ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// TooLarge is a *TooLargeError with a formatted reason.
func TooLarge(format string, a ...any) error {
	return &TooLargeError{Reason: fmt.Sprintf(format, a...)}
}

// UnplaceableError is the model's reason for not placing an input (its
// error, such as a *ce.OOVError naming the tags and suggestions, wrapped).
type UnplaceableError struct{ Err error }

func (e *UnplaceableError) Error() string { return e.Err.Error() }

// Unwrap is the model's error.
func (e *UnplaceableError) Unwrap() error { return e.Err }

// Is matches ErrUnplaceable.
func (e *UnplaceableError) Is(target error) bool { return target == ErrUnplaceable }

// Unplaceable wraps the model's reason err as an *UnplaceableError (nil
// stays nil).
func Unplaceable(err error) error {
	if err == nil {
		return nil
	}
	return &UnplaceableError{Err: err}
}

// MapError says why an input cannot be drawn as a map (a document without an
// OOV tag, a vocabulary too small, ...): the input is well-formed but does
// not lend itself to the map.
type MapError struct{ Reason string }

func (e *MapError) Error() string { return e.Reason }

// Is matches ErrUnplaceable.
func (e *MapError) Is(target error) bool { return target == ErrUnplaceable }
