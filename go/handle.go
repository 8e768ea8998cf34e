package weft

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// handle is an owned native handle: freed once by close (idempotent).
type handle struct {
	h    uintptr // atomically swapped to 0 on close
	kind string
}

// get returns the raw handle or an InvalidHandle error when closed.
func (h *handle) get() (uintptr, error) {
	v := atomic.LoadUintptr(&h.h)
	if v == 0 {
		return 0, errorf(InvalidHandle, "%s is closed", h.kind)
	}
	return v, nil
}

// take clears the handle and returns the old value (0 when already closed).
func (h *handle) take() uintptr { return atomic.SwapUintptr(&h.h, 0) }

func (h *handle) closed() bool { return atomic.LoadUintptr(&h.h) == 0 }

// setFinalizer installs the safety-net finalizer (obj must have Close).
func setFinalizer[T interface{ Close() error }](obj T) {
	runtime.SetFinalizer(obj, func(o T) { _ = o.Close() })
}

// sliceData is the address of s[0] (nil for an empty slice).
func sliceData[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}
