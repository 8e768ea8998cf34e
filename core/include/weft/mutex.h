// A mutex that Clang's thread-safety analysis understands, its scoped lock,
// and the annotation macros (no-ops for other compilers).
//
// libstdc++'s std::mutex carries no capability attributes, so members marked
// WEFT_GUARDED_BY(mu_) need `mu_` to be a weft::Mutex for the analysis to
// check them. CTest's lint.thread_safety compiles the annotated files with
// clang++ -Wthread-safety -Werror (tests/CMakeLists.txt): an access to a
// guarded member without its lock fails that test.
#ifndef WEFT_MUTEX_H_
#define WEFT_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define WEFT_TSA(x) __attribute__((x))
#else
#define WEFT_TSA(x)
#endif

#define WEFT_CAPABILITY(name) WEFT_TSA(capability(name))
#define WEFT_SCOPED_CAPABILITY WEFT_TSA(scoped_lockable)
#define WEFT_GUARDED_BY(mu) WEFT_TSA(guarded_by(mu))
#define WEFT_REQUIRES(...) WEFT_TSA(requires_capability(__VA_ARGS__))
#define WEFT_ACQUIRE(...) WEFT_TSA(acquire_capability(__VA_ARGS__))
#define WEFT_RELEASE(...) WEFT_TSA(release_capability(__VA_ARGS__))
#define WEFT_EXCLUDES(...) WEFT_TSA(locks_excluded(__VA_ARGS__))

namespace weft {

class WEFT_CAPABILITY("mutex") Mutex {
 public:
  void lock() WEFT_ACQUIRE() { mu_.lock(); }
  void unlock() WEFT_RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds `mu` for its scope. Wait() sleeps on a condition variable, giving
// the mutex up meanwhile; the caller re-checks its condition in a loop, so
// the guarded state it reads is read with the lock held. Unlock() and
// Lock() give the mutex up for a stretch of the scope (a slow call made
// without it) and take it back.
class WEFT_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) WEFT_ACQUIRE(mu) : lock_(mu->mu_) {}
  ~MutexLock() WEFT_RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  void Wait(std::condition_variable* cv) { cv->wait(lock_); }
  // Wait() until `deadline` at the latest; false when it passed.
  bool WaitUntil(std::condition_variable* cv, std::chrono::steady_clock::time_point deadline) {
    return cv->wait_until(lock_, deadline) == std::cv_status::no_timeout;
  }
  void Unlock() WEFT_RELEASE() { lock_.unlock(); }
  void Lock() WEFT_ACQUIRE() { lock_.lock(); }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace weft

#endif  // WEFT_MUTEX_H_
