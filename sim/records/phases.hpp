// The phases of a trace: what a participant of a run spends its time on. One list, here: the trace's names, the
// result table's phase columns and the analysis layer's order and legend (through the result schema,
// results/columns.hpp) all come from it.
#pragma once
#include <array>

#include "enum_list.hpp"

namespace p2psim {

enum class Phase {
  DataFetch, ColdStart, Orchestration, Compute, FunctionUpload, PollingWait, Collect, LocalAverage, Send, Receive,
  AggregateUpdate, Barrier, OutOfMemory, FunctionFailure, Down, ReduceScatter, AllGather, Reduce, Checkpoint,
  Serialize, Deserialize, ModelUpload, ModelFetch,
};
constexpr int kPhaseCount = static_cast<int>(Phase::ModelFetch) + 1;

struct PhaseInfo {
  Phase phase;
  const char* name;     // in the trace, and in result.csv's phase_<name>_s
  const char* meaning;
};

/// Every phase, in the order a reader meets them in an iteration (the analysis layer's order and colours).
/// Serialize and Deserialize are detail rows inside the phase that moves the tensor (send, receive, collect, a
/// function's upload, a reducer's round), which already counts their time.
constexpr std::array<PhaseInfo, kPhaseCount> kPhases{{
    {Phase::DataFetch, "data_fetch", "loading training data from storage"},
    {Phase::ColdStart, "cold_start", "a function container's INIT"},
    {Phase::Orchestration, "orchestration", "workflow start and transitions before the functions run"},
    {Phase::Compute, "compute", "forward, loss and backward"},
    {Phase::FunctionUpload, "function_upload", "a function writing its gradient to storage and publishing the key"},
    {Phase::PollingWait, "polling_wait", "a peer waiting for its next workflow status poll"},
    {Phase::Collect, "collect", "a peer fetching its functions' gradients"},
    {Phase::LocalAverage, "local_average", "a peer averaging its functions' gradients"},
    {Phase::Send, "send", "publishing the peer's gradient"},
    {Phase::Receive, "receive", "collecting the other peers' gradients"},
    {Phase::ReduceScatter, "reduce_scatter", "ring all-reduce: passing and summing chunks"},
    {Phase::AllGather, "all_gather", "ring all-reduce: passing the summed chunks on"},
    {Phase::Reduce, "reduce", "an aggregator function: fetching its inputs, summing, storing the result"},
    {Phase::AggregateUpdate, "aggregate_update", "averaging the gradients and the optimiser step"},
    {Phase::Barrier, "barrier", "waiting for the other peers at the end of an iteration"},
    {Phase::Checkpoint, "checkpoint",
     "a function near its timeout saving its state to storage before re-invoking itself"},
    {Phase::OutOfMemory, "out_of_memory", "a step that ran until it exceeded its memory, then was killed"},
    {Phase::FunctionFailure, "function_failure", "a function attempt that crashed or ran past its timeout"},
    {Phase::Down, "down", "a crashed peer, until it rejoins"},
    {Phase::Serialize, "serialize",
     "turning a tensor into bytes where it crosses a process boundary (torch.save, pickle); a detail row"},
    {Phase::Deserialize, "deserialize", "turning bytes back into a tensor; a detail row"},
    {Phase::ModelUpload, "model_upload", "a peer putting its current model where its functions fetch it"},
    {Phase::ModelFetch, "model_fetch", "a function fetching the current model (and deserialising it) before it computes"},
}};

static_assert(lists_each_value_once<kPhaseCount>(kPhases, &PhaseInfo::phase), "kPhases must name every Phase once");

/// The phase's name (kPhases).
const char* to_string(Phase p);

}  // namespace p2psim
