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

func npyFloats(t *testing.T, path string) []float32 {
	t.Helper()
	a := must(LoadNpy(path))
	defer a.Close()
	return must(a.ToFloat32())
}

// predictNms runs the NMS head once with buffers of the outputs' upper bounds
// (every box kept) and returns the boxes and scores cut to the rows reported.
func predictNms(p *Predictor, feats, anchors []float32) ([][]float32, error) {
	out := [][]float32{make([]float32, 16*4), make([]float32, 16)}
	shapes, err := p.PredictTensorsShaped(context.Background(),
		[]Tensor{{feats, []int64{16, 8}}, {anchors, []int64{16, 4}}}, out)
	if err != nil {
		return nil, err
	}
	if len(shapes[0]) != 2 || shapes[0][1] != 4 || len(shapes[1]) != 1 || shapes[1][0] != shapes[0][0] {
		return nil, errorf(Internal, "output shapes %v", shapes)
	}
	return [][]float32{out[0][:shapes[0][0]*4], out[1][:shapes[1][0]]}, nil
}

// conformance: onnx.nms_predictor
func TestOnnxNmsPredictor(t *testing.T) {
	checkLive(t)
	dir := filepath.Join(os.Getenv("WEFT_TEST_DATA"), "onnx")
	feats := npyFloats(t, filepath.Join(dir, "nms_head.input0.npy"))
	anchors := npyFloats(t, filepath.Join(dir, "nms_head.input1.npy"))
	boxes := npyFloats(t, filepath.Join(dir, "nms_head.output0.npy"))
	scores := npyFloats(t, filepath.Join(dir, "nms_head.output1.npy"))
	if len(scores) >= 16 {
		t.Fatalf("NMS kept all %d boxes", len(scores))
	}
	model := filepath.Join(dir, "nms_head.onnx")
	cfg := PredictorConfig{Inputs: []PredictorInput{{"input0", []int64{16, 8}}, {"input1", []int64{16, 4}}}}
	p := must(LoadPredictorFiles(model, "", cfg))
	if got := must(p.OutputShape(0, []int64{16, 8}, []int64{16, 4})); len(got) != 2 || got[0] != 16 || got[1] != 4 {
		t.Fatalf("output shape %v, want the bound [16 4]", got)
	}
	type result struct {
		out [][]float32
		err error
	}
	results := make(chan result, 8)
	for i := 0; i < 8; i++ {
		go func() {
			r, err := predictNms(p, feats, anchors)
			results <- result{r, err}
		}()
	}
	for i := 0; i < 8; i++ {
		res := <-results
		check(t, res.err)
		r := res.out
		for k, want := range [][]float32{boxes, scores} {
			if len(r[k]) != len(want) {
				t.Fatalf("output %d has %d values, want %d", k, len(r[k]), len(want))
			}
			for j := range want {
				if math.Abs(float64(r[k][j]-want[j])) > 1e-5 {
					t.Fatalf("output %d [%d]: %v, want %v", k, j, r[k][j], want[j])
				}
			}
		}
	}
	// The bound's buffers without the shapes would hide the row count.
	err := p.PredictTensors(context.Background(), []Tensor{{feats, []int64{16, 8}}, {anchors, []int64{16, 4}}},
		[][]float32{make([]float32, 64), make([]float32, 16)})
	expectError(t, err, InvalidArgument, "depend on the input values", "weft_predictor_predict_shaped")
	check(t, p.Close())
	cfg.Options = map[string]string{"max_batch": "4"}
	_, err = LoadPredictorFiles(model, "", cfg)
	expectError(t, err, InvalidArgument, "cannot split outputs whose rows depend")
}
