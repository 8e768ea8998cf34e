package weft

// Monitor callbacks (MXNet's MXExecutorSetMonitorCallbackEX): the library
// calls the exported weftGoMonitorDispatch with an id from this file's
// table as the user pointer, so C keeps no Go pointer. This file's preamble
// may only declare (it has an export).

// #cgo pkg-config: weft
// #include <stdlib.h>
// #include <weft/c_api.h>
// extern char* weftGoMonitorDispatch(char* name, WeftNDArray* array, void* user);
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// MonitorFunc is a monitor callback: called once per node output (with
// monitorAll also once per input, before the node) on the goroutine running
// Forward, Backward, Predict or Invoke. value is a copy of the entry taken
// before anything overwrote it, borrowed for the call (read it, e.g. with
// MonitorStat or Floats; it reports closed once the callback returns). A
// returned error or a panic fails the monitored call with InvalidArgument
// naming the entry and the message. The callback must not use the object it
// monitors.
type MonitorFunc func(name string, value *NDArray) error

// monitorEntry is one installed callback with the C copies of the messages
// it returned to the library (freed with the entry).
type monitorEntry struct {
	fn   MonitorFunc
	mu   sync.Mutex
	errs []*C.char
}

var (
	monitors      sync.Map // uintptr id -> *monitorEntry
	nextMonitorID uintptr
	liveMonitors  int64 // installed (not replaced) callbacks of open objects
)

// LiveMonitors counts the monitor callbacks installed on open objects (0
// once they are removed or their objects closed).
func LiveMonitors() int64 { return atomic.LoadInt64(&liveMonitors) }

// monitorSlot is one object's monitor. A replaced callback stays in the
// table until the object is closed: a call already running on another
// goroutine (a predictor's) may still be using it and its messages.
type monitorSlot struct {
	mu      sync.Mutex
	current uintptr
	retired []uintptr
}

// set installs fn (nil removes) through install(callback address, id).
func (s *monitorSlot) set(fn MonitorFunc, install func(cb, id uintptr) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cb, id uintptr
	if fn != nil {
		id = atomic.AddUintptr(&nextMonitorID, 1)
		monitors.Store(id, &monitorEntry{fn: fn})
		cb = uintptr(unsafe.Pointer(C.weftGoMonitorDispatch))
	}
	if err := install(cb, id); err != nil {
		if id != 0 {
			dropMonitor(id)
		}
		return err
	}
	if s.current != 0 {
		s.retired = append(s.retired, s.current)
		atomic.AddInt64(&liveMonitors, -1)
	}
	if id != 0 {
		atomic.AddInt64(&liveMonitors, 1)
	}
	s.current = id
	return nil
}

// close drops every callback of the slot (its object was freed, so no call
// can be running).
func (s *monitorSlot) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != 0 {
		atomic.AddInt64(&liveMonitors, -1)
		dropMonitor(s.current)
	}
	for _, id := range s.retired {
		dropMonitor(id)
	}
	s.current, s.retired = 0, nil
}

func dropMonitor(id uintptr) {
	if e, ok := monitors.LoadAndDelete(id); ok {
		for _, m := range e.(*monitorEntry).errs {
			C.free(unsafe.Pointer(m))
		}
	}
}

//export weftGoMonitorDispatch
func weftGoMonitorDispatch(name *C.char, array *C.WeftNDArray, user unsafe.Pointer) (msg *C.char) {
	v, ok := monitors.Load(uintptr(user))
	if !ok {
		return nil
	}
	e := v.(*monitorEntry)
	value := &NDArray{handle{h: uintptr(unsafe.Pointer(array)), kind: "monitored value"}}
	fail := func(text string) *C.char {
		m := C.CString(text)
		e.mu.Lock()
		e.errs = append(e.errs, m)
		e.mu.Unlock()
		return m
	}
	// Nothing may unwind into C: a panic, like an error, fails the call.
	defer func() {
		value.take()
		if r := recover(); r != nil {
			msg = fail(panicError(r))
		}
	}()
	if err := e.fn(C.GoString(name), value); err != nil {
		return fail(err.Error())
	}
	return nil
}

// MonitorStat is MXNet's default monitor statistic: norm(x) / sqrt(size).
func (a *NDArray) MonitorStat() (float64, error) {
	return result(&a.handle, func(h uintptr, out []float64) error { return capi.Weft_ndarray_monitor_stat(h, out) })
}

// install sets fn (nil removes) on the object behind h through its C ABI
// setter (weft_executor/predictor/cached_op_set_monitor_callback).
func (s *monitorSlot) install(h *handle, fn MonitorFunc, all bool, setter func(uintptr, uintptr, uintptr, int) error) error {
	return s.set(fn, func(cb, id uintptr) error {
		return h.call(func(v uintptr) error { return setter(v, cb, id, boolInt(all)) })
	})
}
