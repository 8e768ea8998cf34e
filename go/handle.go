package weft

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
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

// release is Close for every handle type: it frees the handle once with free
// and drops owner's finalizer (owner embeds h).
func (h *handle) release(owner interface{}, free func(uintptr) error) error {
	v := h.take()
	if v == 0 {
		return nil
	}
	runtime.SetFinalizer(owner, nil)
	return wrap(free(v))
}

// call runs f with the live handle (h's owner stays reachable until f
// returns: h points into it) and wraps f's error.
func (h *handle) call(f func(uintptr) error) error {
	v, err := h.get()
	if err != nil {
		return err
	}
	err = f(v)
	runtime.KeepAlive(h)
	return wrap(err)
}

// result runs f with h's live handle and a one-element out slice (the raw
// layer's form of a C out-parameter) and returns the element.
func result[T any](h *handle, f func(uintptr, []T) error) (T, error) {
	var out [1]T
	err := h.call(func(v uintptr) error { return f(v, out[:]) })
	return out[0], err
}

// out1 is result for a call on no handle.
func out1[T any](f func([]T) error) (T, error) {
	var out [1]T
	err := wrap(f(out[:]))
	return out[0], err
}

// owned(mk)(h, err) wraps a new native handle with mk unless the call that
// made it failed: owned(newNDArray)(result(...)).
func owned[T any](mk func(uintptr) *T) func(uintptr, error) (*T, error) {
	return func(h uintptr, err error) (*T, error) {
		if err != nil {
			return nil, err
		}
		return mk(h), nil
	}
}

// newStrings reads and frees a new WeftStringList unless the call that made
// it failed.
func newStrings(list uintptr, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return takeStrings(list)
}

// takeStrings reads and frees a WeftStringList.
func takeStrings(list uintptr) ([]string, error) {
	defer capi.Weft_string_list_free(list)
	n, err := out1(func(out []uint64) error { return capi.Weft_string_list_size(list, out) })
	if err != nil {
		return nil, err
	}
	strs := make([]string, n)
	for i := range strs {
		if strs[i], err = out1(func(out []string) error { return capi.Weft_string_list_get(list, uint64(i), out) }); err != nil {
			return nil, err
		}
	}
	return strs, nil
}

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
