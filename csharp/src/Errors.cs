using System;

namespace Weft {

/// <summary>The C ABI's status codes (stable values, WeftStatus in c_api.h).</summary>
public enum ErrorCode {
  Ok = 0,
  InvalidArgument = 1,
  Shape = 2,
  DType = 3,
  Device = 4,
  OutOfMemory = 5,
  NotImplemented = 6,
  Internal = 7,
  InvalidHandle = 8,
  NotFound = 9,
  IO = 10
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

/// <summary>Element types (MXNet's codes, WeftDType in c_api.h).</summary>
public enum DType {
  Float32 = 0,
  Float64 = 1,
  Float16 = 2,
  UInt8 = 3,
  Int32 = 4,
  Int8 = 5,
  Int64 = 6
}

}
