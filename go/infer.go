package weft

import (
	"github.com/weft-ai/weft/go/internal/capi"
)

// Shapes is a name → shape map; a nil shape has an unknown rank, an extent 0
// is unknown.
type Shapes map[string][]int64

// ShapeResult holds the inferred shapes of a symbol (a plain copy).
type ShapeResult struct {
	Complete                            bool
	Arguments, Outputs, AuxiliaryStates Shapes
	Unknown                             []string
}

// InferShape infers every shape; fails (ShapeError) unless all are known.
func (s *Symbol) InferShape(known Shapes) (*ShapeResult, error) { return s.inferShape(known, false) }

// InferShapePartial infers what it can and never fails for missing information.
func (s *Symbol) InferShapePartial(known Shapes) (*ShapeResult, error) {
	return s.inferShape(known, true)
}

// resultReader reads what a WeftShapeResult and a WeftTypeResult share
// through the functions of one of them.
type resultReader struct {
	complete   func(uintptr, []int32) error
	count      func(uintptr, int, []uint64) error
	name       func(uintptr, int, uint64, []string) error
	numUnknown func(uintptr, []uint64) error
	unknown    func(uintptr, uint64, []string) error
}

var shapeReader = resultReader{capi.Weft_shape_result_complete, capi.Weft_shape_result_count,
	capi.Weft_shape_result_name, capi.Weft_shape_result_num_unknown, capi.Weft_shape_result_unknown_name}
var typeReader = resultReader{capi.Weft_type_result_complete, capi.Weft_type_result_count,
	capi.Weft_type_result_name, capi.Weft_type_result_num_unknown, capi.Weft_type_result_unknown_name}

// read calls entry for every entry of the three groups (arguments, outputs,
// auxiliary states) and returns whether all are known and the unknown names.
func (rr resultReader) read(res uintptr, entry func(group int, index uint64, name string) error) (bool, []string, error) {
	c, err := out1(func(out []int32) error { return rr.complete(res, out) })
	for g := 0; g < 3 && err == nil; g++ {
		var n uint64
		n, err = out1(func(out []uint64) error { return rr.count(res, g, out) })
		for i := uint64(0); i < n && err == nil; i++ {
			var name string
			if name, err = out1(func(out []string) error { return rr.name(res, g, i, out) }); err == nil {
				err = wrap(entry(g, i, name))
			}
		}
	}
	var unknown []string
	nu, err2 := out1(func(out []uint64) error { return rr.numUnknown(res, out) })
	if err == nil {
		err = err2
	}
	for i := uint64(0); i < nu && err == nil; i++ {
		var name string
		name, err = out1(func(out []string) error { return rr.unknown(res, i, out) })
		unknown = append(unknown, name)
	}
	return c != 0, unknown, err
}

func (s *Symbol) inferShape(known Shapes, partial bool) (*ShapeResult, error) {
	names, indPtr, dims := csr(known)
	res, err := result(&s.handle, func(h uintptr, out []uintptr) error {
		if partial {
			return capi.Weft_symbol_infer_shape_partial(h, uint64(len(names)), names, indPtr, dims, out)
		}
		return capi.Weft_symbol_infer_shape(h, uint64(len(names)), names, indPtr, dims, out)
	})
	if err != nil {
		return nil, err
	}
	defer capi.Weft_shape_result_free(res)
	r := &ShapeResult{Arguments: Shapes{}, Outputs: Shapes{}, AuxiliaryStates: Shapes{}}
	groups := []Shapes{r.Arguments, r.Outputs, r.AuxiliaryStates}
	r.Complete, r.Unknown, err = shapeReader.read(res, func(g int, i uint64, name string) error {
		var nd [1]int32
		if err := capi.Weft_shape_result_ndim(res, g, i, nd[:]); err != nil {
			return err
		}
		var shape []int64
		if nd[0] >= 0 {
			shape = make([]int64, nd[0])
			if err := capi.Weft_shape_result_dims(res, g, i, shape, uint64(len(shape))); err != nil {
				return err
			}
		}
		groups[g][name] = shape
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// TypeResult holds the inferred element types (-1 = unknown).
type TypeResult struct {
	Complete                            bool
	Arguments, Outputs, AuxiliaryStates map[string]DType
	Unknown                             []string
}

// InferType infers every element type; fails (DTypeError) unless all are known.
func (s *Symbol) InferType(known map[string]DType) (*TypeResult, error) {
	return s.inferType(known, false)
}

// InferTypePartial infers what it can.
func (s *Symbol) InferTypePartial(known map[string]DType) (*TypeResult, error) {
	return s.inferType(known, true)
}

func (s *Symbol) inferType(known map[string]DType, partial bool) (*TypeResult, error) {
	names := make([]string, 0, len(known))
	codes := make([]int32, 0, len(known))
	for name, d := range known {
		names = append(names, name)
		codes = append(codes, int32(d))
	}
	res, err := result(&s.handle, func(h uintptr, out []uintptr) error {
		if partial {
			return capi.Weft_symbol_infer_type_partial(h, uint64(len(names)), names, codes, out)
		}
		return capi.Weft_symbol_infer_type(h, uint64(len(names)), names, codes, out)
	})
	if err != nil {
		return nil, err
	}
	defer capi.Weft_type_result_free(res)
	r := &TypeResult{Arguments: map[string]DType{}, Outputs: map[string]DType{}, AuxiliaryStates: map[string]DType{}}
	groups := []map[string]DType{r.Arguments, r.Outputs, r.AuxiliaryStates}
	r.Complete, r.Unknown, err = typeReader.read(res, func(g int, i uint64, name string) error {
		d, err := out1(func(out []int32) error { return capi.Weft_type_result_dtype(res, g, i, out) })
		groups[g][name] = DType(d)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// csr is the C ABI's form of named shapes.
func csr(shapes Shapes) (names []string, indPtr []uint64, dims []int64) {
	indPtr = []uint64{0}
	for name, shape := range shapes {
		names = append(names, name)
		dims = append(dims, shape...)
		indPtr = append(indPtr, uint64(len(dims)))
	}
	return names, indPtr, dims
}

// Summary is MXNet's print_summary table for these input shapes (layers,
// output shapes, parameters, previous layers, FLOPs, activation bytes, totals).
func (s *Symbol) Summary(shapes Shapes) (string, error) {
	names, indPtr, dims := csr(shapes)
	return firstString(result(&s.handle, func(h uintptr, out []uintptr) error {
		return capi.Weft_symbol_summary(h, uint64(len(names)), names, indPtr, dims, out)
	}))
}

// ToDot is a Graphviz DOT picture (MXNet's plot_network); options: title,
// hide_weights, shapes, memory ("1"/"0") and node_attr.NAME.
func (s *Symbol) ToDot(shapes Shapes, options map[string]string) (string, error) {
	names, indPtr, dims := csr(shapes)
	keys := make([]string, 0, len(options))
	values := make([]string, 0, len(options))
	for k, v := range options {
		keys = append(keys, k)
		values = append(values, v)
	}
	return firstString(result(&s.handle, func(h uintptr, out []uintptr) error {
		return capi.Weft_symbol_to_dot(h, uint64(len(names)), names, indPtr, dims,
			uint64(len(keys)), keys, values, out)
	}))
}
