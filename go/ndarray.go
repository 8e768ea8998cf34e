package weft

import (
	"runtime"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// NDArray is an n-dimensional array on a device. Close it when done; views
// (Reshape, Slice) share storage and are closed separately.
//
// Transfers: CopyFrom*/CopyTo* pass the slice itself to the library for the
// duration of the call (zero-copy); ToFloat32/ToFloat64 allocate a new slice.
type NDArray struct {
	handle
}

func newNDArray(h uintptr) *NDArray {
	a := &NDArray{handle{h: h, kind: "NDArray"}}
	setFinalizer(a)
	return a
}

// NewNDArray creates an uninitialised array of shape on cpu(0).
func NewNDArray(dtype DType, shape ...int64) (*NDArray, error) {
	return NewNDArrayOn(CPU(0), dtype, shape...)
}

// FromFloat32 creates a float32 array of shape holding a copy of data.
func FromFloat32(data []float32, shape ...int64) (*NDArray, error) {
	a, err := NewNDArray(Float32, shape...)
	if err != nil {
		return nil, err
	}
	if err := a.CopyFromFloat32(data); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// FromFloat64 creates a float64 array of shape holding a copy of data.
func FromFloat64(data []float64, shape ...int64) (*NDArray, error) {
	a, err := NewNDArray(Float64, shape...)
	if err != nil {
		return nil, err
	}
	if err := a.CopyFromFloat64(data); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// FromFloats creates an array of dtype and shape holding data converted to it
// (SetFloats).
func FromFloats(data []float32, dtype DType, shape ...int64) (*NDArray, error) {
	a, err := NewNDArray(dtype, shape...)
	if err != nil {
		return nil, err
	}
	if err := a.SetFloats(data); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close releases the array; further calls return nil.
func (a *NDArray) Close() error { return a.release(a, capi.Weft_ndarray_free) }

// Closed reports whether Close was called.
func (a *NDArray) Closed() bool { return a.closed() }

// NDim is the rank.
func (a *NDArray) NDim() (int, error) {
	n, err := result(&a.handle, capi.Weft_ndarray_ndim)
	return int(n), err
}

// Shape is the extents.
func (a *NDArray) Shape() ([]int64, error) {
	var shape []int64
	err := a.call(func(h uintptr) error {
		var nd [1]int32
		if err := capi.Weft_ndarray_ndim(h, nd[:]); err != nil {
			return err
		}
		shape = make([]int64, nd[0])
		return capi.Weft_ndarray_shape(h, shape, uint64(len(shape)))
	})
	if err != nil {
		return nil, err
	}
	return shape, nil
}

// Size is the number of elements.
func (a *NDArray) Size() (int64, error) { return result(&a.handle, capi.Weft_ndarray_size) }

// DType is the element type.
func (a *NDArray) DType() (DType, error) {
	d, err := result(&a.handle, capi.Weft_ndarray_dtype)
	return DType(d), err
}

// copyFrom hands p (nbytes) to the library for the duration of the call.
func (a *NDArray) copyFrom(p unsafe.Pointer, nbytes uint64) error {
	return a.call(func(h uintptr) error { return capi.Weft_ndarray_copy_from(h, p, nbytes) })
}

func (a *NDArray) copyTo(p unsafe.Pointer, nbytes uint64) error {
	return a.call(func(h uintptr) error { return capi.Weft_ndarray_copy_to(h, p, nbytes) })
}

// CopyFromFloat32 writes data (len must equal Size) without an intermediate copy.
func (a *NDArray) CopyFromFloat32(data []float32) error {
	err := a.copyFrom(sliceData(data), uint64(len(data))*4)
	runtime.KeepAlive(data)
	return err
}

// CopyToFloat32 reads into dst (len must equal Size) without an intermediate copy.
func (a *NDArray) CopyToFloat32(dst []float32) error {
	err := a.copyTo(sliceData(dst), uint64(len(dst))*4)
	runtime.KeepAlive(dst)
	return err
}

// CopyFromFloat64 writes data (len must equal Size).
func (a *NDArray) CopyFromFloat64(data []float64) error {
	err := a.copyFrom(sliceData(data), uint64(len(data))*8)
	runtime.KeepAlive(data)
	return err
}

// CopyToFloat64 reads into dst (len must equal Size).
func (a *NDArray) CopyToFloat64(dst []float64) error {
	err := a.copyTo(sliceData(dst), uint64(len(dst))*8)
	runtime.KeepAlive(dst)
	return err
}

// SetFloats sets a from float32 values converted to its dtype (float16 and
// bfloat16 round to nearest even; integers truncate); len must equal Size.
func (a *NDArray) SetFloats(data []float32) error {
	err := a.call(func(h uintptr) error {
		return capi.Weft_ndarray_copy_from_float32(h, sliceData(data), uint64(len(data)))
	})
	runtime.KeepAlive(data)
	return err
}

// Floats returns the contents converted to float32, for any dtype (exact for
// float16 and bfloat16).
func (a *NDArray) Floats() ([]float32, error) {
	n, err := a.Size()
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	err = a.call(func(h uintptr) error {
		return capi.Weft_ndarray_copy_to_float32(h, sliceData(out), uint64(len(out)))
	})
	runtime.KeepAlive(out)
	return out, err
}

// CopyFromBytes writes raw bytes (len must equal Size * element size).
func (a *NDArray) CopyFromBytes(data []byte) error {
	err := a.copyFrom(sliceData(data), uint64(len(data)))
	runtime.KeepAlive(data)
	return err
}

// ToFloat32 returns a new slice with the contents (float32 arrays).
func (a *NDArray) ToFloat32() ([]float32, error) {
	n, err := a.Size()
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	return out, a.CopyToFloat32(out)
}

// ToFloat64 returns a new slice with the contents (float64 arrays).
func (a *NDArray) ToFloat64() ([]float64, error) {
	n, err := a.Size()
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	return out, a.CopyToFloat64(out)
}

// Reshape returns a view with a new shape (same number of elements).
func (a *NDArray) Reshape(shape ...int64) (*NDArray, error) {
	return owned(newNDArray)(result(&a.handle, func(h uintptr, out []uintptr) error {
		return capi.Weft_ndarray_reshape(h, shape, len(shape), out)
	}))
}

// Slice returns a view of rows [begin, end) along the first axis.
func (a *NDArray) Slice(begin, end int64) (*NDArray, error) {
	return owned(newNDArray)(result(&a.handle, func(h uintptr, out []uintptr) error {
		return capi.Weft_ndarray_slice(h, begin, end, out)
	}))
}

// WaitToRead blocks until pending writes to a are done.
func (a *NDArray) WaitToRead() error { return a.call(capi.Weft_ndarray_wait_to_read) }
