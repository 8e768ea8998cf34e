package weft

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// The second half of the custom operator tests: training with modules, the
// zoo JSON with a Custom loss, operator libraries.

// customMLPJSON: data -> FC(16) -> act -> FC(4) -> loss, as MXNet 1.9 writes it.
func customMLPJSON(act, loss string) string {
	return `{"nodes": [{"op": "null", "name": "data", "inputs": []},
{"op": "null", "name": "fc1_weight", "inputs": []},
{"op": "null", "name": "fc1_bias", "inputs": []},
{"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "16"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
` + act + `,
{"op": "null", "name": "fc2_weight", "inputs": []},
{"op": "null", "name": "fc2_bias", "inputs": []},
{"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "4"}, "inputs": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},
{"op": "null", "name": "softmax_label", "inputs": []},
` + loss + `],
"arg_nodes": [0, 1, 2, 5, 6, 8], "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
"heads": [[9, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}`
}

const (
	actCustom   = `{"op": "Custom", "name": "act1", "attrs": {"beta": "1.5", "op_type": "go_softplus"}, "inputs": [[3, 0, 0]]}`
	actRelu     = `{"op": "Activation", "name": "act1", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]}`
	lossSoftmax = `{"op": "SoftmaxOutput", "name": "softmax", "inputs": [[7, 0, 0], [8, 0, 0]]}`
	lossCustom  = `{"op": "Custom", "name": "softmax", "attrs": {"op_type": "go_softmax"}, "inputs": [[7, 0, 0], [8, 0, 0]]}`
)

// trainAndCheck: the cross-entropy before and after 4 epochs must fall.
func trainAndCheck(t *testing.T, json string) {
	t.Helper()
	xs, ys := blobs(nBlobs, 7)
	sym := must(SymbolFromJSON(json))
	defer sym.Close()
	x, y := must(FromFloat32(xs, nBlobs, 2)), must(FromFloat32(ys, nBlobs))
	defer x.Close()
	defer y.Close()
	iter := must(NewDataIter(map[string]*NDArray{"data": x}, map[string]*NDArray{"softmax_label": y}, 20, false, "pad", 5))
	defer iter.Close()
	mod := must(NewModule(sym, []string{"data"}, []string{"softmax_label"}))
	defer mod.Close()
	init := must(NewInitializer("xavier", nil, 3))
	defer init.Close()
	opt := must(NewOptimizer("sgd", Params{"learning_rate": 0.1, "momentum": 0.9}))
	defer opt.Close()
	ce := must(NewMetric("ce", nil))
	defer ce.Close()
	must(0, mod.Bind(iter, true))
	must(0, mod.InitParams(init, nil, nil, false))
	must(0, mod.InitOptimizer(opt))
	first := func(m map[string]float64) float64 {
		for _, v := range m {
			return v
		}
		return 0
	}
	before := first(must(mod.Score(iter, ce)))
	must(mod.Fit(iter, nil, ce, 0, 4, ProgressSilent, ""))
	after := first(must(mod.Score(iter, ce)))
	if !(after < 0.5*before) || !(after < 0.3) {
		t.Errorf("cross-entropy %v before training, %v after", before, after)
	}
}

// conformance: custom_op.module_trains_with_custom_activation
func TestCustomOpModuleTrainsMlp(t *testing.T) {
	withOps(t)
	before := atomic.LoadInt64(&goBackwardCalls)
	trainAndCheck(t, customMLPJSON(actCustom, lossSoftmax))
	if n := atomic.LoadInt64(&goBackwardCalls) - before; n < 40 {
		t.Errorf("%d backward calls, expected 4 epochs of 10 batches", n)
	}
}

// conformance: custom_op.zoo_json_custom_loss
func TestCustomOpZooJSONCustomLoss(t *testing.T) {
	withOps(t)
	trainAndCheck(t, customMLPJSON(actRelu, lossCustom))
	trainAndCheck(t, customMLPJSON(actCustom, lossCustom))
	_, err := SymbolFromJSON(customMLPJSON(actRelu, strings.Replace(lossCustom, "go_softmax", "go_unregistered", 1)))
	expectError(t, err, InvalidArgument, "go_unregistered", "not registered", "softmax")
}

// conformance: custom_op.load_library_lists_ops
func TestLoadLibraryListsItsOps(t *testing.T) {
	checkLive(t)
	plugin := os.Getenv("WEFT_TEST_PLUGIN")
	must(0, LoadLibrary(plugin))
	if ops := must(LoadedOps()); !strings.Contains(strings.Join(ops, ","), "plugin_softplus") {
		t.Errorf("LoadedOps() = %v", ops)
	}
	in := []float32{-1, 0, 2}
	x := must(FromFloat32(in, 3))
	defer x.Close()
	outs := must(Invoke("plugin_softplus", Params{"beta": 2}, x))
	v := must(outs[0].ToFloat32())
	outs[0].Close()
	for i := range in {
		if d := float64(v[i]) - softplus(2, float64(in[i])); d > 1e-5 || d < -1e-5 {
			t.Errorf("plugin_softplus(%v) = %v", in[i], v[i])
		}
	}
	expectError(t, LoadLibrary(plugin+".missing"), IOError, ".missing")
	expectError(t, LoadLibrary(os.Getenv("WEFT_TEST_PLUGIN_V2")), InvalidArgument, "version 2", "supports version 1")
}
