// Package weft is the Go binding of libweft (the Weft deep-learning engine).
//
// It wraps the C ABI (c_api/include/weft/c_api.h) through SWIG-generated cgo
// code in internal/capi. Every failing call returns a *Error whose message was
// captured inside the same cgo call (a goroutine may change OS threads between
// two cgo calls, so the thread-local last error is never read separately).
//
// Ownership: every *NDArray and *Symbol owns one native handle; Close releases
// it (idempotent, safe from several goroutines). A finalizer closes forgotten
// objects as a safety net only: call Close (usually with defer).
//
// Threads: all functions may be called from any goroutine. An NDArray is not
// locked by the binding: concurrent writes to the same array are unordered.
// A Symbol must not be composed or have attributes set concurrently with other
// calls on symbols sharing its nodes.
package weft

import (
	"fmt"

	"github.com/weft-ai/weft/go/internal/capi"
)

func init() {
	lib, binding := capi.Weft_abi_version(), capi.Weft_binding_abi_version()
	if lib < binding {
		panic(fmt.Sprintf("weft: ABI version mismatch: the native library %s has ABI version %d but the Go binding needs ABI version %d",
			capi.Weft_binding_library_path(), lib, binding))
	}
}

// Version is the library version string, e.g. "0.1.0".
func Version() string { return capi.Weft_version() }

// ABIVersion is the ABI version of the loaded library.
func ABIVersion() int { return capi.Weft_abi_version() }

// BindingABIVersion is the ABI version this binding was built against.
func BindingABIVersion() int { return capi.Weft_binding_abi_version() }

// LiveHandleCount is the number of live native handles of every type.
func LiveHandleCount() uint64 { return capi.Weft_live_handle_count() }

// OpNames lists the canonical operator names, sorted.
func OpNames() ([]string, error) {
	n, err := out1(capi.Weft_op_count)
	if err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		if names[i], err = out1(func(s []string) error { return capi.Weft_op_name(uint64(i), s) }); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// OpParam describes one operator parameter; Default is "" when required.
type OpParam struct {
	Name, Type, Default, Doc string
}

// OpInfo is an operator's documentation.
type OpInfo struct {
	Name, Doc string
	Params    []OpParam
}

// GetOpInfo documents operator op (name or alias).
func GetOpInfo(op string) (*OpInfo, error) {
	doc := make([]string, 1)
	var np [1]uint64
	if err := capi.Weft_op_info(op, doc, np[:]); err != nil {
		return nil, wrap(err)
	}
	info := &OpInfo{Name: op, Doc: doc[0]}
	for i := uint64(0); i < np[0]; i++ {
		name, typ, def, pdoc := make([]string, 1), make([]string, 1), make([]string, 1), make([]string, 1)
		if err := capi.Weft_op_param(op, i, name, typ, def, pdoc); err != nil {
			return nil, wrap(err)
		}
		info.Params = append(info.Params, OpParam{name[0], typ[0], def[0], pdoc[0]})
	}
	return info, nil
}

// Seed seeds every random generator.
func Seed(seed uint64) error { return wrap(capi.Weft_random_seed(seed)) }

// WaitAll blocks until all pending work is done.
func WaitAll() error { return wrap(capi.Weft_wait_all()) }
