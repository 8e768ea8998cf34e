// Tests of core/src/train/optimizer_states.cc: saving an optimizer's states
// after N steps and loading them into a fresh optimizer continues exactly
// as the uninterrupted one (every optimizer, multi-precision, LARS's
// momentum correction, begin_num_update), the file layout of
// weft/optimizer.h, and the errors: another optimizer's states, another
// configuration's, malformed and truncated input, a weight unlike the
// loaded states', unreadable files. A failed load changes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/ndarray_io.h"
#include "weft/optimizer.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::ExpectError;
using Vec = std::vector<double>;

Runtime* RT() { return &Runtime::Global(); }

Vec Grad(int step, int index, size_t n) {
  Vec g(n);
  for (size_t i = 0; i < n; ++i)
    g[i] = 0.25 * ((static_cast<int>(i) * 7 + step * 3 + index) % 9 - 4) + 0.1 * (step + 1);
  return g;
}

// Two parameters (indices 0 and 5, different shapes) trained for `steps`
// steps from their current values, the learning rate set per step when
// `lr_steps` (LARS's momentum correction follows it).
struct Model {
  DType dt;
  NDArray a, b;
  explicit Model(DType t)
      : dt(t),
        a(test::Array({2, 3}, {0.5, -1.0, 0.25, 1.5, -0.75, 1.0}, t)),
        b(test::Array({4}, {1.0, -0.5, 0.125, 2.0}, t)) {}
  Model(const Model& m, bool)  // a deep copy
      : dt(m.dt),
        a(test::Array({2, 3}, test::Values(m.a), m.dt)),
        b(test::Array({4}, test::Values(m.b), m.dt)) {}
  void Train(Optimizer* opt, int from, int steps, bool lr_steps) {
    for (int s = from; s < from + steps; ++s) {
      if (lr_steps) opt->set_learning_rate(0.05f * (1 + s));
      opt->Update(0, "fc_weight", &a, test::Array({2, 3}, Grad(s, 0, 6), dt));
      opt->Update(5, "fc_bias", &b, test::Array({4}, Grad(s, 5, 4), dt));
    }
  }
};

struct Config {
  std::string name;
  StringMap params;
  DType dt = DType::kFloat32;
  bool lr_steps = false;
};

std::vector<Config> Configs() {
  const DType f16 = DType::kFloat16, f64 = DType::kFloat64;
  return {{"sgd", {{"momentum", "0.9"}, {"wd", "0.01"}}},
          {"sgd", {}},
          {"sgd", {{"momentum", "0.9"}, {"multi_precision", "True"}}, f16},
          {"nag", {{"momentum", "0.8"}, {"multi_precision", "True"}}, f16},
          {"signum", {{"wd_lh", "0.01"}}},
          {"lars", {{"momentum", "0.9"}, {"wd", "0.01"}}, DType::kFloat32, true},
          {"adam", {{"begin_num_update", "4"}, {"clip_gradient", "1"}}, f64},
          {"adam", {{"multi_precision", "True"}}, f16},
          {"adamw", {{"wd", "0.1"}}},
          {"lamb", {{"wd", "0.01"}, {"lower_bound", "0.1"}}},
          {"rmsprop", {{"centered", "True"}}, f64},
          {"adagrad", {{"wd", "0.01"}}},
          {"adadelta", {}},
          {"ftrl", {{"wd", "0.01"}}}};
}

TEST(OptimizerStates, LoadingResumesExactly) {
  for (const Config& c : Configs()) {
    const std::string label = c.name + " " + DTypeName(c.dt);
    auto trained = Optimizer::Create(c.name, c.params);
    Model m(c.dt);
    m.Train(trained.get(), 0, 3, c.lr_steps);
    const std::string bytes = trained->SaveStatesToBytes(RT());
    Model resumed(m, true);
    m.Train(trained.get(), 3, 3, c.lr_steps);

    auto fresh = Optimizer::Create(c.name, c.params);
    fresh->LoadStatesFromBytes(bytes.data(), bytes.size(), RT());
    EXPECT_EQ(fresh->num_update(), trained->num_update() - 3) << label;
    resumed.Train(fresh.get(), 3, 3, c.lr_steps);
    EXPECT_EQ(test::Values(resumed.a), test::Values(m.a)) << label;
    EXPECT_EQ(test::Values(resumed.b), test::Values(m.b)) << label;
    EXPECT_EQ(fresh->num_update(), trained->num_update()) << label;
    EXPECT_EQ(fresh->update_count(5), trained->update_count(5)) << label;
    ASSERT_EQ(fresh->states(0).size(), trained->states(0).size()) << label;
    for (size_t j = 0; j < fresh->states(0).size(); ++j)
      EXPECT_EQ(test::Values(fresh->states(0)[j]), test::Values(trained->states(0)[j]))
          << label << " state " << j;
    // Saving again gives the same bytes as the uninterrupted optimizer.
    EXPECT_EQ(fresh->SaveStatesToBytes(RT()), trained->SaveStatesToBytes(RT())) << label;
  }
}

TEST(OptimizerStates, FileLayout) {
  auto opt = Optimizer::Create("rmsprop", {{"centered", "True"}});
  Model m(DType::kFloat32);
  m.Train(opt.get(), 0, 2, false);
  const std::string bytes = opt->SaveStatesToBytes(RT());
  NDArrayList list = LoadNDArrays(bytes.data(), bytes.size(), RT());
  EXPECT_EQ(list.names,
            (std::vector<std::string>{"meta:format", "meta:optimizer", "meta:num_update", "count:0",
                                      "weight:0", "state:0:0", "state:0:1", "state:0:2", "count:5",
                                      "weight:5", "state:5:0", "state:5:1", "state:5:2"}));
  EXPECT_EQ(test::Values(list.arrays[0]), (Vec{1}));
  EXPECT_EQ(list.arrays[1].dtype(), DType::kUint8);
  EXPECT_EQ(list.arrays[1].Size(), 7);  // "rmsprop"
  EXPECT_EQ(test::Values(list.arrays[2]), (Vec{2}));
  EXPECT_EQ(list.arrays[3].dtype(), DType::kInt64);
  EXPECT_EQ(test::Values(list.arrays[4]), (Vec{0, 2, 3}));  // float32 (2, 3)
  EXPECT_EQ(test::Values(list.arrays[9]), (Vec{0, 4}));
  // LARS adds its learning-rate history; before any update both are None (NaN).
  auto lars = Optimizer::Create("lars");
  const std::string lb = lars->SaveStatesToBytes(RT());
  NDArrayList ll = LoadNDArrays(lb.data(), lb.size(), RT());
  EXPECT_EQ(ll.names, (std::vector<std::string>{"meta:format", "meta:optimizer", "meta:num_update",
                                                "extra:lars_cur_lr", "extra:lars_last_lr"}));
  EXPECT_TRUE(std::isnan(test::Values(ll.arrays[3])[0]));
}

// Rewrites entry `name` of a states file with `a` (or drops it when none).
std::string Edit(const std::string& bytes, const std::string& name, const NDArray& a) {
  NDArrayList list = LoadNDArrays(bytes.data(), bytes.size(), RT());
  NDArrayList out;
  for (size_t i = 0; i < list.arrays.size(); ++i) {
    if (list.names[i] == name && a.is_none()) continue;
    out.names.push_back(list.names[i]);
    out.arrays.push_back(list.names[i] == name ? a : list.arrays[i]);
  }
  return SaveNDArrays(out);
}

void ExpectLoadError(Optimizer* opt, const std::string& bytes,
                     const std::vector<std::string>& parts) {
  const int64_t before = opt->num_update();
  ExpectError([&] { opt->LoadStatesFromBytes(bytes.data(), bytes.size(), RT()); },
              StatusCode::kInvalidArgument, parts);
  EXPECT_EQ(opt->num_update(), before) << "a failed load changed the optimizer";
}

TEST(OptimizerStates, LoadErrorsNameWhatWasExpected) {
  auto adam = Optimizer::Create("adam");
  Model m(DType::kFloat32);
  m.Train(adam.get(), 0, 1, false);
  const std::string bytes = adam->SaveStatesToBytes(RT());
  auto sgd = Optimizer::Create("sgd", {{"momentum", "0.9"}});
  m.Train(sgd.get(), 0, 2, false);
  ExpectLoadError(sgd.get(), bytes, {"saved by optimizer 'adam'", "optimizer 'sgd'"});
  auto mom_bytes = sgd->SaveStatesToBytes(RT());
  ExpectLoadError(Optimizer::Create("sgd").get(), mom_bytes,
                  {"weight:0", "keeps 0 state array(s)", "the file has 1"});
  ExpectLoadError(adam.get(), bytes.substr(0, bytes.size() - 9), {"NDArray file"});
  ExpectLoadError(adam.get(), std::string("not a file"), {"NDArray file"});
  ExpectLoadError(adam.get(), Edit(bytes, "meta:format", NDArray()), {"meta:format"});
  ExpectLoadError(adam.get(), Edit(bytes, "meta:num_update", NDArray()), {"num_update"});
  ExpectLoadError(adam.get(), Edit(bytes, "meta:format", test::Array({1}, {2}, DType::kInt64)),
                  {"meta:format", "version 2"});
  ExpectLoadError(adam.get(), Edit(bytes, "state:5:1", test::Array({3}, {1, 2, 3})),
                  {"state:5:1", "float32 (4,)", "(3,)"});
  ExpectLoadError(adam.get(), Edit(bytes, "state:5:1", NDArray()), {"keeps 2", "has 1"});
  ExpectLoadError(adam.get(), Edit(bytes, "count:5", NDArray()), {"weight:5", "count:5"});
  ExpectLoadError(adam.get(), Edit(bytes, "count:0", test::Array({1}, {1.0})),
                  {"count:0", "int64"});
  ExpectLoadError(adam.get(), Edit(bytes, "weight:0", test::Array({3}, {7, 2, 3}, DType::kInt64)),
                  {"weight:0", "dtype code 7"});
  // A checkpoint's parameters are not optimizer states.
  NDArrayList params{{test::Array({2}, {1, 2})}, {"arg:fc_weight"}};
  ExpectLoadError(adam.get(), SaveNDArrays(params), {"arg:fc_weight", "unknown entry"});
  NDArrayList renamed = LoadNDArrays(bytes.data(), bytes.size(), RT());
  renamed.names[4] = "state:x:0";
  ExpectLoadError(adam.get(), SaveNDArrays(renamed), {"'x'", "not a parameter index"});
  renamed.names[4] = "meta:optimizer";
  ExpectLoadError(adam.get(), SaveNDArrays(renamed), {"meta:optimizer", "twice"});
  // float16 states need multi_precision.
  auto mp = Optimizer::Create("adam", {{"multi_precision", "True"}});
  Model h(DType::kFloat16);
  h.Train(mp.get(), 0, 1, false);
  ExpectLoadError(adam.get(), mp->SaveStatesToBytes(RT()), {"weight:0", "multi_precision"});
}

// The loaded states are for a given weight: another one fails at the update.
TEST(OptimizerStates, UpdateChecksTheLoadedWeight) {
  auto opt = Optimizer::Create("adagrad");
  Model m(DType::kFloat32);
  m.Train(opt.get(), 0, 1, false);
  const std::string bytes = opt->SaveStatesToBytes(RT());
  auto fresh = Optimizer::Create("adagrad");
  fresh->LoadStatesFromBytes(bytes.data(), bytes.size(), RT());
  NDArray other = test::Array({3, 2}, Vec(6, 1.0));
  ExpectError([&] { fresh->Update(0, "fc_weight", &other, other); }, StatusCode::kInvalidArgument,
              {"loaded states of index 0", "(2,3)", "(3,2)"});
  NDArray w64 = test::Array({2, 3}, Vec(6, 1.0), DType::kFloat64);
  ExpectError([&] { fresh->Update(0, "fc_weight", &w64, w64); }, StatusCode::kInvalidArgument,
              {"float32", "float64"});
  EXPECT_EQ(fresh->num_update(), 1);
  // A fresh optimizer's states load too: nothing but the counters.
  auto empty = Optimizer::Create("adagrad", {{"begin_num_update", "7"}});
  const std::string none = empty->SaveStatesToBytes(RT());
  fresh->LoadStatesFromBytes(none.data(), none.size(), RT());
  EXPECT_EQ(fresh->num_update(), 7);
  EXPECT_TRUE(fresh->states(0).empty());
}

// Files written from the documented layout by another writer
// (scripts/gen_optimizer_refs.py, the fuzzer's seeds) load as documented.
TEST(OptimizerStates, LoadsFilesOfAnIndependentWriter) {
  const std::string dir = test::TestDataDir() + "/../fuzz/optimizer_states_corpus/";
  auto sgd = Optimizer::Create("sgd", {{"momentum", "0.9"}});
  sgd->LoadStates(dir + "sgd_momentum.states", RT());
  EXPECT_EQ(sgd->num_update(), 3);
  EXPECT_EQ(sgd->update_count(0), 3);
  EXPECT_EQ(sgd->update_count(7), 1);
  EXPECT_EQ(test::Values(sgd->states(0)[0]), (Vec{0, 0.125, 0.25, 0.375, 0.5, 0.625}));
  EXPECT_EQ(test::Values(sgd->states(7)[0]), (Vec{1, 0.5, 0, -0.5}));
  NDArray w = test::Array({4}, Vec(4, 0.0)), g = test::Array({4}, Vec(4, 0.0));
  sgd->Update(7, "w", &w, g);  // a zero gradient: weight += 0.9 * mom
  Vec moved;
  for (double m : {1.0, 0.5, 0.0, -0.5}) moved.push_back(0.9f * static_cast<float>(m));
  EXPECT_EQ(test::Values(w), moved);
  EXPECT_EQ(sgd->update_count(7), 2);
  NDArray five = test::Array({5}, Vec(5, 0.0));
  ExpectError([&] { sgd->Update(0, "w", &five, five); }, StatusCode::kInvalidArgument,
              {"loaded states of index 0", "(2,3)"});

  auto adam = Optimizer::Create("adam", {{"multi_precision", "True"}});
  adam->LoadStates(dir + "adam_multi_precision.states", RT());
  ASSERT_EQ(adam->states(0).size(), 3u);
  NDArray h = test::Array({2, 2}, Vec(4, 0.0), DType::kFloat16);
  adam->Update(0, "w", &h, h);  // a zero gradient: the master copy moves by the mean
  const Vec master = test::Values(adam->states(0)[0]);
  EXPECT_EQ(test::Values(h), test::Values(test::Array({2, 2}, master, DType::kFloat16)));
  EXPECT_NO_THROW(Optimizer::Create("sgd")->LoadStates(dir + "sgd_plain.states", RT()));
  EXPECT_NO_THROW(Optimizer::Create("sgd", {{"momentum", "0.9"}, {"multi_precision", "True"}})
                      ->LoadStates(dir + "sgd_mp_momentum.states", RT()));
  EXPECT_NO_THROW(Optimizer::Create("rmsprop", {{"centered", "True"}})
                      ->LoadStates(dir + "rmsprop_centered_float64.states", RT()));
  auto lars = Optimizer::Create("lars", {{"momentum", "0.9"}});
  lars->LoadStates(dir + "lars_momentum.states", RT());
  EXPECT_EQ(lars->num_update(), 2);
}

TEST(OptimizerStates, Files) {
  const std::string path = ::testing::TempDir() + "weft_optimizer_states_test.states";
  auto opt = Optimizer::Create("ftrl");
  Model m(DType::kFloat64);
  m.Train(opt.get(), 0, 2, false);
  opt->SaveStates(path, RT());
  auto fresh = Optimizer::Create("ftrl");
  fresh->LoadStates(path, RT());
  EXPECT_EQ(fresh->SaveStatesToBytes(RT()), opt->SaveStatesToBytes(RT()));
  ExpectError([&] { Optimizer::Create("sgd")->LoadStates(path, RT()); },
              StatusCode::kInvalidArgument, {path, "'ftrl'"});
  std::remove(path.c_str());
  ExpectError([&] { fresh->LoadStates(path, RT()); }, StatusCode::kIO, {path});
  ExpectError([&] { opt->SaveStates("/nonexistent-dir/x.states", RT()); }, StatusCode::kIO,
              {"/nonexistent-dir/x.states"});
}

}  // namespace
}  // namespace weft
