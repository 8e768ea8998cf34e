// Must NOT compile under lint.thread_safety's flags: it reads a member
// guarded by a weft::Mutex without holding it. CTest expects clang's
// diagnostic for it, which shows the analysis is switched on.
#include "weft/mutex.h"

namespace {

class Counter {
 public:
  void Add() {
    weft::MutexLock l(&mu_);
    ++n_;
  }
  int Peek() const { return n_; }  // the deliberate error: no lock

 private:
  weft::Mutex mu_;
  int n_ WEFT_GUARDED_BY(mu_) = 0;
};

}  // namespace

int main() {
  Counter c;
  c.Add();
  return c.Peek();
}
