package weft

import (
	"fmt"

	"github.com/weft-ai/weft/go/internal/capi"
)

var codeNames = map[Code]string{
	OK: "OK", InvalidArgument: "InvalidArgument", ShapeError: "Shape", DTypeError: "DType",
	DeviceError: "Device", OutOfMemory: "OutOfMemory", NotImplemented: "NotImplemented",
	Internal: "Internal", InvalidHandle: "InvalidHandle", NotFound: "NotFound", IOError: "IO",
}

func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error makes a Code usable as an errors.Is target.
func (c Code) Error() string { return "weft: " + c.String() }

// Error is a failed weft call: the status code and the library's message.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// Is reports whether target is e's Code (errors.Is(err, weft.ShapeError)).
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// wrap converts the raw layer's status into *Error (nil stays nil).
func wrap(err error) error {
	if err == nil {
		return nil
	}
	if s, ok := err.(*capi.Status); ok {
		return &Error{Code: Code(s.Code), Message: s.Message}
	}
	return err
}

func errorf(code Code, format string, args ...interface{}) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
