package weft

import (
	"bytes"
	"io"
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// NDArray serialisation in memory and on streams: MXNet NDArray lists
// (".params") and NumPy .npy images. Bytes from the library are copied out
// of a library-owned buffer that is freed before the function returns; byte
// slices passed in are read by the library during the call only.

// takeBuffer copies and frees a WeftBuffer.
func takeBuffer(buf uintptr) ([]byte, error) {
	defer capi.Weft_buffer_free(buf)
	size := make([]uint64, 1)
	if err := capi.Weft_binding_buffer_copy(buf, nil, 0, size); err != nil {
		return nil, wrap(err)
	}
	b := make([]byte, size[0])
	if err := capi.Weft_binding_buffer_copy(buf, sliceData(b), uint64(len(b)), size); err != nil {
		return nil, wrap(err)
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
	out := make([]uintptr, 1)
	err = capi.Weft_ndarray_save_buffer(hs, names, uint64(len(hs)), out)
	runtime.KeepAlive(arrays)
	if err != nil {
		return nil, wrap(err)
	}
	return takeBuffer(out[0])
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
	out := make([]uintptr, 1)
	err := capi.Weft_ndarray_load_buffer(sliceData(data), uint64(len(data)), out)
	runtime.KeepAlive(data)
	if err != nil {
		return nil, wrap(err)
	}
	return takeMap(out[0])
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
	out := make([]uintptr, 1)
	if err := capi.Weft_ndarray_load_npy(path, out); err != nil {
		return nil, wrap(err)
	}
	return newNDArray(out[0]), nil
}

// LoadNpyBytes makes a new cpu(0) array from the bytes of a .npy image.
func LoadNpyBytes(data []byte) (*NDArray, error) {
	out := make([]uintptr, 1)
	err := capi.Weft_ndarray_load_npy_buffer(sliceData(data), uint64(len(data)), out)
	runtime.KeepAlive(data)
	if err != nil {
		return nil, wrap(err)
	}
	return newNDArray(out[0]), nil
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
	h, err := a.get()
	if err != nil {
		return err
	}
	err = capi.Weft_ndarray_save_npy(h, path)
	runtime.KeepAlive(a)
	return wrap(err)
}

// NpyBytes returns the .npy image of the array (the bytes numpy.save writes).
func (a *NDArray) NpyBytes() ([]byte, error) {
	h, err := a.get()
	if err != nil {
		return nil, err
	}
	out := make([]uintptr, 1)
	err = capi.Weft_ndarray_save_npy_buffer(h, out)
	runtime.KeepAlive(a)
	if err != nil {
		return nil, wrap(err)
	}
	return takeBuffer(out[0])
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
