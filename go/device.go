package weft

import (
	"sort"
	"strconv"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Context is a device: a type and an id, the C ABI's (dev_type, dev_id)
// pair. The zero value is cpu(0). Creating one allocates nothing; a device
// the library cannot reach (a GPU in a build without CUDA, or none present)
// fails in the call that uses it with an *Error (code DeviceError) naming it.
type Context struct {
	Type DeviceType
	ID   int
}

// CPU is cpu(id).
func CPU(id int) Context { return Context{CPUDevice, id} }

// GPU is gpu(id).
func GPU(id int) Context { return Context{GPUDevice, id} }

// DeviceCount is the number of devices of type t this process can use: for
// GPUs the CUDA devices seen (0 in a build without CUDA, or without a driver
// or device); CPU contexts are logical, all on the host.
func DeviceCount(t DeviceType) (int, error) {
	n, err := out1(func(out []int32) error { return capi.Weft_device_count(int(t), out) })
	return int(n), err
}

// Memory is the free and total bytes of c's memory (the host's RAM for a
// CPU context); a missing device is a DeviceError.
func (c Context) Memory() (free, total uint64, err error) {
	t, id := c.codes()
	var f, tot [1]uint64
	err = wrap(capi.Weft_device_memory(t, id, f[:], tot[:]))
	return f[0], tot[0], err
}

func (c Context) codes() (int, int) {
	if c.Type == 0 {
		return int(CPUDevice), c.ID
	}
	return int(c.Type), c.ID
}

// String is "cpu(1)", as the library names devices.
func (c Context) String() string {
	t, id := c.codes()
	name := "device" + strconv.Itoa(t)
	switch DeviceType(t) {
	case CPUDevice:
		name = "cpu"
	case GPUDevice:
		name = "gpu"
	}
	return name + "(" + strconv.Itoa(id) + ")"
}

// NewNDArrayOn creates an uninitialised array of shape on device ctx.
func NewNDArrayOn(ctx Context, dtype DType, shape ...int64) (*NDArray, error) {
	t, id := ctx.codes()
	return owned(newNDArray)(out1(func(out []uintptr) error {
		return capi.Weft_ndarray_create(shape, len(shape), int(dtype), t, id, out)
	}))
}

// Context is the device the array lives on.
func (a *NDArray) Context() (Context, error) {
	var t, id [1]int32
	if err := a.call(func(h uintptr) error { return capi.Weft_ndarray_context(h, t[:], id[:]) }); err != nil {
		return Context{}, err
	}
	return Context{DeviceType(t[0]), int(id[0])}, nil
}

// BindOption is an optional setting of SimpleBind, Bind and NewModule
// (NewModule takes OnDevice only).
type BindOption func(*bindConfig)

type bindConfig struct {
	ctx       Context
	group2ctx map[string]Context
	// Executor options (executor_options.go), applied in order to the C
	// options handle of one SimpleBind or Bind call.
	settings []optionSetting
	gradReqs map[string]GradReq // WithGradReqs (merged); nil when not given
}

// OnDevice binds on ctx (default cpu(0)).
func OnDevice(ctx Context) BindOption { return func(c *bindConfig) { c.ctx = ctx } }

// WithGroup2Ctx gives a device per group (SimpleBind and Bind; MXNet's
// group2ctx): a node's "ctx_group" attribute, set with SetAttr, names its
// group. Arguments of a group are allocated on its device, the rest on the
// OnDevice one; the library inserts the copies between devices. A group used
// by the symbol but missing from the map fails with DeviceError naming it.
func WithGroup2Ctx(group2ctx map[string]Context) BindOption {
	return func(c *bindConfig) { c.group2ctx = group2ctx }
}

// groups returns the group map as parallel slices in name order.
func (c *bindConfig) groups() (names []string, types, ids []int32) {
	for k := range c.group2ctx {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t, id := c.group2ctx[k].codes()
		types = append(types, int32(t))
		ids = append(ids, int32(id))
	}
	return names, types, ids
}

func bindConfigOf(opts []BindOption) bindConfig {
	var c bindConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// LoadIDX loads an IDX file (MNIST's format, raw or gzip) into a new cpu(0) array.
func LoadIDX(path string) (*NDArray, error) {
	out := make([]uintptr, 1)
	if err := capi.Weft_idx_load(path, out); err != nil {
		return nil, wrap(err)
	}
	return newNDArray(out[0]), nil
}

// LoadMNIST loads an MNIST / Fashion-MNIST pair of IDX files (raw or gzip):
// images float32 (N, 1, rows, cols) scaled to [0, 1] and labels float32 (N),
// on cpu(0). The caller closes both.
func LoadMNIST(imagesPath, labelsPath string) (images, labels *NDArray, err error) {
	x := make([]uintptr, 1)
	y := make([]uintptr, 1)
	if err := capi.Weft_mnist_load(imagesPath, labelsPath, x, y); err != nil {
		return nil, nil, wrap(err)
	}
	return newNDArray(x[0]), newNDArray(y[0]), nil
}

// LoadMNISTSet loads dir/SET-images-idx3-ubyte.gz and dir/SET-labels-idx1-ubyte.gz
// (set "train" or "t10k").
func LoadMNISTSet(dir, set string) (images, labels *NDArray, err error) {
	return LoadMNIST(dir+"/"+set+"-images-idx3-ubyte.gz", dir+"/"+set+"-labels-idx1-ubyte.gz")
}
