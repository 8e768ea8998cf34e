using System;

namespace Weft {

/// <summary>The C ABI's status codes (stable values, WeftStatus in c_api_base.h).</summary>
public enum ErrorCode {
  Ok = (int)weft_native.WEFT_OK,
  InvalidArgument = (int)weft_native.WEFT_ERR_INVALID_ARGUMENT,
  Shape = (int)weft_native.WEFT_ERR_SHAPE,
  DType = (int)weft_native.WEFT_ERR_DTYPE,
  Device = (int)weft_native.WEFT_ERR_DEVICE,
  OutOfMemory = (int)weft_native.WEFT_ERR_OOM,
  NotImplemented = (int)weft_native.WEFT_ERR_NOT_IMPLEMENTED,
  Internal = (int)weft_native.WEFT_ERR_INTERNAL,
  InvalidHandle = (int)weft_native.WEFT_ERR_INVALID_HANDLE,
  NotFound = (int)weft_native.WEFT_ERR_NOT_FOUND,
  IO = (int)weft_native.WEFT_ERR_IO
}

/// <summary>
/// A failed weft call: the native status code and the library's message
/// (captured inside the failing native call).
/// </summary>
[Serializable]
public class WeftException : Exception {
  public ErrorCode Code { get; private set; }

  public WeftException(ErrorCode code, string message) : base(message) { Code = code; }
}

/// <summary>Element types (MXNet's codes, WeftDType in c_api_base.h).</summary>
public enum DType {
  Float32 = weft_native.WEFT_FLOAT32,
  Float64 = weft_native.WEFT_FLOAT64,
  Float16 = weft_native.WEFT_FLOAT16,
  UInt8 = weft_native.WEFT_UINT8,
  Int32 = weft_native.WEFT_INT32,
  Int8 = weft_native.WEFT_INT8,
  Int64 = weft_native.WEFT_INT64,
  BFloat16 = weft_native.WEFT_BFLOAT16
}

}
