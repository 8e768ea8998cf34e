// Helpers for the engine tests: the engine configurations every test runs on.
#ifndef WEFT_TESTS_CORE_ENGINE_ENGINE_TEST_UTIL_H_
#define WEFT_TESTS_CORE_ENGINE_ENGINE_TEST_UTIL_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "weft/engine.h"

namespace weft {
namespace test {

struct EngineConfig {
  std::string label;
  EngineKind kind;
  int cpu_threads;
};

inline std::vector<EngineConfig> AllEngineConfigs() {
  return {{"naive", EngineKind::kNaive, 0},
          {"threaded1", EngineKind::kThreaded, 1},
          {"threaded2", EngineKind::kThreaded, 2},
          {"threaded4", EngineKind::kThreaded, 4}};
}

inline std::unique_ptr<Engine> MakeEngine(const EngineConfig& c) {
  EngineOptions o;
  o.cpu_threads = c.cpu_threads;
  return Engine::Create(c.kind, o);
}

// Seconds since an arbitrary epoch, monotonic.
inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_ENGINE_ENGINE_TEST_UTIL_H_
