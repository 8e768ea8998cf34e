package weft

import (
	"runtime"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// MXNet's RecordIO files (.rec with an optional .idx): RecordWriter and
// RecordReader are MXNet's MXRecordIO/MXIndexedRecordIO, PackRecord and
// UnpackRecord its recordio.pack/unpack of the image-record header. Files are
// byte-identical to what MXNet writes; malformed ones fail naming the byte
// offset.

// RecordWriter writes a record file (and its index).
type RecordWriter struct {
	handle
}

// CreateRecordWriter creates (or truncates) path, and idxPath for the index
// unless it is "".
func CreateRecordWriter(path, idxPath string) (*RecordWriter, error) {
	return owned(func(h uintptr) *RecordWriter {
		w := &RecordWriter{handle{h: h, kind: "RecordWriter"}}
		setFinalizer(w)
		return w
	})(out1(func(out []uintptr) error { return capi.Weft_recordio_writer_create(path, idxPath, out) }))
}

// Close flushes and frees the writer; further calls return nil.
func (w *RecordWriter) Close() error { return w.release(w, capi.Weft_recordio_writer_free) }

// Write appends one record (MXRecordIO.write).
func (w *RecordWriter) Write(record []byte) error {
	defer runtime.KeepAlive(record)
	return w.call(func(h uintptr) error {
		return capi.Weft_recordio_writer_write(h, sliceData(record), uint64(len(record)))
	})
}

// WriteIdx appends one record and its index line (MXIndexedRecordIO.write_idx).
func (w *RecordWriter) WriteIdx(key int64, record []byte) error {
	defer runtime.KeepAlive(record)
	return w.call(func(h uintptr) error {
		return capi.Weft_recordio_writer_write_idx(h, key, sliceData(record), uint64(len(record)))
	})
}

// Tell is the number of bytes written so far: the offset of the next record.
func (w *RecordWriter) Tell() (uint64, error) {
	return result(&w.handle, capi.Weft_recordio_writer_tell)
}

// RecordReader reads a record file (and its index).
type RecordReader struct {
	handle
}

// OpenRecordReader opens path, with the index idxPath unless it is "" (then
// the by-key reads fail).
func OpenRecordReader(path, idxPath string) (*RecordReader, error) {
	return owned(func(h uintptr) *RecordReader {
		r := &RecordReader{handle{h: h, kind: "RecordReader"}}
		setFinalizer(r)
		return r
	})(out1(func(out []uintptr) error { return capi.Weft_recordio_reader_create(path, idxPath, out) }))
}

// Close frees the reader; further calls return nil.
func (r *RecordReader) Close() error { return r.release(r, capi.Weft_recordio_reader_free) }

func copyBytes(data unsafe.Pointer, size uint64) []byte {
	b := make([]byte, size)
	if size > 0 {
		copy(b, unsafe.Slice((*byte)(data), size))
	}
	return b
}

// Read returns the next record, or ok == false at the end of the file
// (MXRecordIO.read).
func (r *RecordReader) Read() (record []byte, ok bool, err error) {
	var data [1]unsafe.Pointer
	var size [1]uint64
	var has [1]int32
	err = r.call(func(h uintptr) error {
		if e := capi.Weft_recordio_reader_read(h, data[:], size[:], has[:]); e != nil {
			return e
		}
		record = copyBytes(data[0], size[0]) // before the next read reuses the memory
		return nil
	})
	return record, err == nil && has[0] != 0, err
}

// ReadIdx returns the record of key (MXIndexedRecordIO.read_idx).
func (r *RecordReader) ReadIdx(key int64) ([]byte, error) {
	var data [1]unsafe.Pointer
	var size [1]uint64
	var record []byte
	err := r.call(func(h uintptr) error {
		if e := capi.Weft_recordio_reader_read_idx(h, key, data[:], size[:]); e != nil {
			return e
		}
		record = copyBytes(data[0], size[0])
		return nil
	})
	return record, err
}

// Keys are the index's keys in file order.
func (r *RecordReader) Keys() ([]int64, error) {
	n, err := result(&r.handle, capi.Weft_recordio_reader_num_keys)
	if err != nil {
		return nil, err
	}
	keys := make([]int64, n)
	var num [1]uint64
	err = r.call(func(h uintptr) error { return capi.Weft_recordio_reader_keys(h, keys, n, num[:]) })
	return keys[:num[0]], err
}

// Seek makes the next read start at byte offset.
func (r *RecordReader) Seek(offset uint64) error {
	return r.call(func(h uintptr) error { return capi.Weft_recordio_reader_seek(h, offset) })
}

// Tell is the byte offset of the next read.
func (r *RecordReader) Tell() (uint64, error) {
	return result(&r.handle, capi.Weft_recordio_reader_tell)
}

// Reset rewinds to the first record.
func (r *RecordReader) Reset() error {
	return r.call(capi.Weft_recordio_reader_reset)
}

// RecordHeader is MXNet's IRHeader: a scalar Label (flag 0) or Labels (flag =
// their count), and two ids.
type RecordHeader struct {
	Label   float32
	Labels  []float32
	ID, ID2 uint64
}

// PackRecord is recordio.pack: the header, its labels, then payload.
func PackRecord(h RecordHeader, payload []byte) ([]byte, error) {
	defer runtime.KeepAlive(payload)
	return newBuffer(out1(func(out []uintptr) error {
		return capi.Weft_recordio_pack_header(h.Label, h.Labels, uint64(len(h.Labels)), h.ID, h.ID2,
			sliceData(payload), uint64(len(payload)), out)
	}))
}

// UnpackRecord is recordio.unpack: the header (with its labels) and the
// payload (a sub-slice of record).
func UnpackRecord(record []byte) (RecordHeader, []byte, error) {
	defer runtime.KeepAlive(record)
	var flag [1]int32
	var label [1]float32
	var id, id2, offset, num [1]uint64
	p, n := sliceData(record), uint64(len(record))
	if err := wrap(capi.Weft_recordio_unpack_header(p, n, flag[:], label[:], id[:], id2[:], offset[:])); err != nil {
		return RecordHeader{}, nil, err
	}
	labels := make([]float32, flag[0])
	if err := wrap(capi.Weft_recordio_unpack_labels(p, n, labels, uint64(len(labels)), num[:])); err != nil {
		return RecordHeader{}, nil, err
	}
	if flag[0] == 0 {
		labels = nil
	}
	return RecordHeader{Label: label[0], Labels: labels, ID: id[0], ID2: id2[0]}, record[offset[0]:], nil
}
