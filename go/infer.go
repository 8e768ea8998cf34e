package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Shapes is a name → shape map; a nil shape has an unknown rank, an extent 0
// is unknown.
type Shapes map[string][]int64

// ShapeResult holds the inferred shapes of a symbol (a plain copy).
type ShapeResult struct {
	Complete                           bool
	Arguments, Outputs, AuxiliaryStates Shapes
	Unknown                            []string
}

// InferShape infers every shape; fails (ShapeError) unless all are known.
func (s *Symbol) InferShape(known Shapes) (*ShapeResult, error) { return s.inferShape(known, false) }

// InferShapePartial infers what it can and never fails for missing information.
func (s *Symbol) InferShapePartial(known Shapes) (*ShapeResult, error) {
	return s.inferShape(known, true)
}

func (s *Symbol) inferShape(known Shapes, partial bool) (*ShapeResult, error) {
	h, err := s.get()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(known))
	indPtr := []uint64{0}
	var dims []int64
	for name, shape := range known {
		names = append(names, name)
		dims = append(dims, shape...)
		indPtr = append(indPtr, uint64(len(dims)))
	}
	out := make([]uintptr, 1)
	if partial {
		err = capi.Weft_symbol_infer_shape_partial(h, uint64(len(names)), names, indPtr, dims, out)
	} else {
		err = capi.Weft_symbol_infer_shape(h, uint64(len(names)), names, indPtr, dims, out)
	}
	runtime.KeepAlive(s)
	if err != nil {
		return nil, wrap(err)
	}
	res := out[0]
	defer capi.Weft_shape_result_free(res)
	r := &ShapeResult{Arguments: Shapes{}, Outputs: Shapes{}, AuxiliaryStates: Shapes{}}
	var c [1]int32
	if err := capi.Weft_shape_result_complete(res, c[:]); err != nil {
		return nil, wrap(err)
	}
	r.Complete = c[0] != 0
	for g, m := range []Shapes{r.Arguments, r.Outputs, r.AuxiliaryStates} {
		var n [1]uint64
		if err := capi.Weft_shape_result_count(res, g, n[:]); err != nil {
			return nil, wrap(err)
		}
		for i := uint64(0); i < n[0]; i++ {
			name := make([]string, 1)
			var nd [1]int32
			if err := capi.Weft_shape_result_name(res, g, i, name); err != nil {
				return nil, wrap(err)
			}
			if err := capi.Weft_shape_result_ndim(res, g, i, nd[:]); err != nil {
				return nil, wrap(err)
			}
			var shape []int64
			if nd[0] >= 0 {
				shape = make([]int64, nd[0])
				if err := capi.Weft_shape_result_dims(res, g, i, shape, uint64(len(shape))); err != nil {
					return nil, wrap(err)
				}
			}
			m[name[0]] = shape
		}
	}
	var nu [1]uint64
	if err := capi.Weft_shape_result_num_unknown(res, nu[:]); err != nil {
		return nil, wrap(err)
	}
	for i := uint64(0); i < nu[0]; i++ {
		name := make([]string, 1)
		if err := capi.Weft_shape_result_unknown_name(res, i, name); err != nil {
			return nil, wrap(err)
		}
		r.Unknown = append(r.Unknown, name[0])
	}
	return r, nil
}

// TypeResult holds the inferred element types (-1 = unknown).
type TypeResult struct {
	Complete                           bool
	Arguments, Outputs, AuxiliaryStates map[string]DType
	Unknown                            []string
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
	h, err := s.get()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(known))
	codes := make([]int32, 0, len(known))
	for name, d := range known {
		names = append(names, name)
		codes = append(codes, int32(d))
	}
	out := make([]uintptr, 1)
	if partial {
		err = capi.Weft_symbol_infer_type_partial(h, uint64(len(names)), names, codes, out)
	} else {
		err = capi.Weft_symbol_infer_type(h, uint64(len(names)), names, codes, out)
	}
	runtime.KeepAlive(s)
	if err != nil {
		return nil, wrap(err)
	}
	res := out[0]
	defer capi.Weft_type_result_free(res)
	r := &TypeResult{Arguments: map[string]DType{}, Outputs: map[string]DType{}, AuxiliaryStates: map[string]DType{}}
	var c [1]int32
	if err := capi.Weft_type_result_complete(res, c[:]); err != nil {
		return nil, wrap(err)
	}
	r.Complete = c[0] != 0
	for g, m := range []map[string]DType{r.Arguments, r.Outputs, r.AuxiliaryStates} {
		var n [1]uint64
		if err := capi.Weft_type_result_count(res, g, n[:]); err != nil {
			return nil, wrap(err)
		}
		for i := uint64(0); i < n[0]; i++ {
			name := make([]string, 1)
			var d [1]int32
			if err := capi.Weft_type_result_name(res, g, i, name); err != nil {
				return nil, wrap(err)
			}
			if err := capi.Weft_type_result_dtype(res, g, i, d[:]); err != nil {
				return nil, wrap(err)
			}
			m[name[0]] = DType(d[0])
		}
	}
	var nu [1]uint64
	if err := capi.Weft_type_result_num_unknown(res, nu[:]); err != nil {
		return nil, wrap(err)
	}
	for i := uint64(0); i < nu[0]; i++ {
		name := make([]string, 1)
		if err := capi.Weft_type_result_unknown_name(res, i, name); err != nil {
			return nil, wrap(err)
		}
		r.Unknown = append(r.Unknown, name[0])
	}
	return r, nil
}
