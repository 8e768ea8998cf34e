package weft

import (
	"fmt"
	"runtime/cgo"
	"sync/atomic"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// CustomOp is one bound call of a custom operator (MXNet's CustomOp), made
// by CustomOpProp.CreateOperator. Weft calls it on an engine worker thread
// (an OS thread that is not a goroutine's: cgo runs the callback on it),
// never concurrently for one operator; operators of other executors may run
// at the same time.
//
// The arrays are zero-copy views of the call's memory, valid only during the
// callback (read and write them with Float32Data or Data; they are closed
// when the callback returns); honour each request (GradNull skip, GradWrite
// overwrite, GradAdd accumulate). A callback may read shapes, dtypes and
// memory and compute on Go values; it must not wait for the engine (WaitAll,
// CopyTo/CopyFrom, WaitTo*, executors, modules) nor keep its views. A
// returned error or a panic becomes a Weft error naming the op_type and the
// node.
type CustomOp interface {
	Forward(isTrain bool, req []GradReq, inData, outData, aux []*NDArray) error
	// Backward's outGrad, inData and outData hold nil where
	// DeclareBackwardDependency did not ask for the entry.
	Backward(req []GradReq, outGrad, inData, outData, inGrad, aux []*NDArray) error
}

// CustomOpProp describes one Custom node (MXNet's CustomOpProp); the creator
// given to RegisterCustomOp makes one per node from its attributes. Called
// on the goroutine or thread that builds, infers or binds, one call at a
// time per prop; CustomOp's rules apply. Embed CustomOpDefaults for MXNet's
// defaults.
type CustomOpProp interface {
	ListArguments() []string
	ListOutputs() []string
	ListAuxiliaryStates() []string
	// InferShape gives the shapes of the outputs, then of the auxiliary
	// states, from the argument shapes.
	InferShape(inShapes [][]int64) ([][]int64, error)
	// InferType gives the types of the outputs, then of the aux states.
	InferType(inTypes []DType, numOutputs, numAux int) ([]DType, error)
	// DeclareBackwardDependency gives the ids backward reads.
	DeclareBackwardDependency(outGrad, inData, outData []int) []int
	// CreateOperator makes the operator of one bound call on ctx, for the
	// inputs (arguments, then aux states) of inShapes and inTypes.
	CreateOperator(ctx Context, inShapes [][]int64, inTypes []DType) (CustomOp, error)
}

// CustomOpDefaults gives a CustomOpProp MXNet's defaults: argument "data",
// output "output", no aux states, argument 0's type everywhere, and every
// entry as a backward dependency.
type CustomOpDefaults struct{}

func (CustomOpDefaults) ListArguments() []string       { return []string{"data"} }
func (CustomOpDefaults) ListOutputs() []string         { return []string{"output"} }
func (CustomOpDefaults) ListAuxiliaryStates() []string { return nil }

func (CustomOpDefaults) InferType(in []DType, numOutputs, numAux int) ([]DType, error) {
	r := make([]DType, numOutputs+numAux)
	for i := range r {
		r[i] = in[0]
	}
	return r, nil
}

func (CustomOpDefaults) DeclareBackwardDependency(outGrad, inData, outData []int) []int {
	all := append(append(append([]int{}, outGrad...), inData...), outData...)
	return all
}

// CustomOpCreator makes the prop of a node from its attributes (all but
// op_type, as strings).
type CustomOpCreator func(attrs map[string]string) (CustomOpProp, error)

// liveCustomObjects counts the cgo.Handles the library holds.
var liveCustomObjects int64

func newCustomHandle(v interface{}) int64 {
	atomic.AddInt64(&liveCustomObjects, 1)
	return int64(cgo.NewHandle(v))
}

// RegisterCustomOp registers opType process-wide: every node "op": "Custom",
// "op_type": opType of symbols, executors, modules and autograd runs the
// prop create makes. The library holds cgo.Handle ids, never Go pointers. A
// taken name fails.
func RegisterCustomOp(opType string, create CustomOpCreator) error {
	id := newCustomHandle(create)
	// On failure the library releases the id (DELETE_TYPE).
	return wrap(capi.Weft_custom_op_register_host(opType, dispatchAddress(), id))
}

// UnregisterCustomOp removes opType: NotFound when unknown, InvalidArgument
// while a node of the type lives.
func UnregisterCustomOp(opType string) error {
	return wrap(capi.Weft_custom_op_unregister(opType))
}

// CustomOps lists the registered custom operator types (every language),
// sorted.
func CustomOps() ([]string, error) {
	return newStrings(out1(func(out []uintptr) error { return capi.Weft_custom_op_list(out) }))
}

// LiveCustomOpObjects counts the registrations, props and operators the
// library holds (0 once all are released; for leak checks).
func LiveCustomOpObjects() int64 { return atomic.LoadInt64(&liveCustomObjects) }

// LoadLibrary loads an operator library (built against weft/op_plugin.h)
// and registers its operators; a library built for another plugin version
// is refused naming both versions.
func LoadLibrary(path string) error { return wrap(capi.Weft_load_library(path)) }

// LoadedOps lists the operators LoadLibrary registered, sorted.
func LoadedOps() ([]string, error) {
	return newStrings(out1(func(out []uintptr) error { return capi.Weft_loaded_ops(out) }))
}

// Data is a zero-copy view of a host (cpu) array's memory, without waiting
// for pending work (for a custom operator's views, which are ready, or after
// WaitToRead). Valid while the array lives; for a custom operator's views
// only during the callback.
func (a *NDArray) Data() ([]byte, error) {
	var p [1]unsafe.Pointer
	var n [1]uint64
	if err := a.call(func(h uintptr) error { return capi.Weft_ndarray_get_bytes(h, p[:], n[:]) }); err != nil {
		return nil, err
	}
	if n[0] == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(p[0]), n[0]), nil
}

// Float32Data is Data of a float32 array as float32s.
func (a *NDArray) Float32Data() ([]float32, error) {
	t, err := a.DType()
	if err != nil {
		return nil, err
	}
	if t != Float32 {
		return nil, errorf(DTypeError, "Float32Data of a %v array", t)
	}
	b, err := a.Data()
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4), nil
}

// panicError is a recovered panic as an error message.
func panicError(r interface{}) string { return fmt.Sprintf("panic: %v", r) }
