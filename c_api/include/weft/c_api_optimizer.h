/**
 * @file c_api_optimizer.h
 * @brief Parameter initializers and optimizers (learning-rate schedules,
 *        multipliers, updates).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_OPTIMIZER_H_
#define WEFT_C_API_OPTIMIZER_H_

#include "c_api_base.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------ [training: initializer/optimizer API] */

/*
 * Parameter initializers and optimizers with MXNet's semantics (C++:
 * weft/initializer.h, weft/optimizer.h, weft/lr_scheduler.h). Both hold state
 * (a random generator; momentum/moment states and update counts), so each handle is
 * used by one thread at a time (calls on one handle are serialised).
 */

/** A parameter initializer. Free with weft_initializer_free(). */
typedef struct WeftInitializer WeftInitializer;
/** An optimizer with its per-parameter states. Free with weft_optimizer_free(). */
typedef struct WeftOptimizer WeftOptimizer;

/**
 * @brief Creates an initializer by MXNet name: "uniform" (scale), "normal"
 *        (sigma), "xavier" (rnd_type, factor_type, magnitude), "constant"
 *        (value), "zero", "one", "orthogonal" (scale, rand_type "uniform" or
 *        "normal"), "msraprelu" (factor_type, slope), "bilinear", "lstmbias"
 *        (forget_bias), or "mixed" (patterns: a JSON list of regular
 *        expressions; initializers: a JSON list of as many initializers in
 *        MXNet's form, e.g. '["zero", ["uniform", {"scale": 0.1}]]'; a
 *        parameter gets the first whose pattern matches its name's start).
 *        Case-insensitive; details in weft/initializer.h.
 * @param keys,vals @p num_params parameter texts.
 * @param seed seeds its generator: the same seed and calls give the same bits.
 * @param[out] out new handle; free with weft_initializer_free().
 * Unknown names or parameters and bad values fail with WEFT_ERR_INVALID_ARGUMENT.
 */
WEFT_API WeftStatus weft_initializer_create(const char* name, const char* const* keys,
                                            const char* const* vals, size_t num_params,
                                            uint64_t seed, WeftInitializer** out);

/**
 * @brief Fills @p arr (float32/float64) for the parameter @p param_name by
 *        MXNet's naming rules: *weight gets the initializer's rule; *bias,
 *        *beta, *moving_mean, *running_mean get 0; *gamma, *moving_var,
 *        *running_var get 1; other names get the rule. Returns when done.
 */
WEFT_API WeftStatus weft_initializer_init(WeftInitializer* init, const char* param_name,
                                          WeftNDArray* arr);

/** Frees @p init (NULL is a no-op). */
WEFT_API WeftStatus weft_initializer_free(WeftInitializer* init);

/**
 * @brief Creates an optimizer by MXNet name (case-insensitive): "sgd",
 *        "nag", "signum", "lars", "adam", "adamw", "lamb", "rmsprop"
 *        (centered=True for Graves' form), "adagrad", "adadelta", "ftrl",
 *        with MXNet's parameters and defaults (listed in weft/optimizer.h);
 *        every one takes learning_rate, wd, rescale_grad, clip_gradient,
 *        begin_num_update and multi_precision (float16 weights updated
 *        through float32 master copies).
 * @param[out] out new handle; free with weft_optimizer_free().
 * Unknown names or parameters and bad values fail with WEFT_ERR_INVALID_ARGUMENT.
 */
WEFT_API WeftStatus weft_optimizer_create(const char* name, const char* const* keys,
                                          const char* const* vals, size_t num_params,
                                          WeftOptimizer** out);

/**
 * @brief Sets the learning-rate schedule, based at the optimizer's
 *        learning_rate (as MXNet does).
 * @param kind "factor" (@p num_steps 1: steps[0] is the period),
 *        "multifactor" (@p num_steps increasing update counts) or "none"
 *        (back to the constant rate; @p steps ignored). Poly and cosine
 *        schedules and warm-up: weft_optimizer_set_lr_scheduler_ex().
 * @param factor multiplier <= 1 per step; @param stop_factor_lr lower
 *        bound of "factor" schedules (MXNet's default 1e-8).
 */
WEFT_API WeftStatus weft_optimizer_set_lr_scheduler(WeftOptimizer* opt, const char* kind,
                                                    const int64_t* steps, size_t num_steps,
                                                    float factor, float stop_factor_lr);

/**
 * @brief Sets the learning-rate schedule by name with MXNet's parameter
 *        names (C++: weft::CreateLRScheduler in weft/lr_scheduler.h):
 *        "factor" (step, required; factor=1, stop_factor_lr=1e-8),
 *        "multifactor" (step, required, a tuple text such as "(10,20)";
 *        factor=1), "poly" (max_update, required; pwr=2, final_lr=0),
 *        "cosine" (max_update, required; final_lr=0), or "none" (back to the
 *        constant rate; no parameters). Every schedule also takes base_lr
 *        (default: the optimizer's learning_rate, which MXNet writes into its
 *        scheduler), warmup_steps=0, warmup_begin_lr=0 and warmup_mode
 *        ("linear" or "constant"): while num_update < warmup_steps the rate
 *        rises linearly from warmup_begin_lr to base_lr (or stays at
 *        warmup_begin_lr). Names are case-insensitive (MXNet's class names
 *        such as "CosineScheduler" also work). weft_optimizer_set_lr_scheduler()
 *        remains for "factor" and "multifactor" without warm-up.
 * @param keys,vals @p num_params parameter texts, as MXNet's str() writes them.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming an unknown @p name or parameter, a
 * missing required parameter or a bad value (factor above 1, steps not
 * increasing, warmup_begin_lr above base_lr, max_update not above
 * warmup_steps, ...); the optimizer keeps its schedule then.
 */
WEFT_API WeftStatus weft_optimizer_set_lr_scheduler_ex(WeftOptimizer* opt, const char* name,
                                                       const char* const* keys,
                                                       const char* const* vals, size_t num_params);

/**
 * @brief Reads the lr/wd multipliers (attributes lr_mult / wd_mult) of the
 *        arguments of @p sym; names ending neither in "_weight" nor in
 *        "_gamma" get no weight decay unless their wd_mult says otherwise.
 */
WEFT_API WeftStatus weft_optimizer_set_multipliers(WeftOptimizer* opt, const WeftSymbolHandle* sym);

/** Sets the gradient scale (MXNet's Module uses 1 / batch size). */
WEFT_API WeftStatus weft_optimizer_set_rescale_grad(WeftOptimizer* opt, float rescale_grad);

/**
 * @brief One update of parameter @p index named @p name: writes @p weight in
 *        place (asynchronously; reading @p weight waits for it). States are
 *        created at the first update of an index.
 * Errors: shape, dtype or context of @p grad unlike @p weight; a weight of
 * another shape than at the index's first update.
 */
WEFT_API WeftStatus weft_optimizer_update(WeftOptimizer* opt, int index, const char* name,
                                          WeftNDArray* weight, const WeftNDArray* grad);

/** MXNet's num_update: the largest per-index update count so far. */
WEFT_API WeftStatus weft_optimizer_num_update(const WeftOptimizer* opt, int64_t* out);

/** The learning rate for @p name at the current num_update (schedule and lr_mult applied, as
 * MXNet's _get_lr). */
WEFT_API WeftStatus weft_optimizer_learning_rate(const WeftOptimizer* opt, const char* name,
                                                 float* out_lr);

/** Frees @p opt and its states (NULL is a no-op). */
WEFT_API WeftStatus weft_optimizer_free(WeftOptimizer* opt);

/**
 * @brief Writes the states of @p opt to the file @p path: every index's
 *        states and update count, num_update and the optimizer's name
 *        (MXNet's Updater.get_states(dump_optimizer=True) without pickle),
 *        in MXNet's NDArray-list format with entries named "meta:*",
 *        "count:<index>", "weight:<index>", "state:<index>:<j>" (the layout:
 *        weft/optimizer.h, docs/architecture.md). Hyper-parameters, lr/wd
 *        multipliers and the schedule are not saved. Waits for pending updates.
 * Errors: WEFT_ERR_IO naming @p path when it cannot be written.
 */
WEFT_API WeftStatus weft_optimizer_save_states(WeftOptimizer* opt, const char* path);

/**
 * @brief Replaces every state, update count and num_update of @p opt by
 *        those saved in @p path, so that @p opt (created with the same name
 *        and parameters as the saver) continues as the saver would. The
 *        states move to each weight's device at its next update.
 * Errors name @p path and leave @p opt unchanged: WEFT_ERR_IO (unreadable),
 * WEFT_ERR_INVALID_ARGUMENT (saved by another optimizer, a malformed or
 * truncated file, states unlike those @p opt keeps, e.g. momentum states
 * for SGD without momentum; the message says what was expected and found).
 * A later update with a weight of another shape or dtype than the saved
 * one fails with WEFT_ERR_INVALID_ARGUMENT.
 */
WEFT_API WeftStatus weft_optimizer_load_states(WeftOptimizer* opt, const char* path);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_OPTIMIZER_H_ */
