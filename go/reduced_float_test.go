package weft

import (
	"reflect"
	"testing"
)

// conformance: ndarray.reduced_float_conversions
func TestReducedFloatConversions(t *testing.T) {
	checkLive(t)
	b := must(FromFloats([]float32{3.14159, -2, 1}, BFloat16, 3))
	h := must(FromFloats([]float32{0.1, 65504}, Float16, 2))
	defer closeAll(t, b, h)
	if d := must(b.DType()); d != BFloat16 {
		t.Fatalf("dtype %v", d)
	}
	floatsEqual(t, must(b.Floats()), []float32{3.140625, -2, 1})
	floatsEqual(t, must(h.Floats()), []float32{0.0999755859375, 65504})
	expectError(t, b.SetFloats(make([]float32, 2)), InvalidArgument, "argument 'count' is 2, expected 3")

	// FullyConnected has no float16 kernel: bound on float16 arrays it runs in float32.
	data := must(Variable("data"))
	fc := must(Apply("FullyConnected", "fc", Params{"num_hidden": 2}, data))
	args := []*NDArray{must(NewNDArray(Float16, 3, 4)), must(NewNDArray(Float16, 2, 4)), must(NewNDArray(Float16, 2))}
	ex := must(Bind(fc, args, nil, nil, nil))
	defer closeAll(t, ex, fc, data, args[0], args[1], args[2])
	if nodes := must(ex.Float32Nodes()); !reflect.DeepEqual(nodes, []string{"fc"}) {
		t.Fatalf("float32 nodes %v, want [fc]", nodes)
	}
}
