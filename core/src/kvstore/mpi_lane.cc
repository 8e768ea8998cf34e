// The MPI communication lane (collectives.h): one thread owns MPI (it
// initialises, issues, polls and finalises), so MPI needs only
// MPI_THREAD_FUNNELED when Weft initialises it.
#include "kvstore/collectives.h"

#include "weft/status.h"

#if WEFT_USE_MPI

// Only the C API (Open MPI would otherwise declare its deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "weft/engine.h"

namespace weft {
namespace kvstore {
namespace {

using Clock = std::chrono::steady_clock;

std::string MpiMessage(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(len));
}

MPI_Datatype MpiType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    case DType::kUint8:
      return MPI_UINT8_T;
    case DType::kInt8:
      return MPI_INT8_T;
    default:
      Fail(StatusCode::kDType, "kvstore: dtype ", DTypeName(t),
           " cannot be summed across processes");
  }
}

// One collective: `start` issues it (returns the MPI status code), the
// lane polls `request` until it completes.
struct Task {
  uint64_t seq = 0;
  std::function<int(MPI_Comm, MPI_Request*)> start;
  std::string what;
  double timeout_seconds = 30;
  Done done;
  MPI_Request request = MPI_REQUEST_NULL;
  Clock::time_point deadline;
};

class MpiLane : public Collectives {
 public:
  MpiLane() {
    std::promise<void> started;
    auto ready = started.get_future();
    thread_ = std::thread([this, &started] { Main(&started); });
    try {
      ready.get();
    } catch (...) {
      thread_.join();
      throw;
    }
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  uint64_t NextSeq() override {
    std::lock_guard<std::mutex> lock(mu_);
    return reserved_++;
  }

  void Allreduce(uint64_t seq, const void* send, void* recv, int64_t count, DType dtype,
                 double timeout_seconds, std::string what, Done done) override {
    // Checks run when the task is issued, so the sequence number is used
    // even when they fail (a gap would stall every later collective).
    Submit(
        seq,
        [=](MPI_Comm comm, MPI_Request* req) {
          MPI_Datatype type = MpiType(dtype);
          if (count > INT32_MAX)
            Fail(StatusCode::kInvalidArgument, "kvstore: ", what, " has ", count,
                 " elements, more than MPI's int count");
          return MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv, static_cast<int>(count),
                                type, MPI_SUM, comm, req);
        },
        std::move(what), timeout_seconds, std::move(done));
  }

  void Broadcast(uint64_t seq, void* buf, size_t bytes, int root, double timeout_seconds,
                 std::string what, Done done) override {
    Submit(
        seq,
        [=](MPI_Comm comm, MPI_Request* req) {
          if (bytes > INT32_MAX)
            Fail(StatusCode::kInvalidArgument, "kvstore: ", what, " has ", bytes,
                 " bytes, more than MPI's int count");
          return MPI_Ibcast(buf, static_cast<int>(bytes), MPI_BYTE, root, comm, req);
        },
        std::move(what), timeout_seconds, std::move(done));
  }

  std::vector<std::string> Allgather(uint64_t seq, const std::string& text,
                                     double timeout_seconds) override {
    int len = static_cast<int>(text.size());
    std::vector<int> lens(static_cast<size_t>(size_));
    try {
      Wait(
          seq,
          [&](MPI_Comm comm, MPI_Request* req) {
            return MPI_Iallgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm, req);
          },
          "allgather of key lists (lengths)", timeout_seconds);
    } catch (...) {  // use seq + 1 too (no gap), then report
      Submit(
          seq + 1,
          [](MPI_Comm, MPI_Request*) -> int {
            Fail(StatusCode::kInternal, "kvstore: allgather abandoned");
          },
          "allgather of key lists", timeout_seconds, [](std::exception_ptr) {});
      throw;
    }
    std::vector<int> displs(lens.size());
    int total = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
      displs[i] = total;
      total += lens[i];
    }
    std::string all(static_cast<size_t>(total), '\0');
    Wait(
        seq + 1,
        [&](MPI_Comm comm, MPI_Request* req) {
          return MPI_Iallgatherv(text.data(), len, MPI_CHAR, &all[0], lens.data(), displs.data(),
                                 MPI_CHAR, comm, req);
        },
        "allgather of key lists", timeout_seconds);
    std::vector<std::string> out;
    for (size_t i = 0; i < lens.size(); ++i)
      out.push_back(all.substr(static_cast<size_t>(displs[i]), static_cast<size_t>(lens[i])));
    return out;
  }

  void Barrier(uint64_t seq, double timeout_seconds) override {
    Wait(
        seq, [](MPI_Comm comm, MPI_Request* req) { return MPI_Ibarrier(comm, req); }, "barrier",
        timeout_seconds);
  }

  // At exit: lets the engine finish (it may still submit), drains the lane,
  // finalises MPI.
  void Shutdown() {
    try {
      Engine::Get()->WaitForAll();
    } catch (...) {  // failures were for the program to wait on; exiting anyway
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Submit(uint64_t seq, std::function<int(MPI_Comm, MPI_Request*)> start, std::string what,
              double timeout_seconds, Done done) {
    auto task = std::make_unique<Task>();
    task->seq = seq;
    task->start = std::move(start);
    task->what = std::move(what);
    task->timeout_seconds = timeout_seconds;
    task->done = std::move(done);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_)
        Fail(StatusCode::kInternal, "kvstore: ", task->what,
             " submitted after the communication lane shut down");
      stall_timeout_ = task->timeout_seconds;
      pending_.emplace(seq, std::move(task));
    }
    cv_.notify_all();
  }

  void Wait(uint64_t seq, std::function<int(MPI_Comm, MPI_Request*)> start, const char* what,
            double timeout_seconds) {
    auto finished = std::make_shared<std::promise<void>>();
    auto result = finished->get_future();
    Submit(seq, std::move(start), what, timeout_seconds, [finished](std::exception_ptr e) {
      if (e)
        finished->set_exception(e);
      else
        finished->set_value();
    });
    result.get();
  }

  void Main(std::promise<void>* started) {
    try {
      Start();
    } catch (...) {
      started->set_exception(std::current_exception());
      return;
    }
    started->set_value();
    std::list<std::unique_ptr<Task>> active;
    for (;;) {
      std::vector<std::unique_ptr<Task>> issue;
      {
        std::unique_lock<std::mutex> lock(mu_);
        auto has_work = [&] {
          return pending_.count(next_) || stop_ || (failure_ && !pending_.empty());
        };
        if (active.empty()) {
          if (reserved_ > next_)
            cv_.wait_until(lock, HeadDeadline(), has_work);
          else
            cv_.wait(lock, has_work);
        }
        CheckHeadOfLine();
        for (auto it = pending_.find(next_); it != pending_.end(); it = pending_.find(next_)) {
          issue.push_back(std::move(it->second));
          pending_.erase(it);
          ++next_;
        }
        if (failure_) {  // out of order too: each fails at once
          for (auto& kv : pending_) issue.push_back(std::move(kv.second));
          pending_.clear();
        }
        if (stop_ && active.empty() && issue.empty()) break;
      }
      for (auto& t : issue) {
        if (failure_) {
          t->done(failure_);
          continue;
        }
        int rc = MPI_SUCCESS;
        try {
          rc = t->start(comm_, &t->request);
        } catch (...) {
          t->done(std::current_exception());
          continue;
        }
        if (rc != MPI_SUCCESS) {
          t->done(std::make_exception_ptr(
              Error(StatusCode::kInternal, "kvstore: " + t->what + ": " + MpiMessage(rc))));
          continue;
        }
        t->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(t->timeout_seconds));
        active.push_back(std::move(t));
      }
      Poll(&active);
      // Non-blocking collectives progress only inside MPI calls: poll
      // without sleeping while any is active, yielding the core.
      if (!active.empty()) std::this_thread::yield();
    }
    // Collectives that can never be issued (a sequence number reserved but
    // not submitted before exit).
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& kv : pending_)
      kv.second->done(std::make_exception_ptr(
          Error(StatusCode::kInternal, "kvstore: " + kv.second->what + " dropped at exit")));
    pending_.clear();
    Finish();
  }

  // When the lane waits for a sequence number that was reserved but whose
  // operation has not submitted it (its inputs are still being computed, or
  // failed so the operation never runs): the time it fails.
  Clock::time_point HeadDeadline() {
    if (head_seq_ != next_) {
      head_seq_ = next_;
      head_since_ = Clock::now();
    }
    return head_since_ + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(stall_timeout_));
  }

  // Under mu_.
  void CheckHeadOfLine() {
    if (failure_ || reserved_ <= next_ || pending_.count(next_)) return;
    if (Clock::now() < HeadDeadline()) return;
    failure_ = std::make_exception_ptr(Error(
        StatusCode::kInternal,
        StrCat("kvstore: collective #", next_, " on rank ", rank_, " of ", size_,
               " was not started within ", stall_timeout_,
               " s of the previous one: its push's inputs failed or are still being computed")));
  }

  void Poll(std::list<std::unique_ptr<Task>>* active) {
    const auto now = Clock::now();
    for (auto it = active->begin(); it != active->end();) {
      Task& t = **it;
      int flag = 0;
      int rc = failure_ ? MPI_SUCCESS : MPI_Test(&t.request, &flag, MPI_STATUS_IGNORE);
      if (failure_) {
        t.done(failure_);
      } else if (rc != MPI_SUCCESS) {
        t.done(std::make_exception_ptr(
            Error(StatusCode::kInternal, "kvstore: " + t.what + ": " + MpiMessage(rc))));
      } else if (flag) {
        t.done(nullptr);
      } else if (now > t.deadline) {
        failure_ = std::make_exception_ptr(
            Error(StatusCode::kInternal,
                  StrCat("kvstore: ", t.what, " (collective #", t.seq, ") did not complete within ",
                         t.timeout_seconds, " s on rank ", rank_, " of ", size_,
                         ": another rank died, hung or made different kvstore calls")));
        t.done(failure_);
      } else {
        ++it;
        continue;
      }
      it = active->erase(it);
    }
  }

  void Start() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = 0;
    if (!initialized) {
      // Open MPI's non-blocking allreduce (libnbc) picks binomial or
      // recursive-doubling algorithms that measured 2x slower than its ring
      // for 4-64 MB on 2 ranks (bench/README.md); choose the ring unless
      // the user chose (an environment variable or mpirun --mca wins).
      setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", 0);
      int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      if (rc != MPI_SUCCESS)
        Fail(StatusCode::kInternal, "kvstore: MPI_Init_thread failed: ", MpiMessage(rc));
      owns_mpi_ = true;
    } else {
      MPI_Query_thread(&provided);
      if (provided < MPI_THREAD_SERIALIZED)
        Fail(StatusCode::kInternal, "kvstore: the program initialised MPI with thread level ",
             provided, "; the kvstore's communication thread needs MPI_THREAD_SERIALIZED or more");
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  void Finish() {
    if (failure_) return;  // a collective is stuck: finalising could hang
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;  // the program initialised MPI and finalised it already
    MPI_Comm_free(&comm_);
    if (owns_mpi_) MPI_Finalize();
  }

  std::thread thread_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
  std::exception_ptr failure_;      // the lane thread only
  uint64_t head_seq_ = UINT64_MAX;  // CheckHeadOfLine's state (under mu_)
  Clock::time_point head_since_;
  double stall_timeout_ = 30;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, std::unique_ptr<Task>> pending_;
  uint64_t reserved_ = 0;  // next sequence number to hand out
  uint64_t next_ = 0;      // next sequence number to issue (lane thread)
  bool stop_ = false;
};

std::mutex lane_mu;
MpiLane* lane = nullptr;  // leaked like the engine: usable during exit

}  // namespace

void Collectives::ShutdownMpi() {
  std::lock_guard<std::mutex> lock(lane_mu);
  if (lane) lane->Shutdown();
}

Collectives* Collectives::Mpi() {
  std::lock_guard<std::mutex> lock(lane_mu);
  if (!lane) {
    Engine::Get();  // created first, so its exit hook runs after the lane's
    lane = new MpiLane();
    std::atexit(ShutdownMpi);
  }
  return lane;
}

}  // namespace kvstore
}  // namespace weft

#else  // !WEFT_USE_MPI

namespace weft {
namespace kvstore {

void Collectives::ShutdownMpi() {}

Collectives* Collectives::Mpi() {
  Fail(StatusCode::kNotImplemented,
       "kvstore: dist_sync needs MPI, and this Weft was built without it (install libopenmpi-dev "
       "and rebuild)");
}

}  // namespace kvstore
}  // namespace weft

#endif  // WEFT_USE_MPI
