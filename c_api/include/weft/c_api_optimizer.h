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
 * weft/initializer.h, weft/optimizer.h). Both hold state (a random
 * generator; momentum/Adam states and update counts), so each handle is
 * used by one thread at a time (calls on one handle are serialised).
 */

/** A parameter initializer. Free with weft_initializer_free(). */
typedef struct WeftInitializer WeftInitializer;
/** An optimizer with its per-parameter states. Free with weft_optimizer_free(). */
typedef struct WeftOptimizer WeftOptimizer;

/**
 * @brief Creates an initializer by MXNet name: "uniform" (scale), "normal"
 *        (sigma), "xavier" (rnd_type, factor_type, magnitude), "constant"
 *        (value), "zero", "one" (case-insensitive).
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
 * @brief Creates an optimizer: "sgd" (learning_rate=0.01, momentum, wd,
 *        rescale_grad, clip_gradient, begin_num_update) or "adam"
 *        (learning_rate=0.001, beta1, beta2, epsilon, wd, rescale_grad,
 *        clip_gradient, begin_num_update).
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
 *        (back to the constant rate; @p steps ignored).
 * @param factor multiplier <= 1 per step; @param stop_factor_lr lower
 *        bound of "factor" schedules (MXNet's default 1e-8).
 */
WEFT_API WeftStatus weft_optimizer_set_lr_scheduler(WeftOptimizer* opt, const char* kind,
                                                    const int64_t* steps, size_t num_steps,
                                                    float factor, float stop_factor_lr);

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

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_OPTIMIZER_H_ */
