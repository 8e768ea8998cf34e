using System;
using System.Linq;
using System.Reflection;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Each public enum covers exactly the values of its C enum: the constants SWIG
/// generates from the C headers (weft/c_api.h) into the internal class
/// weft_native. A value added to a C enum without its typed member fails here.
/// </summary>
[TestFixture]
public class EnumsTests {
  static long[] CValues(string prefix) {
    var native = typeof(ErrorCode).Assembly.GetType("Weft.weft_native", true);
    return native.GetFields(BindingFlags.Public | BindingFlags.Static)
        .Where(f => f.IsLiteral && f.Name.StartsWith(prefix))
        .Select(f => Convert.ToInt64(f.GetRawConstantValue())).OrderBy(v => v).ToArray();
  }

  static long[] Codes<T>() {
    return Enum.GetValues(typeof(T)).Cast<object>().Select(v => Convert.ToInt64(v)).OrderBy(v => v).ToArray();
  }

  // conformance: enums.typed_enums_cover_c_enums
  [Test]
  public void TypedEnumsCoverTheCEnums() {
    Assert.AreEqual(CValues("WEFT_ERR_").Concat(CValues("WEFT_OK")).OrderBy(v => v).ToArray(), Codes<ErrorCode>());
    Assert.AreEqual(CValues("WEFT_FLOAT").Concat(CValues("WEFT_INT")).Concat(CValues("WEFT_UINT"))
        .Concat(CValues("WEFT_BFLOAT")).OrderBy(v => v).ToArray(), Codes<DType>());
    Assert.AreEqual(CValues("WEFT_CPU").Concat(CValues("WEFT_GPU")).OrderBy(v => v).ToArray(), Codes<DeviceType>());
    Assert.AreEqual(CValues("WEFT_REQ_"), Codes<GradReq>());
    Assert.AreEqual(CValues("WEFT_PROGRESS_"), Codes<Progress>());
  }
}

}
