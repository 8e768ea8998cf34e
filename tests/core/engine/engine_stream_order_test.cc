// The engine's ordering of device work by events (device_order.cc), with a
// device whose streams and events only log what is asked of them: an op on
// a compute stream marks its variables instead of waiting; an op on the
// same stream waits for nothing; a copy-stream op makes its stream wait for
// the other streams' marks and then waits for its stream; an op without a
// stream blocks the host on the marks and drops them; a write replaces
// every mark; events are freed once no variable holds them; a failed host
// wait fails the op.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine_impl.h"
#include "weft/device.h"
#include "weft/status.h"

namespace weft {
namespace {

using engine::OprBlock;
using engine::OrderDeviceWork;
using engine::Var;

// Streams are the numbers 1, 2, ... cast to pointers; events count up.
class LoggingDevice final : public DeviceAPI {
 public:
  int DeviceCount() override { return 2; }
  void* Alloc(Context, size_t) override { Fail(StatusCode::kOutOfMemory, "no memory here"); }
  void Free(Context, void*) override {}
  void CopyToHost(Context, void*, const void*, size_t, void*) override {}
  void CopyFromHost(Context, void*, const void*, size_t, void*) override {}
  void CopyDevice(Context, void*, Context, const void*, size_t, void*) override {}
  void Synchronize(Context) override {}
  void MemoryInfo(Context, size_t* f, size_t* t) override { *f = *t = 0; }
  void SyncStream(Context, void* s) override { Log("sync-stream s" + Id(s)); }
  void* RecordEvent(Context, void* s) override {
    ++recorded;
    Log("record s" + Id(s) + " e" + std::to_string(recorded));
    return new int(recorded);
  }
  void StreamWaitEvent(Context, void* s, void* e) override {
    Log("s" + Id(s) + " waits e" + Ev(e));
  }
  void SyncEvent(Context, void* e) override {
    if (*static_cast<int*>(e) == fail_event)
      Fail(StatusCode::kDevice, "CUDA error: an illegal memory access");
    Log("host waits e" + Ev(e));
  }
  void FreeEvent(Context, void* e) override {
    ++freed;
    delete static_cast<int*>(e);
  }

  // The calls since the last Take(), in order.
  std::vector<std::string> Take() { return std::move(log_); }

  int recorded = 0, freed = 0, fail_event = -1;

 private:
  static std::string Id(void* s) { return std::to_string(reinterpret_cast<uintptr_t>(s)); }
  static std::string Ev(void* e) { return std::to_string(*static_cast<int*>(e)); }
  void Log(std::string s) { log_.push_back(std::move(s)); }
  std::vector<std::string> log_;
};

void* Stream(uintptr_t id) { return reinterpret_cast<void*>(id); }

class StreamOrderTest : public ::testing::Test {
 protected:
  // Runs an op reading `reads` and writing `writes` on `stream` of gpu(0)
  // (0: no stream, as on the CPU or inline) the way the engine does.
  void Run(const std::vector<Var*>& reads, const std::vector<Var*>& writes, uintptr_t stream,
           FnProperty prop = FnProperty::kNormal) {
    OprBlock op;
    op.reads = reads;
    op.writes = writes;
    op.prop = prop;
    op.ctx = stream ? Context::GPU(0) : Context::CPU(0);
    bool ran = false;
    op.sync_fn = [&ran](RunContext) { ran = true; };
    RunContext rc{op.ctx, Stream(stream)};
    OrderDeviceWork(&op, rc, stream ? &dev_ : nullptr);
    op.sync_fn(rc);
    EXPECT_TRUE(ran);
  }
  static std::vector<std::string> Marks(Var* v) {
    std::vector<std::string> out;
    for (const auto& m : v->marks())
      out.push_back("s" + std::to_string(reinterpret_cast<uintptr_t>(m.stream)) + " e" +
                    std::to_string(*static_cast<int*>(m.event.get())));
    return out;
  }
  using Log = std::vector<std::string>;

  LoggingDevice dev_;
  Var a_, b_, c_;
};

TEST_F(StreamOrderTest, AComputeOpMarksItsVariablesInsteadOfWaiting) {
  Run({&a_}, {&b_}, 1);
  EXPECT_EQ(dev_.Take(), Log({"record s1 e1"}));
  EXPECT_EQ(Marks(&a_), Log({"s1 e1"}));
  EXPECT_EQ(Marks(&b_), Log({"s1 e1"}));
  EXPECT_FALSE(c_.has_marks());
}

TEST_F(StreamOrderTest, TheSameStreamWaitsForNothing) {
  Run({}, {&a_}, 1);
  Run({&a_}, {&b_}, 1);
  EXPECT_EQ(dev_.Take(), Log({"record s1 e1", "record s1 e2"}));
  EXPECT_EQ(Marks(&a_), Log({"s1 e2"})) << "a later read on a stream covers the earlier mark there";
  EXPECT_EQ(dev_.freed, 1) << "e1 is freed once e2 covers it";
  EXPECT_EQ(Marks(&b_), Log({"s1 e2"}));
}

TEST_F(StreamOrderTest, ACopyStreamWaitsForTheMarksThenForItself) {
  Run({}, {&a_, &b_}, 1);
  dev_.Take();
  Run({&a_}, {&b_}, 2, FnProperty::kCopyFromDevice);
  EXPECT_EQ(dev_.Take(), Log({"s2 waits e1", "s2 waits e1", "sync-stream s2"}));
  EXPECT_EQ(Marks(&a_), Log({"s1 e1"})) << "a read leaves the marks";
  EXPECT_FALSE(b_.has_marks()) << "a finished write leaves nothing queued";
}

TEST_F(StreamOrderTest, AHostOpWaitsAndDropsTheMarks) {
  Run({}, {&a_}, 1);
  dev_.Take();
  Run({&a_}, {&c_}, 0);
  EXPECT_EQ(dev_.Take(), Log({"host waits e1"}));
  EXPECT_FALSE(a_.has_marks());
  EXPECT_EQ(dev_.freed, 1);
  Run({&a_}, {&c_}, 0);
  EXPECT_TRUE(dev_.Take().empty()) << "nothing left to wait for";
}

TEST_F(StreamOrderTest, AWriteWaitsForReadsOnOtherStreamsAndReplacesTheirMarks) {
  Run({&a_}, {}, 1);
  Run({&a_}, {}, 3);  // another GPU's compute stream
  EXPECT_EQ(dev_.Take(), Log({"record s1 e1", "s3 waits e1", "record s3 e2"}))
      << "marks do not tell reads from writes: a read waits for both";
  EXPECT_EQ(Marks(&a_), Log({"s1 e1", "s3 e2"}));
  Run({}, {&a_}, 1);
  EXPECT_EQ(dev_.Take(), Log({"s1 waits e2", "record s1 e3"}));
  EXPECT_EQ(Marks(&a_), Log({"s1 e3"}));
  EXPECT_EQ(dev_.freed, 2);
}

TEST_F(StreamOrderTest, WaitDeviceWorkBlocksTheHostOnce) {
  Run({}, {&a_}, 1);
  dev_.Take();
  engine::WaitDeviceWork(&a_);
  engine::WaitDeviceWork(&a_);
  EXPECT_EQ(dev_.Take(), Log({"host waits e1"}));
}

TEST_F(StreamOrderTest, AFailedHostWaitFailsTheOpAndKeepsTheMark) {
  Run({}, {&a_}, 1);
  dev_.fail_event = 1;
  OprBlock op;
  op.reads = {&a_};
  bool ran = false;
  op.sync_fn = [&ran](RunContext) { ran = true; };
  OrderDeviceWork(&op, RunContext{Context::CPU(0), nullptr}, nullptr);
  try {
    op.sync_fn(RunContext{Context::CPU(0), nullptr});
    FAIL() << "the host wait should have thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice);
    EXPECT_NE(std::string(e.what()).find("illegal memory access"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(ran) << "an op must not run on data its device failed to produce";
  EXPECT_TRUE(a_.has_marks());
  dev_.fail_event = -1;
}

void Noop(RunContext) {}

TEST_F(StreamOrderTest, AnUnmarkedCpuOpIsLeftAlone) {
  OprBlock op;
  op.reads = {&a_};
  op.sync_fn = &Noop;
  OrderDeviceWork(&op, RunContext{Context::CPU(0), nullptr}, nullptr);
  auto* fn = op.sync_fn.target<void (*)(RunContext)>();
  ASSERT_NE(fn, nullptr) << "the function was wrapped";
  EXPECT_EQ(*fn, &Noop);
  Run({}, {&a_}, 1);  // once marked, the same op is wrapped
  op.sync_fn = &Noop;
  OrderDeviceWork(&op, RunContext{Context::CPU(0), nullptr}, nullptr);
  EXPECT_EQ(op.sync_fn.target<void (*)(RunContext)>(), nullptr);
}

}  // namespace
}  // namespace weft
