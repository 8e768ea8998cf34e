package weft

import (
	"bytes"
	"io"
	"runtime"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// NDArray serialisation in memory and on streams: MXNet NDArray lists
// (".params") and NumPy .npy images. Bytes from the library are copied out
// of a library-owned buffer that is freed before the function returns; byte
// slices passed in are read by the library during the call only.

// newBuffer copies and frees a new WeftBuffer unless the call that made it
// failed.
func newBuffer(buf uintptr, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer capi.Weft_buffer_free(buf)
	var data [1]unsafe.Pointer
	var size [1]uint64
	if err := capi.Weft_buffer_data(buf, data[:], size[:]); err != nil {
		return nil, wrap(err)
	}
	b := make([]byte, size[0])
	if size[0] > 0 {
		copy(b, unsafe.Slice((*byte)(data[0]), size[0]))
	}
	return b, nil
}

// SaveParamsBytes returns the .params bytes of named arrays (what SaveParams
// writes to a file).
func SaveParamsBytes(arrays map[string]*NDArray) ([]byte, error) {
	names, hs, err := namedHandles(arrays)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(arrays)
	return newBuffer(out1(func(out []uintptr) error {
		return capi.Weft_ndarray_save_buffer(hs, names, uint64(len(hs)), out)
	}))
}

// WriteParams writes the .params bytes of named arrays to w.
func WriteParams(w io.Writer, arrays map[string]*NDArray) error {
	b, err := SaveParamsBytes(arrays)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// LoadParamsBytes loads an NDArray list from .params bytes by name (unnamed
// lists: "0", "1", ...).
func LoadParamsBytes(data []byte) (map[string]*NDArray, error) {
	defer runtime.KeepAlive(data)
	return newMap(out1(func(out []uintptr) error {
		return capi.Weft_ndarray_load_buffer(sliceData(data), uint64(len(data)), out)
	}))
}

// ReadParams loads an NDArray list from r read to its end.
func ReadParams(r io.Reader) (map[string]*NDArray, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return LoadParamsBytes(b)
}

// LoadNpy loads a NumPy .npy file into a new cpu(0) array.
func LoadNpy(path string) (*NDArray, error) {
	return owned(newNDArray)(out1(func(out []uintptr) error { return capi.Weft_ndarray_load_npy(path, out) }))
}

// LoadNpyBytes makes a new cpu(0) array from the bytes of a .npy image.
func LoadNpyBytes(data []byte) (*NDArray, error) {
	defer runtime.KeepAlive(data)
	return owned(newNDArray)(out1(func(out []uintptr) error {
		return capi.Weft_ndarray_load_npy_buffer(sliceData(data), uint64(len(data)), out)
	}))
}

// ReadNpy makes a new cpu(0) array from a .npy image read from r to its end.
func ReadNpy(r io.Reader) (*NDArray, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return LoadNpyBytes(b)
}

// SaveNpy saves the array as a .npy file (float32/64, int32/64, uint8).
func (a *NDArray) SaveNpy(path string) error {
	return a.call(func(h uintptr) error { return capi.Weft_ndarray_save_npy(h, path) })
}

// NpyBytes returns the .npy image of the array (the bytes numpy.save writes).
func (a *NDArray) NpyBytes() ([]byte, error) {
	return newBuffer(result(&a.handle, capi.Weft_ndarray_save_npy_buffer))
}

// WriteNpy writes the .npy image of the array to w.
func (a *NDArray) WriteNpy(w io.Writer) error {
	b, err := a.NpyBytes()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, bytes.NewReader(b))
	return err
}
