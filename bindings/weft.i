/*
 * weft.i: the single SWIG input for the Java, C# and Go bindings.
 *
 * It %includes the C ABI's area headers verbatim (those that the umbrella
 * c_api/include/weft/c_api.h includes; listed at the end of this file), so
 * every C ABI function gets a raw wrapper automatically; the hand-written
 * layer of each language (java/, csharp/, go/) turns the raw functions into
 * classes. The typemaps
 * below are generic over the C ABI's conventions, so a new function usually
 * needs no change here:
 *
 * - A WeftStatus return becomes the language's error INSIDE the same native
 *   call (weft_last_error() is read in the wrapper right after the failing
 *   call; Go may move a goroutine to another OS thread between two cgo calls,
 *   so the thread-local message must never be read in a second call):
 *     Java: the method throws ai.weft.WeftException(code, msg)
 *     C#:   the method throws Weft.WeftException(code, msg)
 *     Go:   the function returns error (*capi.Status{Code, Message}) or nil
 * - The C ABI names a function's one result `out` (a handle T**, int*,
 *   int64_t*, uint64_t* or size_t*). In Java and C# that parameter is not an
 *   argument: the method returns its value as a long (methods without one
 *   return 0). Go keeps the 1-element slice (its wrapper's one result is
 *   the error).
 *   Out-parameters are written only on success (as the C ABI guarantees).
 * - Opaque handles (WEFT_HANDLE(T) below; one line per handle type) are plain
 *   integers in Java (long) and Go (uintptr); in C# a handle argument is a
 *   Weft.WeftHandle (one SafeHandle for every kind, csharp/src/NativeHandle.cs)
 *   that the marshaller holds for the duration of the call. `T**` is an array of handles
 *   (out: one slot per handle; Java long[], C# long[], Go []uintptr) and
 *   `T* const*` an input array of handles.
 * - Non-const pointers to int/int64_t/size_t/float/double are in/out arrays
 *   (a scalar out-parameter is a 1-element array): Java arrays, C# arrays
 *   (blittable, pinned by the marshaller), Go slices; the const versions are
 *   input arrays. `const char* const*` is an input string array and
 *   `const char**` out strings (library-owned, copied).
 * - `void*` / `const void*` data pointers are zero-copy: Java direct
 *   java.nio.Buffer, C# IntPtr (the C# layer pins arrays with `fixed`), Go
 *   unsafe.Pointer (the Go layer passes a slice's first element).
 * - Element counts stay explicit parameters of the raw layer; the raw layer is
 *   not public (Java package-private, C# internal, Go internal package) and the
 *   hand-written layer derives every count from the array it passes.
 *
 * - C enums: Java and C# get int constants (below); the public enums take
 *   their values from them, and Go's from weft/c_api.h through cgo.
 *
 * weft_last_error()/weft_last_error_code() are not wrapped: reading them in a
 * second call is exactly the race described above.
 *
 * This file holds typemaps (and the helpers they call), not C API functions:
 * what a binding needs from libweft is a C ABI function in c_api/. The two
 * exceptions, weft_binding_abi_version() and weft_binding_library_path(),
 * must be compiled into the wrapper (see their comment at the end).
 */
%module weft_native

%{
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include <string>
#include <vector>

#include "weft/c_api.h"

/* Struct results as arrays: the fields of WeftExecutorMemory and
 * WeftPredictorStats (structs of counts) in declaration order, for the
 * struct-out typemaps (WEFT_STRUCT_OUT in each language section). */
static void WeftFields(const WeftExecutorMemory& m, uint64_t* f) {
  f[0] = m.naive_bytes;
  f[1] = m.planned_bytes;
  f[2] = m.num_storage;
  f[3] = m.num_inplace;
  f[4] = m.num_reused;
  f[5] = (uint64_t)m.match_range;
}
static void WeftFields(const WeftPredictorStats& s, uint64_t* f) {
  f[0] = s.executors;
  f[1] = s.shape_sets;
  f[2] = s.in_use;
  f[3] = s.weight_bytes;
  f[4] = s.activation_bytes;
}
%}

%ignore weft_last_error;
%ignore weft_last_error_code;
/* Enums: every value is written once, in the C headers. Java and C# get one
 * package-private class of int constants per C enum (WeftStatus.WEFT_ERR_SHAPE,
 * WeftDType.WEFT_FLOAT32, ...), from which the hand-written typed enums take
 * their values (ai.weft.ErrorCode.SHAPE, Weft.ErrorCode.Shape). Go skips them
 * here: SWIG would make variables set through cgo at start-up, but Go
 * constants must be constant; go/enums.go reads the values from weft/c_api.h
 * through cgo instead. Macros are not wrapped. */
#if defined(SWIGJAVA)
%include "enumtypeunsafe.swg"
%javaconst(1);
%typemap(javaclassmodifiers) enum SWIGTYPE "final class"
#elif defined(SWIGCSHARP)
%include "enumsimple.swg"
%csconst(1);
#else
%rename("$ignore", %$isenum) "";
%rename("$ignore", %$isenumitem) "";
#endif
%ignore WEFT_API_VERSION;
/* Struct results (WeftExecutorMemory, WeftPredictorStats: counts): the
 * structs are not wrapped (SWIG's proxy for size_t members does not marshal
 * in C#); the `T* out` of weft_executor_memory()/weft_predictor_stats() is
 * an array that receives the fields in declaration order (WeftFields above;
 * WEFT_ALL_STRUCT_OUTS below): Java long[], C# ulong[], Go []uint64. */
%ignore WeftExecutorMemory;
%ignore WeftPredictorStats;
%define WEFT_ALL_STRUCT_OUTS
WEFT_STRUCT_OUT(WeftExecutorMemory, 6)
WEFT_STRUCT_OUT(WeftPredictorStats, 5)
%enddef

/* One line per handle type of the C ABI (types not declared yet are
 * harmless). Each language section below defines WEFT_HANDLE(T) and applies
 * this list at once, before its own helpers that take handles. */
%define WEFT_ALL_HANDLES
WEFT_HANDLE(WeftNDArray)
WEFT_HANDLE(WeftSymbolHandle)
WEFT_HANDLE(WeftStringList)
WEFT_HANDLE(WeftShapeResult)
WEFT_HANDLE(WeftTypeResult)
WEFT_HANDLE(WeftExecutor)
WEFT_HANDLE(WeftNDArrayList)
WEFT_HANDLE(WeftBuffer)
WEFT_HANDLE(WeftDataIter)
WEFT_HANDLE(WeftMetric)
WEFT_HANDLE(WeftInitializer)
WEFT_HANDLE(WeftOptimizer)
WEFT_HANDLE(WeftModule)
WEFT_HANDLE(WeftKVStore)
WEFT_HANDLE(WeftPredictor)
WEFT_HANDLE(WeftExecutorOptions)
WEFT_HANDLE(WeftCachedOp)
WEFT_HANDLE(WeftTrainer)
WEFT_HANDLE(WeftFitSession)
WEFT_HANDLE(WeftRecordIOWriter)
WEFT_HANDLE(WeftRecordIOReader)
WEFT_HANDLE(WeftCustomOpCall)
%enddef

/* ======================================================================= */
#if defined(SWIGJAVA)
/* ======================================================================= */

%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
%typemap(javafinalize) SWIGTYPE ""

%{
/* Throws ai.weft.WeftException(code, message) in the current Java thread. */
static void WeftJavaThrow(JNIEnv* jenv, int code, const char* msg) {
  jclass cls = jenv->FindClass("ai/weft/WeftException");
  if (!cls) return; /* NoClassDefFoundError is pending */
  jmethodID ctor = jenv->GetMethodID(cls, "<init>", "(ILjava/lang/String;)V");
  if (!ctor) return;
  jstring jmsg = jenv->NewStringUTF(msg ? msg : "");
  jobject ex = jenv->NewObject(cls, ctor, (jint)code, jmsg);
  if (ex) jenv->Throw((jthrowable)ex);
}
/* Scratch storage for a small array argument: on the stack up to N elements
 * (no allocation on the common out-parameter path), else on the heap. */
template <typename T, size_t N = 8>
struct WeftScratch {
  T small[N];
  std::vector<T> big;
  T* p = nullptr;
  size_t n = 0;
  T* alloc(size_t count) {
    n = count;
    if (count <= N) {
      p = small;
    } else {
      big.resize(count);
      p = big.data();
    }
    return p;
  }
};
/* An argument error raised by the wrapper itself. */
static void WeftJavaArgError(JNIEnv* jenv, const char* msg) {
  WeftJavaThrow(jenv, WEFT_ERR_INVALID_ARGUMENT, msg);
}
/* weft_predictor_predict_float_with's copies for a float[] input and output:
 * straight between the JVM arrays and the executor's memory, on the calling
 * thread (inside the native call, so jenv is valid). */
struct WeftJavaFloatCopies {
  JNIEnv* env;
  jfloatArray in, out;
};
static int weft_java_copy_in(void* user, void* dst, size_t bytes) {
  WeftJavaFloatCopies* c = (WeftJavaFloatCopies*)user;
  const jsize n = (jsize)(bytes / sizeof(float));
  if (c->env->GetArrayLength(c->in) != n) return 1;
  c->env->GetFloatArrayRegion(c->in, 0, n, (jfloat*)dst);
  return 0;
}
static int weft_java_copy_out(void* user, const void* src, size_t bytes) {
  WeftJavaFloatCopies* c = (WeftJavaFloatCopies*)user;
  const jsize n = (jsize)(bytes / sizeof(float));
  if (c->env->GetArrayLength(c->out) != n) return 1;
  c->env->SetFloatArrayRegion(c->out, 0, n, (const jfloat*)src);
  return 0;
}
%}

/* A WeftStatus function returns a Java long: the value of its `out`
 * parameter (below) when it has one, else 0. */
%typemap(jni) WeftStatus "jlong"
%typemap(jtype) WeftStatus "long"
%typemap(jstype) WeftStatus "long"
%typemap(javaout) WeftStatus { return $jnicall; }
%typemap(out) WeftStatus %{
  if ($1 != WEFT_OK) {
    WeftJavaThrow(jenv, (int)$1, weft_last_error());
    return $null;
  }
  $result = 0;
%}
/* The C ABI's `out` parameter (a function's one result) is not an argument
 * in Java: its value is the method's return value. */
%define WEFT_JAVA_RETURNED(CT)
%typemap(in, numinputs=0) CT* out (CT temp = 0) %{ $1 = &temp; %}
%typemap(argout) CT* out %{ jresult = (jlong)temp$argnum; %}
%enddef
WEFT_JAVA_RETURNED(int)
WEFT_JAVA_RETURNED(size_t)
WEFT_JAVA_RETURNED(int64_t)
WEFT_JAVA_RETURNED(uint64_t)

/* A struct result: a long[] of at least N elements receives its fields. */
%define WEFT_STRUCT_OUT(T, N)
%typemap(jni) T* out "jlongArray"
%typemap(jtype) T* out "long[]"
%typemap(jstype) T* out "long[]"
%typemap(javain) T* out "$javainput"
%typemap(in) T* out (T temp) %{
  if (!$input || jenv->GetArrayLength($input) < (jsize)N) {
    WeftJavaArgError(jenv, "the array for a struct result is null or too short");
    return $null;
  }
  $1 = &temp;
%}
%typemap(argout) T* out %{
  {
    uint64_t f[N];
    WeftFields(temp$argnum, f);
    jenv->SetLongArrayRegion($input, 0, (jsize)N, (const jlong*)f);
  }
%}
%enddef
WEFT_ALL_STRUCT_OUTS

%define WEFT_HANDLE(T)
%typemap(jni) T*, const T* "jlong"
%typemap(jtype) T*, const T* "long"
%typemap(jstype) T*, const T* "long"
%typemap(javain) T*, const T* "$javainput"
%typemap(javaout) T*, const T* { return $jnicall; }
%typemap(in) T*, const T* %{ $1 = ($1_ltype)(uintptr_t)$input; %}
%typemap(out) T*, const T* %{ $result = (jlong)(uintptr_t)$1; %}
/* T** : long[] of handles, in/out (every slot copied back on success). */
%typemap(jni) T**, T* const* "jlongArray"
%typemap(jtype) T**, T* const* "long[]"
%typemap(jstype) T**, T* const* "long[]"
%typemap(javain) T**, T* const* "$javainput"
%typemap(in) T** (WeftScratch<T*> hv), T* const* (WeftScratch<T*> hv) %{
  static_assert(sizeof(jlong) == sizeof(T*), "handles are 64-bit");
  $1 = NULL;
  if ($input) {
    jsize n = jenv->GetArrayLength($input);
    T** p = hv.alloc((size_t)n);
    if (n) jenv->GetLongArrayRegion($input, 0, n, (jlong*)p);
    $1 = ($1_ltype)p;
  }
%}
%typemap(argout) T** %{
  if ($input && hv$argnum.n) jenv->SetLongArrayRegion($input, 0, (jsize)hv$argnum.n, (const jlong*)hv$argnum.p);
%}
/* T** out: the new handle is the return value. */
%typemap(in, numinputs=0) T** out (T* temp = NULL) %{ $1 = &temp; %}
%typemap(argout) T** out %{ jresult = (jlong)(uintptr_t)temp$argnum; %}
%enddef
WEFT_ALL_HANDLES

/* Arrays of a primitive C type: const CT* = input, CT* = in/out. */
%define WEFT_JAVA_ARRAY(CT, JNIT, JARR, JT, REGION)
%typemap(jni) CT*, const CT* #JARR
%typemap(jtype) CT*, const CT* #JT "[]"
%typemap(jstype) CT*, const CT* #JT "[]"
%typemap(javain) CT*, const CT* "$javainput"
%typemap(in) CT* (WeftScratch<CT> av), const CT* (WeftScratch<CT> av) %{
  static_assert(sizeof(JNIT) == sizeof(CT), "JNI and C element sizes differ");
  $1 = NULL;
  if ($input) {
    jsize n = jenv->GetArrayLength($input);
    CT* p = av.alloc((size_t)n);
    if (n) jenv->Get##REGION##ArrayRegion($input, 0, n, (JNIT*)p);
    $1 = ($1_ltype)p;
  }
%}
%typemap(argout) CT* %{
  if ($input && av$argnum.n) jenv->Set##REGION##ArrayRegion($input, 0, (jsize)av$argnum.n, (const JNIT*)av$argnum.p);
%}
%typemap(argout) const CT* ""
%enddef
WEFT_JAVA_ARRAY(int, jint, jintArray, int, Int)
WEFT_JAVA_ARRAY(int64_t, jlong, jlongArray, long, Long)
WEFT_JAVA_ARRAY(size_t, jlong, jlongArray, long, Long)
WEFT_JAVA_ARRAY(uint64_t, jlong, jlongArray, long, Long)
WEFT_JAVA_ARRAY(float, jfloat, jfloatArray, float, Float)
WEFT_JAVA_ARRAY(double, jdouble, jdoubleArray, double, Double)

/* size_t/int64_t scalars are Java long. */
%typemap(jni) size_t "jlong"
%typemap(jtype) size_t "long"
%typemap(jstype) size_t "long"
%typemap(javain) size_t "$javainput"
%typemap(javaout) size_t { return $jnicall; }
%typemap(in) size_t %{ $1 = ($1_ltype)$input; %}
%typemap(out) size_t %{ $result = (jlong)$1; %}
%typemap(jni) int64_t "jlong"
%typemap(jtype) int64_t "long"
%typemap(jstype) int64_t "long"
%typemap(javain) int64_t "$javainput"
%typemap(javaout) int64_t { return $jnicall; }
%typemap(in) int64_t %{ $1 = ($1_ltype)$input; %}
%typemap(out) int64_t %{ $result = (jlong)$1; %}
%typemap(jni) uint64_t "jlong"
%typemap(jtype) uint64_t "long"
%typemap(jstype) uint64_t "long"
%typemap(javain) uint64_t "$javainput"
%typemap(javaout) uint64_t { return $jnicall; }
%typemap(in) uint64_t %{ $1 = ($1_ltype)$input; %}
%typemap(out) uint64_t %{ $result = (jlong)$1; %}

/* const char** : String[] out (library-owned strings are copied). */
%typemap(jni) const char** "jobjectArray"
%typemap(jtype) const char** "String[]"
%typemap(jstype) const char** "String[]"
%typemap(javain) const char** "$javainput"
%typemap(in) const char** (std::vector<const char*> sv) %{
  if ($input) {
    sv.assign((size_t)jenv->GetArrayLength($input), (const char*)NULL);
    $1 = ($1_ltype)sv.data();
  } else {
    $1 = NULL;
  }
%}
%typemap(argout) const char** %{
  if ($input) {
    for (size_t i = 0; i < sv$argnum.size(); ++i) {
      jstring s = sv$argnum[i] ? jenv->NewStringUTF(sv$argnum[i]) : NULL;
      jenv->SetObjectArrayElement($input, (jsize)i, s);
      if (s) jenv->DeleteLocalRef(s);
    }
  }
%}

/* const char* const* : String[] in (null elements stay NULL). */
%typemap(jni) const char* const* "jobjectArray"
%typemap(jtype) const char* const* "String[]"
%typemap(jstype) const char* const* "String[]"
%typemap(javain) const char* const* "$javainput"
%typemap(in) const char* const* (std::vector<std::string> ss, std::vector<const char*> sp) %{
  if ($input) {
    jsize n = jenv->GetArrayLength($input);
    ss.resize((size_t)n);
    sp.assign((size_t)n, (const char*)NULL);
    for (jsize i = 0; i < n; ++i) {
      jstring s = (jstring)jenv->GetObjectArrayElement($input, i);
      if (!s) continue;
      const char* c = jenv->GetStringUTFChars(s, NULL);
      if (!c) return $null;
      ss[(size_t)i] = c;
      jenv->ReleaseStringUTFChars(s, c);
      jenv->DeleteLocalRef(s);
      sp[(size_t)i] = ss[(size_t)i].c_str();
    }
    $1 = ($1_ltype)sp.data();
  } else {
    $1 = NULL;
  }
%}

/* void* / const void* : a direct java.nio.Buffer (zero-copy). */
%typemap(jni) void*, const void* "jobject"
%typemap(jtype) void*, const void* "java.nio.Buffer"
%typemap(jstype) void*, const void* "java.nio.Buffer"
%typemap(javain) void*, const void* "$javainput"
%typemap(in) void*, const void* %{
  $1 = NULL;
  if ($input) {
    $1 = ($1_ltype)jenv->GetDirectBufferAddress($input);
    if (!$1) {
      WeftJavaArgError(jenv, "buffer is not a direct java.nio.Buffer");
      return $null;
    }
  }
%}

/* The array overloads of weft_ndarray_copy_from/_to (declared at the end of
 * this file): float[]/double[], copied through a temporary native buffer. */
%define WEFT_JAVA_COPY(CT, JNIT, JARR, JT, REGION)
%typemap(jni) const CT* ARRAY_IN, CT* ARRAY_OUT #JARR
%typemap(jtype) const CT* ARRAY_IN, CT* ARRAY_OUT #JT "[]"
%typemap(jstype) const CT* ARRAY_IN, CT* ARRAY_OUT #JT "[]"
%typemap(javain) const CT* ARRAY_IN, CT* ARRAY_OUT "$javainput"
%typemap(in) const CT* ARRAY_IN (std::vector<CT> buf) %{
  if (!$input) { WeftJavaArgError(jenv, "array is null"); return $null; }
  buf.resize((size_t)jenv->GetArrayLength($input));
  if (!buf.empty()) jenv->Get##REGION##ArrayRegion($input, 0, (jsize)buf.size(), (JNIT*)buf.data());
  $1 = buf.data();
%}
%typemap(in) CT* ARRAY_OUT (std::vector<CT> buf) %{
  if (!$input) { WeftJavaArgError(jenv, "array is null"); return $null; }
  buf.resize((size_t)jenv->GetArrayLength($input));
  $1 = buf.data();
%}
%typemap(argout) CT* ARRAY_OUT %{
  if (!buf$argnum.empty()) jenv->Set##REGION##ArrayRegion($input, 0, (jsize)buf$argnum.size(), (const JNIT*)buf$argnum.data());
%}
%typemap(argout) const CT* ARRAY_IN ""
%enddef
WEFT_JAVA_COPY(float, jfloat, jfloatArray, float, Float)
WEFT_JAVA_COPY(double, jdouble, jdoubleArray, double, Double)
/* weft_ndarray_copy_from_float32/_to_float32 (the only `float* data`): float[]. */
%apply const float* ARRAY_IN { const float* data };
%apply float* ARRAY_OUT { float* data };

/* weft_buffer_data()'s (const void** out_data, size_t* out_size): a
 * ByteBuffer[1] receives a direct view of the buffer's bytes, valid until
 * weft_buffer_free() (the Java layer copies it at once). */
%typemap(jni) (const void** out_data, size_t* out_size) "jobjectArray"
%typemap(jtype) (const void** out_data, size_t* out_size) "java.nio.ByteBuffer[]"
%typemap(jstype) (const void** out_data, size_t* out_size) "java.nio.ByteBuffer[]"
%typemap(javain) (const void** out_data, size_t* out_size) "$javainput"
%typemap(in) (const void** out_data, size_t* out_size) (const void* data = NULL, size_t size = 0) %{
  if (!$input || jenv->GetArrayLength($input) < 1) {
    WeftJavaArgError(jenv, "expected a ByteBuffer[1]");
    return $null;
  }
  $1 = ($1_ltype)&data;
  $2 = &size;
%}
%typemap(argout) (const void** out_data, size_t* out_size) %{
  {
    static char empty;
    jobject view = jenv->NewDirectByteBuffer(*$1 ? (void*)*$1 : (void*)&empty, (jlong)*$2);
    if (!view) return $null;
    jenv->SetObjectArrayElement($input, 0, view);
    jenv->DeleteLocalRef(view);
  }
%}

/* Predictor (Java). The handle (its stats: the struct result above);
 * predict's data pointers as Buffer[] of
 * direct buffers (zero-copy: each element's address is passed as is, the
 * Java layer slices buffers whose position is not 0); predict_float's output
 * is write-only (not copied in). The float[] path is predict_float_with, its
 * copies {input, output} as one float[][]: Get/SetFloatArrayRegion straight
 * into and out of the executor's arrays (one copy each way). A JNI critical
 * array is not used because predict may block waiting for an executor, which
 * a critical region must not do. */
%apply float* ARRAY_OUT { float* output };
%typemap(jni) (WeftPredictorCopyIn copy_in, WeftPredictorCopyOut copy_out, void* user) "jobjectArray"
%typemap(jtype) (WeftPredictorCopyIn copy_in, WeftPredictorCopyOut copy_out, void* user) "float[][]"
%typemap(jstype) (WeftPredictorCopyIn copy_in, WeftPredictorCopyOut copy_out, void* user) "float[][]"
%typemap(javain) (WeftPredictorCopyIn copy_in, WeftPredictorCopyOut copy_out, void* user) "$javainput"
%typemap(in) (WeftPredictorCopyIn copy_in, WeftPredictorCopyOut copy_out, void* user)
    (WeftJavaFloatCopies io) %{
  io.env = jenv;
  io.in = $input && jenv->GetArrayLength($input) == 2
              ? (jfloatArray)jenv->GetObjectArrayElement($input, 0) : NULL;
  io.out = io.in ? (jfloatArray)jenv->GetObjectArrayElement($input, 1) : NULL;
  if (!io.in || !io.out) {
    WeftJavaArgError(jenv, "expected {input, output}: two non-null float arrays");
    return $null;
  }
  $1 = weft_java_copy_in;
  $2 = weft_java_copy_out;
  $3 = &io;
%}
%typemap(jni) const void* const* input_data, void* const* output_data "jobjectArray"
%typemap(jtype) const void* const* input_data, void* const* output_data "java.nio.Buffer[]"
%typemap(jstype) const void* const* input_data, void* const* output_data "java.nio.Buffer[]"
%typemap(javain) const void* const* input_data, void* const* output_data "$javainput"
%typemap(in) const void* const* input_data (std::vector<void*> bp),
             void* const* output_data (std::vector<void*> bp) %{
  $1 = NULL;
  if ($input) {
    jsize n = jenv->GetArrayLength($input);
    bp.assign((size_t)n, (void*)NULL);
    for (jsize i = 0; i < n; ++i) {
      jobject b = jenv->GetObjectArrayElement($input, i);
      void* p = b ? jenv->GetDirectBufferAddress(b) : NULL;
      if (b) jenv->DeleteLocalRef(b);
      if (!p) {
        std::string m = "data buffer " + std::to_string((long)i) + " is null or not a direct java.nio.Buffer";
        WeftJavaArgError(jenv, m.c_str());
        return $null;
      }
      bp[(size_t)i] = p;
    }
    $1 = ($1_ltype)bp.data();
  }
%}


/* Custom operators (Java): weft_custom_op_register_host's dispatch is not an
 * argument: the wrapper passes WeftJavaCustomOpDispatch, a hand-written JNI
 * trampoline into ai.weft.CustomOps.dispatch(int, long, long). Chosen over
 * SWIG directors: one static entry point needs no director classes, no
 * array typemaps for callbacks and no per-object global references, and the
 * attach policy is ours. An engine thread calling back for the first time
 * is attached as a daemon (it never keeps the JVM from exiting) and stays
 * attached until it exits, when a thread_local guard detaches it: one
 * attach per thread, not per call. The class is resolved while registering,
 * on a Java thread (FindClass on an attached native thread would use the
 * system class loader, which need not see ai.weft). Local references made
 * during a callback are released by a local frame. */
%{
#include <stdlib.h>
#include <atomic>
#include <mutex>
static JavaVM* weft_java_vm = NULL;
static jclass weft_java_custom_ops = NULL;  /* global reference */
static jmethodID weft_java_custom_dispatch = NULL;
/* Set by an atexit handler: once the process exits (after the JVM has), a
 * thread leaving must not detach: DetachCurrentThread blocks forever after
 * VM exit, and exit() joins the engine's threads in libweft's destructors.
 * The handler is registered when the first engine thread attaches, i.e.
 * after libweft's engine exists, so it runs before the engine's destructor. */
static std::atomic<bool> weft_java_exiting(false);
static void WeftJavaExiting(void) { weft_java_exiting = true; }
struct WeftJavaDetach {
  bool attached = false;
  ~WeftJavaDetach() {
    if (attached && weft_java_vm && !weft_java_exiting) weft_java_vm->DetachCurrentThread();
  }
};
static thread_local WeftJavaDetach weft_java_detach;
static bool WeftJavaCustomOpInit(JNIEnv* jenv) {
  if (weft_java_custom_dispatch) return true;
  jclass cls = jenv->FindClass("ai/weft/CustomOps");
  if (!cls || jenv->GetJavaVM(&weft_java_vm) != JNI_OK) return false;
  jmethodID mid = jenv->GetStaticMethodID(cls, "dispatch", "(IJJ)V");
  if (!mid) return false;
  weft_java_custom_ops = (jclass)jenv->NewGlobalRef(cls);
  weft_java_custom_dispatch = mid;
  return true;
}
/* The calling thread's JNIEnv with a local frame pushed (the caller pops
 * it), attaching a native thread as a daemon first; NULL and *err set when
 * the JVM refuses. */
static JNIEnv* WeftJavaEnter(const char** err) {
  JNIEnv* env = NULL;
  jint st = weft_java_vm->GetEnv((void**)&env, JNI_VERSION_1_8);
  if (st == JNI_EDETACHED) {
    JavaVMAttachArgs args = {JNI_VERSION_1_8, (char*)"weft-engine", NULL};
    if (weft_java_vm->AttachCurrentThreadAsDaemon((void**)&env, &args) != JNI_OK) {
      *err = "cannot attach the engine thread to the JVM";
      return NULL;
    }
    weft_java_detach.attached = true;
    static std::once_flag at_exit;
    std::call_once(at_exit, [] { atexit(WeftJavaExiting); });
  } else if (st != JNI_OK) {
    *err = "the JVM refused the engine thread";
    return NULL;
  }
  if (env->PushLocalFrame(16) != 0) {
    env->ExceptionClear();
    *err = "out of JVM memory for a callback";
    return NULL;
  }
  return env;
}
static void WeftJavaCustomOpDispatch(int kind, int64_t id, WeftCustomOpCall* call) {
  const char* err = NULL;
  JNIEnv* env = WeftJavaEnter(&err);
  if (!env) {
    weft_custom_op_call_fail(call, err);
    return;
  }
  env->CallStaticVoidMethod(weft_java_custom_ops, weft_java_custom_dispatch, (jint)kind,
                            (jlong)id, (jlong)(uintptr_t)call);
  if (env->ExceptionCheck()) { /* dispatch catches Throwable; this is one it could not report */
    env->ExceptionClear();
    weft_custom_op_call_fail(call, "the Java callback threw and its error could not be reported");
  }
  env->PopLocalFrame(NULL);
}
%}
%typemap(in, numinputs=0) WeftCustomOpDispatch dispatch %{
  if (!WeftJavaCustomOpInit(jenv)) return $null; /* the JNI error is pending */
  $1 = WeftJavaCustomOpDispatch;
%}

/* Monitor callbacks (Java): the callback and its user pointer are one Java
 * long, an id in ai.weft.Monitors' table (0: no monitor); the library calls
 * WeftJavaMonitorDispatch, a JNI trampoline into
 * ai.weft.Monitors.dispatch(long id, String name, long array) -> String
 * (null, or the error that fails the monitored call). Monitor callbacks run
 * on the thread calling forward/backward/predict/invoke (a Java thread; a
 * native one would be attached as above). The returned message lives in a
 * thread-local string until the library has copied it. */
%{
static jclass weft_java_monitors = NULL; /* global reference */
static jmethodID weft_java_monitor_dispatch = NULL;
static bool WeftJavaMonitorInit(JNIEnv* jenv) {
  if (weft_java_monitor_dispatch) return true;
  jclass cls = jenv->FindClass("ai/weft/Monitors");
  if (!cls || jenv->GetJavaVM(&weft_java_vm) != JNI_OK) return false;
  jmethodID mid = jenv->GetStaticMethodID(cls, "dispatch", "(JLjava/lang/String;J)Ljava/lang/String;");
  if (!mid) return false;
  weft_java_monitors = (jclass)jenv->NewGlobalRef(cls);
  weft_java_monitor_dispatch = mid;
  return true;
}
static const char* WeftJavaMonitorDispatch(const char* name, WeftNDArray* array, void* user) {
  static thread_local std::string message;
  const char* err = NULL;
  JNIEnv* env = WeftJavaEnter(&err);
  if (!env) return err;
  jstring jname = env->NewStringUTF(name);
  jstring r = jname ? (jstring)env->CallStaticObjectMethod(weft_java_monitors,
                                                            weft_java_monitor_dispatch,
                                                            (jlong)(intptr_t)user, jname,
                                                            (jlong)(uintptr_t)array)
                    : NULL;
  const char* result = NULL;
  if (env->ExceptionCheck()) { /* dispatch catches Throwable; this is one it could not report */
    env->ExceptionClear();
    result = "the Java monitor callback threw and its error could not be reported";
  } else if (r) {
    const char* utf = env->GetStringUTFChars(r, NULL);
    message = utf ? utf : "the Java monitor callback failed (out of memory for its message)";
    if (utf) env->ReleaseStringUTFChars(r, utf);
    result = message.c_str();
  }
  env->PopLocalFrame(NULL);
  return result;
}
%}
%typemap(jni) (WeftMonitorCallback callback, void* user) "jlong"
%typemap(jtype) (WeftMonitorCallback callback, void* user) "long"
%typemap(jstype) (WeftMonitorCallback callback, void* user) "long"
%typemap(javain) (WeftMonitorCallback callback, void* user) "$javainput"
%typemap(in) (WeftMonitorCallback callback, void* user) %{
  if ($input != 0 && !WeftJavaMonitorInit(jenv)) return $null; /* the JNI error is pending */
  $1 = $input != 0 ? WeftJavaMonitorDispatch : NULL;
  $2 = (void*)(intptr_t)$input;
%}

/* ======================================================================= */
#elif defined(SWIGCSHARP)
/* ======================================================================= */

%pragma(csharp) moduleclassmodifiers="internal class"
%typemap(csclassmodifiers) SWIGTYPE "internal class"

/* WeftException(code, message) is created by a callback registered from the
 * PINVOKE class and raised when the wrapper returns (SWIG's pending-exception
 * mechanism), so the message is captured inside the failing native call. */
%insert(runtime) %{
typedef void (SWIGSTDCALL* WeftCSharpExceptionCallback_t)(int code, const char* msg);
static WeftCSharpExceptionCallback_t weft_csharp_exception_callback = NULL;
extern "C" SWIGEXPORT void SWIGSTDCALL WeftRegisterExceptionCallback_weft_native(
    WeftCSharpExceptionCallback_t cb) {
  weft_csharp_exception_callback = cb;
}
static void WeftCSharpThrow(int code, const char* msg) {
  if (weft_csharp_exception_callback) weft_csharp_exception_callback(code, msg ? msg : "");
}
%}
%pragma(csharp) imclasscode=%{
  internal class WeftExceptionHelper {
    public delegate void WeftExceptionDelegate(int code, string message);
    static WeftExceptionDelegate weftDelegate = new WeftExceptionDelegate(SetPending);

    [global::System.Runtime.InteropServices.DllImport("$dllimport",
        EntryPoint = "WeftRegisterExceptionCallback_weft_native")]
    public static extern void WeftRegisterExceptionCallback(WeftExceptionDelegate cb);

    static void SetPending(int code, string message) {
      SWIGPendingException.Set(new Weft.WeftException((Weft.ErrorCode)code, message));
    }

    static WeftExceptionHelper() { WeftRegisterExceptionCallback(weftDelegate); }
  }
  internal static WeftExceptionHelper weftExceptionHelper = new WeftExceptionHelper();
%}

/* A WeftStatus function returns a C# long: the value of its `out`
 * parameter (below) when it has one, else 0. A disposed WeftHandle
 * argument: the marshaller's ObjectDisposedException becomes
 * WeftException(InvalidHandle) like every other handle error. */
%typemap(ctype) WeftStatus "int64_t"
%typemap(imtype) WeftStatus "long"
%typemap(cstype) WeftStatus "long"
%typemap(csout, excode=SWIGEXCODE) WeftStatus {
    long r;
    try {
      r = $imcall;
    } catch (global::System.ObjectDisposedException) {
      throw Weft.WeftHandle.Disposed("a handle argument");
    }$excode
    return r;
  }
%typemap(out, canthrow=1) WeftStatus %{
  if ($1 != WEFT_OK) {
    WeftCSharpThrow((int)$1, weft_last_error());
    return 0;
  }
  $result = 0;
%}
/* The C ABI's `out` parameter (a function's one result) is not an argument
 * in C#: its value is the method's return value. */
%define WEFT_CS_RETURNED(CT)
%typemap(in, numinputs=0) CT* out (CT temp = 0) %{ $1 = &temp; %}
%typemap(argout) CT* out %{ jresult = (int64_t)temp$argnum; %}
%enddef
WEFT_CS_RETURNED(int)
WEFT_CS_RETURNED(size_t)
WEFT_CS_RETURNED(int64_t)
WEFT_CS_RETURNED(uint64_t)

/* A struct result: a ulong[] (pinned; at least N elements) receives its
 * fields; a null array passes NULL (the C function's argument error). */
%define WEFT_STRUCT_OUT(T, N)
%typemap(ctype) T* out "uint64_t*"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") T* out "ulong[]"
%typemap(cstype) T* out "ulong[]"
%typemap(csin) T* out "$csinput"
%typemap(in) T* out (T temp, uint64_t* fields) %{
  fields = $input;
  $1 = fields ? &temp : NULL;
%}
%typemap(argout) T* out %{ WeftFields(temp$argnum, fields$argnum); %}
%enddef
WEFT_ALL_STRUCT_OUTS

/* A handle argument is a Weft.WeftHandle (a SafeHandle, NativeHandle.cs):
 * the marshaller holds a reference on it for the duration of the call, so
 * neither a racing Dispose nor the finalizer of an owner that became
 * unreachable frees it under the call. No C function returns a handle. */
%define WEFT_HANDLE(T)
%typemap(ctype) T*, const T* "void*"
%typemap(imtype) T*, const T* "WeftHandle"
%typemap(cstype) T*, const T* "WeftHandle"
%typemap(csin) T*, const T* "$csinput"
%typemap(in) T*, const T* %{ $1 = ($1_ltype)$input; %}
/* Handle arrays: long[] of raw values (out: new handles the C# layer wraps
 * at once; in: the C# layer keeps the owners alive with GC.KeepAlive). */
%typemap(ctype) T**, T* const* "int64_t*"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") T**, T* const* "long[]"
%typemap(cstype) T**, T* const* "long[]"
%typemap(csin) T**, T* const* "$csinput"
%typemap(in) T**, T* const* %{ $1 = ($1_ltype)$input; %}
/* T** out: the new handle is the return value. */
%typemap(in, numinputs=0) T** out (T* temp = NULL) %{ $1 = &temp; %}
%typemap(argout) T** out %{ jresult = (int64_t)(uintptr_t)temp$argnum; %}
%enddef
WEFT_ALL_HANDLES

/* Arrays of primitive types: blittable, pinned by the marshaller. */
%define WEFT_CS_ARRAY(CT, CST)
%typemap(ctype) CT*, const CT* "CT*"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") CT*, const CT* #CST "[]"
%typemap(cstype) CT*, const CT* #CST "[]"
%typemap(csin) CT*, const CT* "$csinput"
%typemap(in) CT*, const CT* %{ $1 = ($1_ltype)$input; %}
%enddef
WEFT_CS_ARRAY(int, int)
WEFT_CS_ARRAY(int64_t, long)
WEFT_CS_ARRAY(size_t, ulong)
WEFT_CS_ARRAY(uint64_t, ulong)
WEFT_CS_ARRAY(float, float)
WEFT_CS_ARRAY(double, double)

%define WEFT_CS_SCALAR(CT, CST)
%typemap(ctype) CT "CT"
%typemap(imtype) CT #CST
%typemap(cstype) CT #CST
%typemap(csin) CT "$csinput"
%typemap(csout, excode=SWIGEXCODE) CT { CST r = $imcall;$excode return r; }
%typemap(in) CT %{ $1 = ($1_ltype)$input; %}
%typemap(out) CT %{ $result = $1; %}
%enddef
WEFT_CS_SCALAR(size_t, ulong)
WEFT_CS_SCALAR(int64_t, long)
WEFT_CS_SCALAR(uint64_t, ulong)

/* const char** : out strings as IntPtr[] (the C# layer copies them). */
%typemap(ctype) const char** "const char**"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") const char** "global::System.IntPtr[]"
%typemap(cstype) const char** "global::System.IntPtr[]"
%typemap(csin) const char** "$csinput"
%typemap(in) const char** %{ $1 = ($1_ltype)$input; %}

/* const void** : out data pointers as IntPtr[] (weft_buffer_data; the C#
 * layer copies the bytes with Marshal.Copy). */
%typemap(ctype) const void** "const void**"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") const void** "global::System.IntPtr[]"
%typemap(cstype) const void** "global::System.IntPtr[]"
%typemap(csin) const void** "$csinput"
%typemap(in) const void** %{ $1 = ($1_ltype)$input; %}

/* const char* const* : string[] in. */
%typemap(ctype) const char* const* "const char**"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.MarshalAs(global::System.Runtime.InteropServices.UnmanagedType.LPArray, ArraySubType = global::System.Runtime.InteropServices.UnmanagedType.LPStr)]") const char* const* "string[]"
%typemap(cstype) const char* const* "string[]"
%typemap(csin) const char* const* "$csinput"
%typemap(in) const char* const* %{ $1 = ($1_ltype)$input; %}

/* void* / const void* : IntPtr (zero-copy; the C# layer pins with fixed). */
%typemap(ctype) void*, const void* "void*"
%typemap(imtype) void*, const void* "global::System.IntPtr"
%typemap(cstype) void*, const void* "global::System.IntPtr"
%typemap(csin) void*, const void* "$csinput"
%typemap(in) void*, const void* %{ $1 = ($1_ltype)$input; %}

/* Predictor (csharp/src/Predictor.cs). WeftPredictor is a handle (WeftHandle);
 * its stats are a struct result (above). weft_predictor_predict_float's
 * float data are IntPtr (the void* typemaps), so the C# layer can pin a
 * Span<float>: these parameter names occur in no other function. The
 * N-input weft_predictor_predict (void* const*) is not used from C#; the
 * N-input PredictShaped packs into one pinned array each way and calls
 * weft_predictor_predict_packed_shaped. */
%apply const void* { const float* input };
%apply void* { float* output };
/* weft_ndarray_copy_from_float32/_to_float32: pinned float[] as IntPtr. */
%apply const void* { const float* data };
%apply void* { float* data };
%ignore weft_predictor_predict;
%ignore weft_predictor_predict_shaped;  /* PredictShaped uses the packed form */
%ignore weft_predictor_predict_float_with;  /* the C# layer pins and passes pointers */


/* Custom operators (C#): the dispatch is a Weft.CustomOpDispatch delegate,
 * which the C# layer keeps in a static field for the life of the process
 * (CustomOps.cs), so the function pointer the library holds never outlives
 * it. Mono attaches an engine thread to the runtime when it first enters
 * the delegate, and the thread stays attached (parked in native code
 * between callbacks). Known issue: Mono 6.8 then does not exit (its shutdown
 * waits on those threads; marking them background does not help, and
 * detaching them after each callback with mono_thread_detach crashed in
 * mono_thread_current), so CTest runs the C# custom operator tests on the
 * naive engine, where callbacks run on the calling thread. */
%typemap(ctype) WeftCustomOpDispatch "WeftCustomOpDispatch"
%typemap(imtype) WeftCustomOpDispatch "Weft.CustomOpDispatch"
%typemap(cstype) WeftCustomOpDispatch "Weft.CustomOpDispatch"
%typemap(csin) WeftCustomOpDispatch "$csinput"
%typemap(in) WeftCustomOpDispatch %{ $1 = $input; %}

/* Monitor callbacks (C#): the callback is the Weft.MonitorDispatch delegate
 * Monitors.cs keeps in a static field (or null: no monitor) and the user
 * pointer a long id in its table. Monitor callbacks run on the thread that
 * calls forward/backward/predict/invoke (a managed thread). */
%typemap(ctype) WeftMonitorCallback "WeftMonitorCallback"
%typemap(imtype) WeftMonitorCallback "Weft.MonitorDispatch"
%typemap(cstype) WeftMonitorCallback "Weft.MonitorDispatch"
%typemap(csin) WeftMonitorCallback "$csinput"
%typemap(in) WeftMonitorCallback %{ $1 = $input; %}
%typemap(ctype) void* user "void*"
%typemap(imtype) void* user "System.IntPtr"
%typemap(cstype) void* user "long"
%typemap(csin) void* user "new System.IntPtr($csinput)"
%typemap(in) void* user %{ $1 = $input; %}

/* ======================================================================= */
#elif defined(SWIGGO)
/* ======================================================================= */

%go_import("unsafe")

/* Compile and link flags for cgo from pkg-config (weft.pc: the installed one,
 * or build/pkgconfig-uninstalled for the build tree; set PKG_CONFIG_PATH). */
%insert(cgo_comment_typedefs) %{
#cgo pkg-config: weft
#cgo CXXFLAGS: -std=c++17
%}

%insert(go_wrapper) %{
// Status is a non-OK WeftStatus with the message captured in the same call.
type Status struct {
	Code    int
	Message string
}

func (s *Status) Error() string { return s.Message }

// weftStatus decodes "" (OK) or "<code>:<message>".
func weftStatus(s string) error {
	if s == "" {
		return nil
	}
	code := 0
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		code = code*10 + int(s[i]-'0')
	}
	if i < len(s) && s[i] == ':' {
		i++
	}
	return &Status{Code: code, Message: s[i:]}
}

// weftJoin packs strings as consecutive NUL-terminated bytes (a []string
// holds Go pointers and may not be passed to C).
func weftJoin(ss []string) string {
	if ss == nil {
		return ""
	}
	n := 0
	for _, s := range ss {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range ss {
		b = append(b, s...)
		b = append(b, 0)
	}
	return string(b)
}
%}

%fragment("WeftGoStatus", "header", fragment="AllocateString") %{
static _gostring_ WeftGoStatus(WeftStatus st) {
  if (st == WEFT_OK) { _gostring_ r = {NULL, 0}; return r; }
  std::string m = std::to_string((int)st) + ":" + weft_last_error();
  return Swig_AllocateString(m.data(), m.size());
}
%}

%typemap(gotype) WeftStatus "error"
%typemap(imtype) WeftStatus "string"
%typemap(out, fragment="WeftGoStatus") WeftStatus %{ $result = WeftGoStatus($1); %}
%typemap(goout, fragment="CopyString") WeftStatus %{
	if $1 == "" {
		$result = nil
	} else {
		$result = weftStatus(swigCopyString($1))
	}
%}

%define WEFT_HANDLE(T)
%typemap(gotype) T*, const T* "uintptr"
%typemap(imtype) T*, const T* "uintptr"
%typemap(in) T*, const T* %{ $1 = ($1_ltype)$input; %}
%typemap(out) T*, const T* %{ $result = (uintptr_t)$1; %}
%typemap(gotype) T**, T* const* "[]uintptr"
%typemap(imtype) T**, T* const* "[]uintptr"
%typemap(in) T**, T* const* %{ $1 = ($1_ltype)$input.array; %}
%enddef
WEFT_ALL_HANDLES

/* A struct result: a []uint64 of at least N elements receives its fields
 * (on success); a shorter slice passes NULL (the C function's argument
 * error). */
%define WEFT_STRUCT_OUT(T, N)
%typemap(gotype) T* out "[]uint64"
%typemap(imtype) T* out "[]uint64"
%typemap(in) T* out (T temp) %{ $1 = $input.len >= (intgo)N ? &temp : NULL; %}
%typemap(argout) T* out %{
  if ($1 && result == WEFT_OK) WeftFields(temp$argnum, (uint64_t*)$input.array);
%}
%enddef
WEFT_ALL_STRUCT_OUTS

/* Primitive pointers: Go slices (zero-copy for the call). */
%define WEFT_GO_ARRAY(CT, GT)
%typemap(gotype) CT*, const CT* "[]" #GT
%typemap(imtype) CT*, const CT* "[]" #GT
%typemap(in) CT*, const CT* %{ $1 = ($1_ltype)$input.array; %}
%enddef
WEFT_GO_ARRAY(int, int32)
WEFT_GO_ARRAY(int64_t, int64)
WEFT_GO_ARRAY(size_t, uint64)
WEFT_GO_ARRAY(uint64_t, uint64)
WEFT_GO_ARRAY(float, float32)
WEFT_GO_ARRAY(double, float64)

%typemap(gotype) size_t "uint64"
%typemap(imtype) size_t "uint64"
%typemap(gotype) int64_t "int64"
%typemap(imtype) int64_t "int64"
%typemap(in) int64_t %{ $1 = ($1_ltype)$input; %}
%typemap(out) int64_t %{ $result = $1; %}
%typemap(gotype) uint64_t "uint64"
%typemap(imtype) uint64_t "uint64"
%typemap(in) uint64_t %{ $1 = ($1_ltype)$input; %}
%typemap(out) uint64_t %{ $result = $1; %}

/* const char** : out strings, []string (library-owned strings are copied). */
%typemap(gotype) const char** "[]string"
%typemap(imtype) const char** "[]string"
%typemap(in) const char** (std::vector<const char*> sv) %{
  sv.assign((size_t)$input.len, (const char*)NULL);
  $1 = ($1_ltype)sv.data();
%}
%typemap(argout, fragment="AllocateString") const char** %{
  for (size_t i = 0; i < sv$argnum.size(); ++i)
    if (sv$argnum[i] && sv$argnum[i][0])
      ((_gostring_*)$input.array)[i] = Swig_AllocateString(sv$argnum[i], strlen(sv$argnum[i]));
%}
/* A fresh slice goes to C (the caller's may hold Go pointers, which cgo
 * forbids); the copies are stored back into the caller's slice. */
%typemap(goin) const char** %{ $result = make([]string, len($input)) %}
%typemap(goargout, fragment="CopyString") const char** %{
	for i := range $input {
		if $input[i] != "" {
			$1[i] = swigCopyString($input[i])
		} else {
			$1[i] = ""
		}
	}
%}

/* const char* const* : []string in, packed by weftJoin. */
%typemap(gotype) const char* const* "[]string"
%typemap(imtype) const char* const* "string"
%typemap(goin) const char* const* %{ $result = weftJoin($input) %}
%typemap(in) const char* const* (std::vector<const char*> sp) %{
  {
    const char* p = $input.p;
    const char* end = p + $input.n;
    while (p < end) {
      sp.push_back(p);
      p += strlen(p) + 1;
    }
    $1 = ($1_ltype)sp.data();
  }
%}

/* Optional string arguments: "" is NULL (a Go string cannot be nil). */
%typemap(in) const char* checkpoint_prefix %{
  $1 = NULL;
  if ($input.n) {
    $1 = ($1_ltype)malloc($input.n + 1);
    memcpy($1, $input.p, $input.n);
    $1[$input.n] = '\0';
  }
%}
%typemap(freearg) const char* checkpoint_prefix %{ free($1); %}

/* void* / const void* : unsafe.Pointer (zero-copy for the call). */
%typemap(gotype) void*, const void* "unsafe.Pointer"
%typemap(imtype) void*, const void* "unsafe.Pointer"
%typemap(in) void*, const void* %{ $1 = ($1_ltype)$input; %}

/* const void** : out data pointers, []unsafe.Pointer (weft_buffer_data; the
 * Go layer copies the bytes). */
%typemap(gotype) const void** "[]unsafe.Pointer"
%typemap(imtype) const void** "[]unsafe.Pointer"
%typemap(in) const void** %{ $1 = ($1_ltype)$input.array; %}

/* weft_ndarray_copy_from_float32/_to_float32: the slice's data pointer. */
%apply const void* { const float* data };
%apply void* { float* data };

/* Custom operators (Go): the dispatch is the address of the exported Go
 * function weftGoCustomOpDispatch (go/custom_op_dispatch.go), passed as a
 * uintptr; ids are cgo.Handle values, so C keeps no Go pointer. */
%typemap(gotype) WeftCustomOpDispatch "uintptr"
%typemap(imtype) WeftCustomOpDispatch "uintptr"
%typemap(in) WeftCustomOpDispatch %{ $1 = (WeftCustomOpDispatch)$input; %}

/* Monitor callbacks (Go): the callback is the address of the exported Go
 * function weftGoMonitorDispatch (go/monitor.go) or 0, and the user pointer
 * a cgo.Handle value, so C keeps no Go pointer. */
%typemap(gotype) WeftMonitorCallback "uintptr"
%typemap(imtype) WeftMonitorCallback "uintptr"
%typemap(in) WeftMonitorCallback %{ $1 = (WeftMonitorCallback)$input; %}
%typemap(gotype) void* user "uintptr"
%typemap(imtype) void* user "uintptr"
%typemap(in) void* user %{ $1 = (void*)$input; %}

/* Predictor (Go). The handle type (stats: the struct result above). An
 * array of pointers to Go memory (void* const*) may not be passed to C, so
 * the Go layer packs N inputs (outputs) into one buffer each and calls
 * weft_predictor_predict_packed (or _packed_shaped). */
%ignore weft_predictor_predict_float_with;  /* Go passes its slices to predict_float */
%ignore weft_predictor_predict;
%ignore weft_predictor_predict_shaped;  /* PredictTensorsShaped uses the packed form */

#endif

/* Compiled into the wrapper, not libweft (SWIG needs them here): the ABI
 * version the binding was compiled against, and the file libweft.so.0 was
 * loaded from. Both serve the check at load that the library is not older
 * than the binding, so they must work with an older libweft: a function of
 * libweft would report the library's own version, and an older library lacks
 * any function added to it later. */
%inline %{
/* The ABI version this wrapper was compiled against (checked at load). */
static int weft_binding_abi_version(void) { return WEFT_API_VERSION; }
/* The file the process loaded libweft.so.0 from, or "" when unknown; named in
 * the ABI-mismatch message at load. Looked up by SONAME among the loaded
 * objects (the address of a libweft function may be a PLT stub in a non-PIE
 * executable, so dladdr could name the program instead). */
static const char* weft_binding_library_path(void) {
  void* h = dlopen("libweft.so.0", RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) return "";
  struct link_map* map = NULL;
  const char* path = "";
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL) path = map->l_name;
  dlclose(h);  /* still loaded: the wrapper links it */
  return path;
}
%}

/* WEFT_API expands to a GCC attribute that SWIG need not see. */
#define __attribute__(x)
/* SWIG does not follow #include: every area header of weft/c_api.h (the
 * umbrella), in its order. A new area header goes in both lists; the test
 * abi.c_api_headers checks that both name every header. */
%include "weft/c_api_base.h"
%include "weft/c_api_op.h"
%include "weft/c_api_ndarray.h"
%include "weft/c_api_ndarray_io.h"
%include "weft/c_api_symbol.h"
%include "weft/c_api_place.h"
%include "weft/c_api_executor.h"
%include "weft/c_api_engine.h"
%include "weft/c_api_data.h"
%include "weft/c_api_optimizer.h"
%include "weft/c_api_module.h"
%include "weft/c_api_predictor.h"
%include "weft/c_api_kvstore.h"
%include "weft/c_api_autograd.h"
%include "weft/c_api_recordio.h"
%include "weft/c_api_amp.h"
%include "weft/c_api_quantize.h"
%include "weft/c_api_custom_op.h"
%include "weft/c_api_profiler.h"
%include "weft/c_api_op_library.h"
%include "weft/c_api_onnx.h"

#if defined(SWIGJAVA) || defined(SWIGCSHARP)
/* The array overloads of weft_ndarray_copy_from/_to: second declarations of
 * the same C functions (no code: the wrapper calls the C function, a float*
 * converting to its void*) so that the array typemaps apply. Java: float[] /
 * double[] (ARRAY_IN/ARRAY_OUT above); C#: float[] / double[] through the
 * marshaller. @p nbytes as in the C function (the layer passes length x
 * element size). Not in Go, whose overloads would dispatch on interface{}. */
WeftStatus weft_ndarray_copy_from(WeftNDArray* arr, const float* ARRAY_IN, size_t nbytes);
WeftStatus weft_ndarray_copy_from(WeftNDArray* arr, const double* ARRAY_IN, size_t nbytes);
WeftStatus weft_ndarray_copy_to(const WeftNDArray* arr, float* ARRAY_OUT, size_t nbytes);
WeftStatus weft_ndarray_copy_to(const WeftNDArray* arr, double* ARRAY_OUT, size_t nbytes);
#endif
