// One persistent pool of worker threads per session: kernels split their work with
// ParallelFor, and the session runs its streams with RunTasks. Nothing allocates and no thread
// is created after construction. Idle workers, and callers waiting for their helpers, spin for
// a short while (kSpinMicros) before they block: a run issues one ParallelFor per op, tens of
// microseconds apart, and waking a blocked thread (on a virtual machine, a halted vCPU) costs
// about as long as a small op.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln {

// A non-owning reference to a callable (no allocation, unlike std::function). The callable
// must outlive the call it is passed to.
template <typename Signature>
class FunctionRef;
template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<F>, FunctionRef>>>
  FunctionRef(F&& f)  // NOLINT: implicit by design, like std::function_ref
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

class ThreadPool {
 public:
  // `num_threads` counts the calling thread: 1 means no workers (everything runs inline).
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // How long an idle worker polls for new work, and a ParallelFor caller for its helpers,
  // before blocking on a condition variable.
  static constexpr int64_t kSpinMicros = 200;

  // Calls fn(begin, end) over disjoint ranges covering [0, n), each at least `grain` long
  // (except the last), on the caller and on idle workers; returns when all are done. Results
  // must not depend on how the range is split (each index computed independently). Safe to
  // call from inside a RunTasks task: busy workers simply do not help.
  void ParallelFor(int64_t n, FunctionRef<void(int64_t, int64_t)> fn, int64_t grain = 1);

  // Runs every task concurrently, task 0 on the caller and the others on workers, and returns
  // when all have finished. Tasks may block waiting on each other (stream events), so this
  // needs a worker for each task but the first: callers check CanRunConcurrently first.
  void RunTasks(std::span<const FunctionRef<void()>> tasks);
  bool CanRunConcurrently(size_t tasks) const { return tasks <= workers_.size() + 1; }

  // Blocks until `done()` holds, running queued ParallelFor shares meanwhile, so a RunTasks
  // task that waits on another (a stream waiting for an event) lends its thread to the kernels
  // still running instead of sleeping. `done` is checked under the pool's lock; whoever makes
  // it true must then call Wake().
  void HelpUntil(FunctionRef<bool()> done);
  void Wake();

 private:
  struct Job;
  // A unit of queued work: a share of a ParallelFor job, or one RunTasks task.
  struct Ticket {
    Job* job = nullptr;                         // ParallelFor share (nullptr: cancelled)
    const FunctionRef<void()>* task = nullptr;  // RunTasks task
    std::atomic<int>* task_pending = nullptr;   // decremented when the task finishes
  };

  void WorkerLoop();
  bool PushLocked(const Ticket& t);
  static void RunShare(Job& job);
  // Polls until `ready()` holds or kSpinMicros pass; returns whether it held.
  static bool SpinUntil(FunctionRef<bool()> ready);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // workers wait for tickets
  std::condition_variable done_cv_;  // callers wait for their helpers
  std::vector<Ticket> ring_;         // fixed-capacity FIFO of tickets
  size_t head_ = 0;
  // Tickets queued. Changed only under mu_; read without it by spinning workers.
  std::atomic<size_t> count_{0};
  std::atomic<bool> stop_{false};
};

// Runs share(s) for every s in [0, shares): over the pool when there are several shares and a
// pool, else one after another on the caller.
template <typename F>
void RunShares(ThreadPool* pool, int64_t shares, const F& share) {
  if (shares > 1 && pool) {
    pool->ParallelFor(shares, [&](int64_t s0, int64_t s1) {
      for (int64_t s = s0; s < s1; ++s) share(s);
    });
  } else {
    for (int64_t s = 0; s < shares; ++s) share(s);
  }
}

// fn(begin, end) over [0, n): on `pool` (null: none) in ranges of at least `grain` when it has
// several threads and n > 1, else inline in one call.
template <typename F>
void ParallelOrInline(ThreadPool* pool, int64_t n, int64_t grain, const F& fn) {
  if (pool && pool->num_threads() > 1 && n > 1) {
    pool->ParallelFor(n, fn, grain);
  } else if (n > 0) {
    fn(int64_t{0}, n);
  }
}

// Runs fn(slot, begin, end) over [0, items) in claims of `chunk` items: `slots` shares run over
// the pool, each (with its own slot < slots, for per-share scratch) claiming the next chunk
// until none are left. A thread on a faster core thus takes more claims than a static split
// would give it: the two vCPUs of the development machine ran equal shares of an op up to 1.5x
// apart, one process the caller's vCPU faster, the next the worker's. Without a pool, or with
// one slot, the caller runs the whole range at once in slot 0.
template <typename F>
void ClaimRanges(ThreadPool* pool, int slots, int64_t items, int64_t chunk, const F& fn) {
  chunk = chunk < 1 ? 1 : chunk;
  if (!pool || slots <= 1 || pool->num_threads() <= 1) {
    if (items > 0) fn(0, int64_t{0}, items);
    return;
  }
  std::atomic<int64_t> next{0};
  pool->ParallelFor(slots, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      for (int64_t b = next.fetch_add(chunk); b < items; b = next.fetch_add(chunk)) {
        fn(static_cast<int>(s), b, b + chunk < items ? b + chunk : items);
      }
    }
  });
}

}  // namespace kiln
