package weft

// The C ABI's enums as Go types. Every value is cgo's reading of c_api.h
// (SWIG would give variables set at start-up, not constants).

// #cgo pkg-config: weft
// #include <weft/c_api.h>
import "C"

// Code is a C ABI status code (WeftStatus). A Code is an error, so
// errors.Is(err, weft.NotFound) tests a returned *Error.
type Code int

// Status codes.
const (
	OK              Code = C.WEFT_OK
	InvalidArgument Code = C.WEFT_ERR_INVALID_ARGUMENT
	ShapeError      Code = C.WEFT_ERR_SHAPE
	DTypeError      Code = C.WEFT_ERR_DTYPE
	DeviceError     Code = C.WEFT_ERR_DEVICE
	OutOfMemory     Code = C.WEFT_ERR_OOM
	NotImplemented  Code = C.WEFT_ERR_NOT_IMPLEMENTED
	Internal        Code = C.WEFT_ERR_INTERNAL
	InvalidHandle   Code = C.WEFT_ERR_INVALID_HANDLE
	NotFound        Code = C.WEFT_ERR_NOT_FOUND
	IOError         Code = C.WEFT_ERR_IO
)

// DType is an element type (MXNet's codes, WeftDType).
type DType int

// Element types.
const (
	Float32 DType = C.WEFT_FLOAT32
	Float64 DType = C.WEFT_FLOAT64
	Float16 DType = C.WEFT_FLOAT16
	Uint8   DType = C.WEFT_UINT8
	Int32   DType = C.WEFT_INT32
	Int8    DType = C.WEFT_INT8
	Int64   DType = C.WEFT_INT64
	// BFloat16 is MXNet's code 12 (no Go type: see SetFloats / Floats).
	BFloat16 DType = C.WEFT_BFLOAT16
)

// DeviceType is a kind of device (WeftDeviceType).
type DeviceType int

// Device types.
const (
	CPUDevice DeviceType = C.WEFT_CPU
	GPUDevice DeviceType = C.WEFT_GPU
)

// GradReq is a gradient request for Bind (WeftReq).
type GradReq int

// Gradient requests.
const (
	GradNull  GradReq = C.WEFT_REQ_NULL
	GradWrite GradReq = C.WEFT_REQ_WRITE
	GradAdd   GradReq = C.WEFT_REQ_ADD
)

// Progress selects what Module.Fit prints on stdout (WeftProgress).
type Progress int

// Progress modes.
const (
	ProgressAuto   Progress = C.WEFT_PROGRESS_AUTO
	ProgressBar    Progress = C.WEFT_PROGRESS_BAR
	ProgressLines  Progress = C.WEFT_PROGRESS_LINES
	ProgressEpoch  Progress = C.WEFT_PROGRESS_EPOCH
	ProgressSilent Progress = C.WEFT_PROGRESS_SILENT
)

// fitEvent is what weft_fit_session_next did (WeftFitEvent).
type fitEvent int32

const (
	fitDone     fitEvent = C.WEFT_FIT_DONE
	fitBatchEnd fitEvent = C.WEFT_FIT_BATCH_END
	fitEpochEnd fitEvent = C.WEFT_FIT_EPOCH_END
)
