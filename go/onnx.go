package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// OnnxModel is an imported ONNX model: its symbol and parameters (Close
// frees all three).
type OnnxModel struct {
	Symbol *Symbol
	Args   map[string]*NDArray // argument parameters (initializers) by name
	Aux    map[string]*NDArray // auxiliary states (BatchNorm's running statistics) by name
}

// Close frees the symbol and the parameters.
func (m *OnnxModel) Close() error {
	var first error
	for _, group := range []map[string]*NDArray{m.Args, m.Aux} {
		for _, a := range group {
			if err := a.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	if err := m.Symbol.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// OnnxImport imports the .onnx model at path (opsets 7-18) as a symbol of
// MXNet operators and its parameters; shapes (may be nil) fix graph inputs'
// dynamic extents (0 keeps one unknown) so that shape computations over
// them fold. LoadPredictorFiles also takes an .onnx file in place of a
// symbol file (with paramsPath "").
func OnnxImport(path string, shapes Shapes) (*OnnxModel, error) {
	names, indPtr, dims := csrShapes(shapes)
	sym, args, aux := make([]uintptr, 1), make([]uintptr, 1), make([]uintptr, 1)
	if err := wrap(capi.Weft_onnx_import(path, uint64(len(names)), names, indPtr, dims, sym, args, aux)); err != nil {
		return nil, err
	}
	m := &OnnxModel{Symbol: newSymbol(sym[0])}
	a, err := toMap(takeList(args[0]))
	x, err2 := toMap(takeList(aux[0]))
	m.Args, m.Aux = a, x
	if err == nil {
		err = err2
	}
	if err != nil {
		_ = m.Close()
		return nil, err
	}
	return m, nil
}

// OnnxImportCheckpoint imports the model at path as the checkpoint
// PREFIX-symbol.json + PREFIX-0000.params.
func OnnxImportCheckpoint(path, prefix string, shapes Shapes) error {
	names, indPtr, dims := csrShapes(shapes)
	return wrap(capi.Weft_onnx_import_checkpoint(path, prefix, uint64(len(names)), names, indPtr, dims))
}

// OnnxSupportedOps lists the ONNX operators the importer converts, sorted.
func OnnxSupportedOps() ([]string, error) {
	return newStrings(out1(capi.Weft_onnx_supported_ops))
}

// OnnxExportOptions: the ONNX opset (11-17; 0 means 13), the data inputs'
// shapes (nil when the symbol's hints give them) and whether dim 0 is the
// dim_param "batch".
type OnnxExportOptions struct {
	Opset        int
	InputShapes  Shapes
	DynamicBatch bool
}

func (o OnnxExportOptions) codes() (opset, flags int) {
	opset = o.Opset
	if opset == 0 {
		opset = 13
	}
	if o.DynamicBatch {
		flags = capi.WEFT_ONNX_DYNAMIC_BATCH
	}
	return opset, flags
}

// OnnxExport writes sym with its parameters as an ONNX model at output and
// returns the export's notes (one line per node exported with a change worth
// knowing). Nothing is written when a node has no ONNX form: the
// NotImplemented error lists every such node.
func OnnxExport(sym *Symbol, args, aux map[string]*NDArray, o OnnxExportOptions, output string) ([]string, error) {
	an, ah, err := namedHandles(args)
	if err != nil {
		return nil, err
	}
	xn, xh, err := namedHandles(aux)
	if err != nil {
		return nil, err
	}
	names, indPtr, dims := csrShapes(o.InputShapes)
	opset, flags := o.codes()
	report, err := result(&sym.handle, func(s uintptr, out []uintptr) error {
		return capi.Weft_onnx_export(s, uint64(len(an)), an, ah, uint64(len(xn)), xn, xh, uint64(len(names)),
			names, indPtr, dims, opset, flags, output, out)
	})
	runtime.KeepAlive(args)
	runtime.KeepAlive(aux)
	return newStrings(report, err)
}

// OnnxExportFiles is OnnxExport from a symbol JSON file and a .params file
// ("" for none).
func OnnxExportFiles(symbolPath, paramsPath string, o OnnxExportOptions, output string) ([]string, error) {
	names, indPtr, dims := csrShapes(o.InputShapes)
	opset, flags := o.codes()
	return newStrings(out1(func(out []uintptr) error {
		return capi.Weft_onnx_export_files(symbolPath, paramsPath, uint64(len(names)), names, indPtr, dims, opset,
			flags, output, out)
	}))
}
