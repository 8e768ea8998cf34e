package weft

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// conformance: recordio.round_trip_index_and_header
func TestRecordIORoundTripIndexAndHeader(t *testing.T) {
	checkLive(t)
	dir := t.TempDir()
	rec, idx := dir+"/a.rec", dir+"/a.idx"
	// The magic 0xced7230a as it lies in a file, twice: a payload the writer must split.
	magic := []byte{0x0a, 0x23, 0xd7, 0xce, 1, 2, 3, 4, 0x0a, 0x23, 0xd7, 0xce}
	records := [][]byte{{1, 2, 3, 4, 5}, magic, {}}
	w := must(CreateRecordWriter(rec, idx))
	check(t, w.WriteIdx(10, records[0]))
	if n := must(w.Tell()); n != 16 { // 8 bytes of framing, 5 padded to 8
		t.Fatalf("tell %d, want 16", n)
	}
	check(t, w.WriteIdx(11, records[1]))
	check(t, w.WriteIdx(12, records[2]))
	check(t, w.Close())

	r := must(OpenRecordReader(rec, idx))
	defer closeAll(t, r)
	for i, want := range records {
		got, ok, err := r.Read()
		check(t, err)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("record %d: %v (ok %v), want %v", i, got, ok, want)
		}
	}
	if _, ok, err := r.Read(); ok || err != nil {
		t.Fatalf("past the end: ok %v err %v", ok, err)
	}
	if keys := must(r.Keys()); len(keys) != 3 || keys[0] != 10 || keys[2] != 12 {
		t.Fatalf("keys %v", keys)
	}
	if got := must(r.ReadIdx(11)); !bytes.Equal(got, magic) {
		t.Fatalf("key 11: %v", got)
	}
	if got := must(r.ReadIdx(10)); !bytes.Equal(got, records[0]) {
		t.Fatalf("key 10: %v", got)
	}
	check(t, r.Reset())
	if at := must(r.Tell()); at != 0 {
		t.Fatalf("tell after reset %d", at)
	}
	_, err := r.ReadIdx(99)
	expectError(t, err, NotFound)

	packed := must(PackRecord(RecordHeader{Labels: []float32{1.5, -2}, ID: 7, ID2: 9}, []byte{42}))
	if len(packed) != 24+8+1 {
		t.Fatalf("packed %d bytes", len(packed))
	}
	h, payload, err := UnpackRecord(packed)
	check(t, err)
	if len(h.Labels) != 2 || h.Labels[0] != 1.5 || h.Labels[1] != -2 || h.ID != 7 || h.ID2 != 9 || !bytes.Equal(payload, []byte{42}) {
		t.Fatalf("unpacked %+v %v", h, payload)
	}
	h, _, err = UnpackRecord(must(PackRecord(RecordHeader{Label: 3.5, ID: 1}, nil)))
	check(t, err)
	if h.Label != 3.5 || h.Labels != nil {
		t.Fatalf("scalar header %+v", h)
	}

	bad := dir + "/bad.rec"
	check(t, os.WriteFile(bad, []byte{1, 2, 3, 4, 5, 6, 7, 8}, 0o644))
	br := must(OpenRecordReader(bad, ""))
	defer closeAll(t, br)
	_, _, err = br.Read()
	expectError(t, err, InvalidArgument)
	if !strings.Contains(err.Error(), "offset 0") {
		t.Fatalf("error %v does not name the offset", err)
	}
	_, _, err = UnpackRecord([]byte{1, 2})
	if !errors.Is(err, InvalidArgument) {
		t.Fatalf("short record: %v", err)
	}
}
