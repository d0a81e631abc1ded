// ThreadPool: a fixed ring of tickets under one mutex; ParallelFor shares a job's atomic index
// between the caller and the workers that pick its tickets.
#include "kernels/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace kiln {

struct ThreadPool::Job {
  alignas(64) std::atomic<int64_t> next{0};  // first index not yet claimed
  // Workers inside RunShare: changed under mu_, read without it by the spinning caller.
  alignas(64) std::atomic<int> active{0};
  int64_t n = 0;
  int64_t chunk = 1;
  const FunctionRef<void(int64_t, int64_t)>* fn = nullptr;
};

ThreadPool::ThreadPool(int num_threads) {
  const int workers = std::max(0, num_threads - 1);
  // Each caller queues at most one ticket per worker; callers are at most every thread.
  ring_.resize(static_cast<size_t>(std::max(1, workers) * (workers + 1) * 2));
  workers_.reserve(static_cast<size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

bool ThreadPool::PushLocked(const Ticket& t) {
  // Cancelled tickets at the head go first: while every worker runs a stream, no worker pops
  // them, and they would fill the ring and stop ParallelFor from sharing its work.
  while (count_ > 0 && ring_[head_].job == nullptr && ring_[head_].task == nullptr) {
    head_ = (head_ + 1) % ring_.size();
    --count_;
  }
  if (count_ == ring_.size()) return false;  // full: the caller does the work itself
  ring_[(head_ + count_) % ring_.size()] = t;
  ++count_;
  return true;
}

void ThreadPool::RunShare(Job& job) {
  for (;;) {
    const int64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.n) return;
    (*job.fn)(begin, std::min(begin + job.chunk, job.n));
  }
}

bool ThreadPool::SpinUntil(FunctionRef<bool()> ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  for (;;) {
    // The clock is read every 64 polls: a poll is a few nanoseconds, the clock tens.
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();  // yields the core's pipeline to its SMT sibling while polling
#endif
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    Ticket t;
    {
      SpinUntil([this] {
        return count_.load(std::memory_order_relaxed) > 0 || stop_.load(std::memory_order_relaxed);
      });
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [this] { return stop_ || count_ > 0; });
      if (stop_ && count_ == 0) return;
      t = ring_[head_];
      head_ = (head_ + 1) % ring_.size();
      --count_;
      if (t.job) ++t.job->active;  // counted under the lock: the caller waits for it
    }
    if (t.job) {
      RunShare(*t.job);
      std::lock_guard<std::mutex> lock(mu_);
      --t.job->active;
      done_cv_.notify_all();
    } else if (t.task) {
      (*t.task)();
      std::lock_guard<std::mutex> lock(mu_);
      t.task_pending->fetch_sub(1);
      work_cv_.notify_all();  // RunTasks' caller waits in HelpUntil
    }
  }
}

void ThreadPool::ParallelFor(int64_t n, FunctionRef<void(int64_t, int64_t)> fn, int64_t grain) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  const int64_t max_shares = (n + grain - 1) / grain;
  const int64_t threads = std::min<int64_t>(num_threads(), max_shares);
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  Job job;
  job.n = n;
  job.fn = &fn;
  // A few chunks per thread balance uneven work without much contention on `next`.
  job.chunk = std::max(grain, (n + threads * 4 - 1) / (threads * 4));
  size_t queued = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t i = 1; i < threads; ++i) queued += PushLocked(Ticket{&job, nullptr, nullptr});
  }
  if (queued) work_cv_.notify_all();
  RunShare(job);
  std::unique_lock<std::mutex> lock(mu_);
  // Tickets nobody picked up are cancelled; those picked up are counted in `active`.
  for (size_t i = 0; i < count_; ++i) {
    Ticket& t = ring_[(head_ + i) % ring_.size()];
    if (t.job == &job) t.job = nullptr;
  }
  if (job.active == 0) return;
  // Helpers still run their last chunks: usually for microseconds, so poll before blocking.
  lock.unlock();
  if (SpinUntil([&job] { return job.active.load(std::memory_order_acquire) == 0; })) return;
  lock.lock();
  done_cv_.wait(lock, [&job] { return job.active == 0; });
}

void ThreadPool::RunTasks(std::span<const FunctionRef<void()>> tasks) {
  if (tasks.empty()) return;
  std::atomic<int> pending{0};
  size_t pushed = 1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (pushed < tasks.size() && PushLocked(Ticket{nullptr, &tasks[pushed], &pending})) {
      pending.fetch_add(1);
      ++pushed;
    }
  }
  work_cv_.notify_all();
  tasks[0]();
  // Tasks that did not fit in the ring (never when CanRunConcurrently held) run here, after.
  for (size_t i = pushed; i < tasks.size(); ++i) tasks[i]();
  HelpUntil([&pending] { return pending.load() == 0; });
}

void ThreadPool::HelpUntil(FunctionRef<bool()> done) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!done()) {
    // Only ParallelFor shares are taken: a RunTasks task could block on this very waiter.
    Job* job = nullptr;
    for (size_t i = 0; i < count_ && job == nullptr; ++i) {
      Ticket& t = ring_[(head_ + i) % ring_.size()];
      if (t.job) {
        job = t.job;
        t.job = nullptr;  // taken here: the worker that pops it finds it cancelled
        ++job->active;
      }
    }
    if (job == nullptr) {
      work_cv_.wait(lock);
      continue;
    }
    lock.unlock();
    RunShare(*job);
    lock.lock();
    --job->active;
    done_cv_.notify_all();
  }
}

void ThreadPool::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  work_cv_.notify_all();
}

}  // namespace kiln
