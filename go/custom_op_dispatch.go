package weft

// The library's one entry point into Go for custom operators (cgo's rules:
// the library holds cgo.Handle ids, never Go pointers; the views it passes
// are C memory). This file's preamble may only declare (it has an export).

// #cgo pkg-config: weft
// #include <weft/c_api.h>
// extern void weftGoCustomOpDispatch(int kind, int64_t id, WeftCustomOpCall* call);
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync/atomic"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// dispatchAddress is weftGoCustomOpDispatch as a C function pointer.
func dispatchAddress() uintptr { return uintptr(unsafe.Pointer(C.weftGoCustomOpDispatch)) }

//export weftGoCustomOpDispatch
func weftGoCustomOpDispatch(kind C.int, id C.int64_t, call *C.WeftCustomOpCall) {
	c := &customOpCall{call: uintptr(unsafe.Pointer(call))}
	// Nothing may unwind into C: a panic, like an error, becomes the call's error.
	defer func() {
		if r := recover(); r != nil {
			_ = capi.Weft_custom_op_call_fail(c.call, panicError(r))
		}
	}()
	if err := dispatchCustom(int(kind), int64(id), c); err != nil {
		_ = capi.Weft_custom_op_call_fail(c.call, err.Error())
	}
}

func dispatchCustom(kind int, id int64, c *customOpCall) error {
	switch kind {
	case C.WEFT_CUSTOM_CALL_DELETE_PROP, C.WEFT_CUSTOM_CALL_DELETE_OPERATOR, C.WEFT_CUSTOM_CALL_DELETE_TYPE:
		cgo.Handle(id).Delete()
		atomic.AddInt64(&liveCustomObjects, -1)
		return nil
	case C.WEFT_CUSTOM_CALL_CREATE_PROP:
		s, err := c.strings()
		if err != nil {
			return err
		}
		attrs := map[string]string{}
		for i := 1; i+1 < len(s); i += 2 {
			attrs[s[i]] = s[i+1]
		}
		prop, err := cgo.Handle(id).Value().(CustomOpCreator)(attrs)
		if err != nil {
			return err
		}
		if prop == nil {
			return fmt.Errorf("the creator returned a nil prop")
		}
		return c.setInts(newCustomHandle(prop))
	case C.WEFT_CUSTOM_CALL_FORWARD:
		return c.forward(cgo.Handle(id).Value().(CustomOp))
	case C.WEFT_CUSTOM_CALL_BACKWARD:
		return c.backward(cgo.Handle(id).Value().(CustomOp))
	}
	prop := cgo.Handle(id).Value().(CustomOpProp)
	switch kind {
	case C.WEFT_CUSTOM_CALL_LIST_ARGUMENTS:
		return c.addStrings(prop.ListArguments())
	case C.WEFT_CUSTOM_CALL_LIST_OUTPUTS:
		return c.addStrings(prop.ListOutputs())
	case C.WEFT_CUSTOM_CALL_LIST_AUXILIARY_STATES:
		return c.addStrings(prop.ListAuxiliaryStates())
	case C.WEFT_CUSTOM_CALL_INFER_SHAPE:
		return c.inferShape(prop)
	case C.WEFT_CUSTOM_CALL_INFER_TYPE:
		return c.inferType(prop)
	case C.WEFT_CUSTOM_CALL_BACKWARD_DEPENDENCY:
		return c.backwardDependency(prop)
	case C.WEFT_CUSTOM_CALL_CREATE_OPERATOR:
		op, err := c.createOperator(prop)
		if err != nil {
			return err
		}
		if op == nil {
			return fmt.Errorf("CreateOperator returned a nil operator")
		}
		return c.setInts(newCustomHandle(op))
	}
	return fmt.Errorf("unknown custom operator call kind %d", kind)
}
