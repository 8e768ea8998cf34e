package weft

import (
	"os"
	"testing"
)

// conformance: data.iterator_factory
func TestIteratorFactory(t *testing.T) {
	checkLive(t)
	csv := t.TempDir() + "/a.csv"
	check(t, os.WriteFile(csv, []byte("1,2,3\n4,5,6\n7,8,9\n10,11,12\n"), 0o644))
	it := must(CreateDataIter("CSVIter", Params{"data_csv": csv, "data_shape": "(3,)", "batch_size": 2}))
	batches := 0
	for must(it.Next()) {
		d := must(it.Data())
		if batches == 0 {
			floatsEqual(t, must(d["data"].ToFloat32()), []float32{1, 2, 3, 4, 5, 6})
		}
		for _, a := range d {
			check(t, a.Close())
		}
		for _, a := range must(it.Label()) {
			check(t, a.Close())
		}
		batches++
	}
	check(t, it.Close())
	if batches != 2 {
		t.Fatalf("%d batches, want 2", batches)
	}
	names := must(DataIterNames())
	found := 0
	for _, n := range names {
		if n == "CSVIter" || n == "MNISTIter" {
			found++
		}
	}
	if found != 2 {
		t.Fatalf("names %v lack CSVIter or MNISTIter", names)
	}
	_, err := CreateDataIter("NoIter", nil)
	expectError(t, err, NotFound, "NoIter")
}
