package weft

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func ramp(n int, scale float32) []float32 {
	a := make([]float32, n)
	for i := range a {
		a[i] = float32((i*7)%11-5) * scale
	}
	return a
}

// conformance: onnx.export_import_round_trip
func TestOnnxExportImportRoundTrip(t *testing.T) {
	checkLive(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "mlp.onnx")
	x := ramp(16, 0.25)
	shape := Shapes{"data": {8, 2}}
	mlp := must(SymbolFromJSON(mlpJSON))
	ex := must(SimpleBind(mlp, shape, "null"))
	args := must(ex.ArgArrays())
	check(t, args["fc1_weight"].CopyFromFloat32(ramp(32, 0.1)))
	check(t, args["fc1_bias"].CopyFromFloat32(ramp(16, 0.05)))
	check(t, args["fc2_weight"].CopyFromFloat32(ramp(64, 0.1)))
	check(t, args["fc2_bias"].CopyFromFloat32(ramp(4, 0.05)))
	check(t, args["data"].CopyFromFloat32(x))
	check(t, ex.Forward(false))
	outs := must(ex.Outputs())
	want := must(outs[0].Array.ToFloat32())
	params := map[string]*NDArray{}
	for k, v := range args {
		if k != "data" && k != "softmax_label" {
			params[k] = v
		}
	}
	report := must(OnnxExport(mlp, params, nil, OnnxExportOptions{Opset: 13, InputShapes: shape}, file))
	for _, o := range outs {
		check(t, o.Array.Close())
	}
	for _, a := range args {
		check(t, a.Close())
	}
	closeAll(t, ex, mlp)
	if !strings.Contains(strings.Join(report, "\n"), "'SoftmaxOutput'") {
		t.Errorf("report lacks the SoftmaxOutput note: %v", report)
	}
	m := must(OnnxImport(file, nil))
	if len(m.Args) != 4 {
		t.Errorf("%d imported parameters, want 4", len(m.Args))
	}
	if names := must(m.Symbol.ListArguments()); !strings.Contains(strings.Join(names, ","), "data") {
		t.Errorf("imported arguments %v lack data", names)
	}
	check(t, m.Close())
	// The exported file runs in a predictor as it is, with the original's outputs.
	p := must(LoadPredictorFiles(file, "", PredictorConfig{Inputs: []PredictorInput{{Name: "data", Shape: []int64{8, 2}}}}))
	got := make([]float32, len(want))
	check(t, p.Predict(context.Background(), x, got))
	check(t, p.Close())
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Errorf("output %d: %v, want %v", i, got[i], want[i])
		}
	}
	if ops := strings.Join(must(OnnxSupportedOps()), ","); !strings.Contains(ops, "Gemm") {
		t.Errorf("supported ops lack Gemm: %s", ops)
	}
	_, err := OnnxImport(filepath.Join(dir, "missing.onnx"), nil)
	expectError(t, err, IOError, "missing.onnx")
	json := filepath.Join(dir, "mlp-symbol.json")
	check(t, os.WriteFile(json, []byte(mlpJSON), 0o644))
	_, err = OnnxExportFiles(json, "", OnnxExportOptions{Opset: 5, InputShapes: shape}, file)
	expectError(t, err, InvalidArgument, "opset")
}
