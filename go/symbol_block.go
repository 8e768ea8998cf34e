package weft

import (
	"fmt"
	"strings"
)

// SymbolBlock is a Gluon export run as a block (Gluon's SymbolBlock.imports):
// the symbol, its parameters from a .params file (names with or without
// MXNet's arg:/aux: prefixes) and a CachedOp over them. Forward takes the
// data inputs; while the thread records it is one node on the tape, so after
// AttachGrad on Params a Backward fills their gradients and a Trainer can
// train them. It owns the op and the parameters; Close frees both.
type SymbolBlock struct {
	op        *CachedOp
	params    map[string]*NDArray
	inputs    []string
	dataNames []string
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// ImportSymbolBlock loads symbolFile with data inputs inputNames and every
// other input from paramFile. It fails naming a data input the symbol lacks,
// a parameter the file lacks, or an array in the file the symbol does not use
// (as MXNet's load does).
func ImportSymbolBlock(symbolFile string, inputNames []string, paramFile string) (*SymbolBlock, error) {
	loaded, err := LoadParams(paramFile)
	if err != nil {
		return nil, err
	}
	params := map[string]*NDArray{}
	for k, v := range loaded {
		params[strings.TrimPrefix(strings.TrimPrefix(k, "arg:"), "aux:")] = v
	}
	b, err := newSymbolBlock(symbolFile, inputNames, paramFile, params)
	if err != nil {
		for _, a := range loaded {
			a.Close()
		}
	}
	return b, err
}

func newSymbolBlock(symbolFile string, inputNames []string, paramFile string, params map[string]*NDArray) (*SymbolBlock, error) {
	sym, err := LoadSymbol(symbolFile)
	if err != nil {
		return nil, err
	}
	defer sym.Close()
	all, err := sym.ListInputs()
	if err != nil {
		return nil, err
	}
	var data []string
	for _, name := range inputNames {
		i := indexOf(all, name)
		if i < 0 {
			return nil, errorf(InvalidArgument, "SymbolBlock.imports: data input '%s' is not an input of the symbol %v", name, all)
		}
		data = append(data, fmt.Sprint(i))
	}
	for _, name := range all {
		if _, ok := params[name]; !ok && indexOf(inputNames, name) < 0 {
			return nil, errorf(NotFound, "SymbolBlock.imports: parameter '%s' is missing in file %s", name, paramFile)
		}
	}
	for name := range params {
		if indexOf(all, name) < 0 {
			return nil, errorf(InvalidArgument, "SymbolBlock.imports: parameter '%s' in file %s is not used by the symbol", name, paramFile)
		}
	}
	op, err := NewCachedOp(sym, Params{"data_indices": "[" + strings.Join(data, ",") + "]"})
	if err != nil {
		return nil, err
	}
	return &SymbolBlock{op: op, params: params, inputs: all, dataNames: append([]string(nil), inputNames...)}, nil
}

// Params are the parameters by name (owned by the block; Gluon's
// collect_params()).
func (b *SymbolBlock) Params() map[string]*NDArray { return b.params }

// Forward runs the block on one array per data input, in inputNames order.
func (b *SymbolBlock) Forward(data ...*NDArray) ([]*NDArray, error) {
	if len(data) != len(b.dataNames) {
		return nil, errorf(InvalidArgument, "SymbolBlock.forward: expected %d data input(s) %v, given %d", len(b.dataNames), b.dataNames, len(data))
	}
	in := make([]*NDArray, len(b.inputs))
	for i, name := range b.inputs {
		if d := indexOf(b.dataNames, name); d >= 0 {
			in[i] = data[d]
		} else {
			in[i] = b.params[name]
		}
	}
	return b.op.Invoke(in...)
}

// Close frees the op and the parameters.
func (b *SymbolBlock) Close() error {
	err := b.op.Close()
	for _, a := range b.params {
		if e := a.Close(); err == nil {
			err = e
		}
	}
	return err
}
