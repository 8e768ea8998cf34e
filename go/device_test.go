package weft

import (
	"fmt"
	"math"
	"os"
	"testing"
)

// Devices and data (same cases in JUnit and NUnit): the device argument of
// executors and modules, the MNIST loader, and the data iterator's padding
// and reset.

// TestBindOnADevice: SimpleBind on cpu(1) allocates there; without a GPU,
// gpu(0) fails with DeviceError naming it, for SimpleBind, Bind and
// NewModule (with one, TestTrainsOnTheGpu runs instead).
// conformance: device.bind_on_a_device
func TestBindOnADevice(t *testing.T) {
	checkLive(t)
	noGPU := must(DeviceCount(GPUDevice)) == 0
	f := abPlusC(t)
	defer f.Close()
	ex := must(SimpleBind(f, abShapes(2, 2), "write", OnDevice(CPU(1))))
	defer ex.Close()
	args := must(ex.ArgArrays())
	ctx, err := args["a"].Context()
	CloseAll(args)
	check(t, err)
	if ctx != CPU(1) {
		t.Fatalf("argument a is on %v, want cpu(1)", ctx)
	}
	check(t, checkAbPlusC(ex, 2))
	if !noGPU {
		return
	}
	_, err = SimpleBind(f, abShapes(2, 2), "write", OnDevice(GPU(0)))
	expectError(t, err, DeviceError, "gpu(0)")
	a := must(FromFloat32([]float32{1, 2}, 2))
	defer a.Close()
	_, err = Bind(f, []*NDArray{a, a, a}, nil, nil, nil, OnDevice(GPU(0)))
	expectError(t, err, DeviceError, "gpu(0)")
	_, err = NewModule(f, []string{"a"}, nil, OnDevice(GPU(0)))
	expectError(t, err, DeviceError, "gpu(0)")
}

// TestTrainsOnTheGpu, with a GPU: a*b+c binds on gpu(0) with the
// closed-form numbers, and the MLP trained there for two epochs (SGD with
// momentum, fixed seeds) ends with the parameters of the same run on the
// CPU. Skipped without one.
// conformance: device.trains_on_the_gpu
func TestTrainsOnTheGpu(t *testing.T) {
	checkLive(t)
	if must(DeviceCount(GPUDevice)) == 0 {
		t.Skip("no GPU")
	}
	f := abPlusC(t)
	defer f.Close()
	ex := must(SimpleBind(f, abShapes(2, 2), "write", OnDevice(GPU(0))))
	check(t, checkAbPlusC(ex, 2))
	ex.Close()
	gpu := newTrainedOn(t, 2, GPU(0))
	defer gpu.Close()
	cpu := newTrainedOn(t, 2, CPU(0))
	defer cpu.Close()
	g := must(gpu.mod.ArgParams())
	defer CloseAll(g)
	c := must(cpu.mod.ArgParams())
	defer CloseAll(c)
	if len(g) != len(c) {
		t.Fatalf("%d parameters on the GPU, %d on the CPU", len(g), len(c))
	}
	for k, ca := range c {
		ga, ok := g[k]
		if !ok {
			t.Fatalf("no %s on the GPU", k)
		}
		if ctx := must(ga.Context()); ctx != GPU(0) {
			t.Fatalf("%s is on %v, want gpu(0)", k, ctx)
		}
		cv, gv := must(ca.ToFloat32()), must(ga.ToFloat32())
		for i := range cv {
			if math.Abs(float64(cv[i]-gv[i])) > 1e-4*(1+math.Abs(float64(cv[i]))) {
				t.Fatalf("%s[%d]: gpu %v, cpu %v", k, i, gv[i], cv[i])
			}
		}
	}
}

// TestDeviceCountAndMemory: at least one CPU context with the host's RAM,
// each GPU seen with its memory, and a DeviceError for the first GPU id past
// the count.
// conformance: device.count_and_memory
func TestDeviceCountAndMemory(t *testing.T) {
	checkLive(t)
	cpus := must(DeviceCount(CPUDevice))
	if cpus < 1 {
		t.Fatalf("%d cpu contexts", cpus)
	}
	gpus := must(DeviceCount(GPUDevice))
	free, total, err := CPU(0).Memory()
	check(t, err)
	if total <= 1<<20 || free > total {
		t.Fatalf("cpu(0) memory: free %d, total %d", free, total)
	}
	for i := 0; i < gpus; i++ {
		if _, total, err := GPU(i).Memory(); err != nil || total <= 1<<20 {
			t.Fatalf("gpu(%d) memory: total %d, %v", i, total, err)
		}
	}
	_, _, err = GPU(gpus).Memory()
	expectError(t, err, DeviceError, fmt.Sprintf("gpu(%d)", gpus))
}

// TestDataIterBatchesAndPads: 7 samples (row i = (i, 10 i), label i) in
// batches of 3 with "pad": the last batch holds sample 6 then samples 0 and 1
// again (pad 2); Reset starts the same sequence over.
// conformance: data.iter_batches_and_pads
func TestDataIterBatchesAndPads(t *testing.T) {
	checkLive(t)
	xs := make([]float32, 14)
	ys := make([]float32, 7)
	for i := 0; i < 7; i++ {
		xs[2*i], xs[2*i+1], ys[i] = float32(i), float32(10*i), float32(i)
	}
	x := must(FromFloat32(xs, 7, 2))
	y := must(FromFloat32(ys, 7))
	it := must(NewDataIter(map[string]*NDArray{"data": x}, map[string]*NDArray{"label": y}, 3, false, "pad", 0))
	defer closeAll(t, it, x, y)
	if bs := must(it.BatchSize()); bs != 3 {
		t.Fatalf("batch size %d", bs)
	}
	rows := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 0, 1}}
	pads := []int{0, 0, 2}
	for epoch := 0; epoch < 2; epoch++ {
		for b := 0; b < 3; b++ {
			if !must(it.Next()) {
				t.Fatalf("epoch %d: no batch %d", epoch, b)
			}
			if p := must(it.Pad()); p != pads[b] {
				t.Fatalf("pad of batch %d = %d, want %d", b, p, pads[b])
			}
			d := must(it.Data())
			l := must(it.Label())
			shape := must(d["data"].Shape())
			dv := must(d["data"].ToFloat32())
			lv := must(l["label"].ToFloat32())
			CloseAll(d)
			CloseAll(l)
			if fmt.Sprint(shape) != "[3 2]" {
				t.Fatalf("batch shape %v", shape)
			}
			for r, s := range rows[b] {
				if dv[2*r] != float32(s) || dv[2*r+1] != float32(10*s) || lv[r] != float32(s) {
					t.Fatalf("epoch %d batch %d row %d: data (%v, %v) label %v, want sample %d",
						epoch, b, r, dv[2*r], dv[2*r+1], lv[r], s)
				}
			}
		}
		if must(it.Next()) {
			t.Fatalf("epoch %d has more than 3 batches", epoch)
		}
		check(t, it.Reset())
	}
}

// TestMnistLoader: the library's MNIST loader on Debian's Fashion-MNIST test
// set (skipped when absent).
// conformance: data.mnist_loader
func TestMnistLoader(t *testing.T) {
	checkLive(t)
	const dir = "/usr/share/datasets/fashion-mnist"
	if _, err := os.Stat(dir + "/t10k-labels-idx1-ubyte.gz"); err != nil {
		t.Skip("Fashion-MNIST not installed")
	}
	images, labels, err := LoadMNISTSet(dir, "t10k")
	check(t, err)
	defer closeAll(t, images, labels)
	if s := must(images.Shape()); fmt.Sprint(s) != "[10000 1 28 28]" {
		t.Fatalf("images shape %v", s)
	}
	if ctx := must(images.Context()); ctx != CPU(0) {
		t.Fatalf("images on %v", ctx)
	}
	// The first labels, read from the file's bytes 8.. by hand (gzip -dc | od).
	lv := must(labels.ToFloat32())
	floatsEqual(t, lv[:10], []float32{9, 2, 1, 1, 6, 1, 4, 6, 5, 7})
	first := must(images.Slice(0, 1))
	px := must(first.ToFloat32())
	first.Close()
	sum := 0.0
	for _, v := range px {
		if v < 0 || v > 1 {
			t.Fatalf("pixel %v", v)
		}
		sum += float64(v)
	}
	if math.Abs(sum-33456.0/255) > 1e-3 { // byte sum of image 0 is 33456
		t.Fatalf("pixel sum of image 0 = %v", sum)
	}
	_, _, err = LoadMNIST(dir+"/t10k-images-idx3-ubyte.gz", dir+"/no-such-labels.gz")
	expectError(t, err, IOError, "no-such-labels.gz")
}

// groupedAbPlusC is a*b in group "stage1" (a, b too), +c in group "stage2" (c too).
func groupedAbPlusC(t *testing.T) *Symbol {
	a := must(Variable("a"))
	b := must(Variable("b"))
	c := must(Variable("c"))
	check(t, a.SetAttr("ctx_group", "stage1"))
	check(t, b.SetAttr("ctx_group", "stage1"))
	check(t, c.SetAttr("ctx_group", "stage2"))
	ab := must(Apply("elemwise_mul", "ab", nil, a, b))
	check(t, ab.SetAttr("ctx_group", "stage1"))
	out := must(Apply("elemwise_add", "out", nil, ab, c))
	check(t, out.SetAttr("ctx_group", "stage2"))
	closeAll(t, a, b, c, ab)
	return out
}

// TestGroup2CtxPlacesArgumentsOnTheirGroupsDevice: SimpleBind with stage1 on
// cpu(1) and stage2 on cpu(2) allocates each group's arguments (and
// gradients) on its device, and forward/backward across the devices match the
// closed form; Bind takes arrays living on their group's device; a group
// missing from the map fails with DeviceError naming it.
// conformance: device.group2ctx_places_arguments
func TestGroup2CtxPlacesArgumentsOnTheirGroupsDevice(t *testing.T) {
	checkLive(t)
	g2c := map[string]Context{"stage1": CPU(1), "stage2": CPU(2)}
	f := groupedAbPlusC(t)
	defer f.Close()
	ex := must(SimpleBind(f, abShapes(2, 2), "write", WithGroup2Ctx(g2c)))
	defer ex.Close()
	args := must(ex.ArgArrays())
	grads := must(ex.GradArrays())
	for name, want := range map[string]Context{"a": CPU(1), "b": CPU(1), "c": CPU(2)} {
		if got := must(args[name].Context()); got != want {
			t.Errorf("argument %s on %v, want %v", name, got, want)
		}
	}
	if got := must(grads["c"].Context()); got != CPU(2) {
		t.Errorf("gradient of c on %v, want cpu(2)", got)
	}
	CloseAll(args)
	CloseAll(grads)
	check(t, checkAbPlusC(ex, 3))
	_, err := SimpleBind(f, abShapes(2, 2), "write", WithGroup2Ctx(map[string]Context{"stage1": CPU(1)}))
	expectError(t, err, DeviceError, "stage2")
	_, err = NewModule(f, []string{"a"}, nil, WithGroup2Ctx(g2c))
	expectError(t, err, InvalidArgument, "WithGroup2Ctx")

	a := must(NewNDArrayOn(CPU(1), Float32, 2))
	b := must(NewNDArrayOn(CPU(1), Float32, 2))
	c := must(NewNDArrayOn(CPU(2), Float32, 2))
	defer closeAll(t, a, b, c)
	check(t, a.CopyFromFloat32([]float32{1, 2}))
	check(t, b.CopyFromFloat32([]float32{3, 4}))
	check(t, c.CopyFromFloat32([]float32{5, 6}))
	bound := must(Bind(f, []*NDArray{a, b, c}, nil, nil, nil, WithGroup2Ctx(g2c)))
	defer bound.Close()
	check(t, bound.Forward(false))
	outs := must(bound.Outputs())
	defer CloseNamed(outs)
	if got := must(outs[0].Array.Context()); got != CPU(2) {
		t.Errorf("output on %v, want cpu(2)", got)
	}
	floatsEqual(t, must(outs[0].Array.ToFloat32()), []float32{8, 14})
}
