// ThreadPool: every index covered exactly once, nested use from tasks, tasks that wait on
// each other, and many runs without growth.
#include "kernels/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kiln {
namespace {

TEST(ThreadPoolTest, ParallelForCoversEveryIndexOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 7, 64, 1000, 12345}) {
      for (int64_t grain : {1, 3, 100}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        pool.ParallelFor(
            n,
            [&](int64_t b, int64_t e) {
              ASSERT_LE(0, b);
              ASSERT_LT(b, e);
              ASSERT_LE(e, n);
              for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
            },
            grain);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
              << "threads " << threads << " n " << n << " i " << i;
        }
      }
    }
  }
}

TEST(ThreadPoolTest, TasksRunConcurrentlyAndMayWaitOnEachOther) {
  ThreadPool pool(3);
  ASSERT_TRUE(pool.CanRunConcurrently(3));
  ASSERT_FALSE(pool.CanRunConcurrently(4));
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> stage{0};
    // Task 0 waits for task 2, which waits for task 1: only concurrent execution finishes.
    auto t0 = [&] {
      while (stage.load() < 2) std::this_thread::yield();
      stage = 3;
    };
    auto t1 = [&] { stage = 1; };
    auto t2 = [&] {
      while (stage.load() < 1) std::this_thread::yield();
      stage = 2;
    };
    const FunctionRef<void()> tasks[] = {t0, t1, t2};
    pool.RunTasks(tasks);
    ASSERT_EQ(stage.load(), 3);
  }
}

TEST(ThreadPoolTest, ParallelForInsideTasks) {
  ThreadPool pool(4);
  std::vector<int64_t> sums(2, 0);
  std::vector<std::atomic<int64_t>> partial(2);
  auto make = [&](int k) {
    return [&, k] {
      pool.ParallelFor(10000, [&](int64_t b, int64_t e) {
        int64_t s = 0;
        for (int64_t i = b; i < e; ++i) s += i;
        partial[static_cast<size_t>(k)] += s;
      });
    };
  };
  auto a = make(0);
  auto b = make(1);
  const FunctionRef<void()> tasks[] = {a, b};
  for (int round = 0; round < 50; ++round) {
    partial[0] = 0;
    partial[1] = 0;
    pool.RunTasks(tasks);
    EXPECT_EQ(partial[0].load(), 10000 * 9999 / 2);
    EXPECT_EQ(partial[1].load(), 10000 * 9999 / 2);
  }
}

// A task waiting in HelpUntil (a stream waiting for an event) runs the shares of the other
// task's ParallelFor calls. Every call must still be shared after many of them: the tickets
// the caller cancels pile up in the ring while the only worker is busy with a task, and once
// they filled it, ParallelFor stopped sharing (found by timing squeezenet on 2 streams).
TEST(ThreadPoolTest, WaitingTaskHelpsEveryParallelForOfTheOther) {
  ThreadPool pool(2);  // the caller and one worker: both busy with a task
  std::atomic<bool> done{false};
  std::vector<size_t> threads_per_call;
  auto compute = [&] {
    for (int call = 0; call < 12; ++call) {
      std::mutex mu;
      std::set<std::thread::id> ids;
      pool.ParallelFor(16, [&](int64_t, int64_t) {
        {
          std::lock_guard<std::mutex> lock(mu);
          ids.insert(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      });
      threads_per_call.push_back(ids.size());
    }
    done.store(true);
    pool.Wake();
  };
  auto wait = [&] { pool.HelpUntil([&] { return done.load(); }); };
  const FunctionRef<void()> tasks[] = {compute, wait};
  pool.RunTasks(tasks);
  ASSERT_EQ(threads_per_call.size(), 12u);
  // The helper may miss the first call while it starts; never a later one.
  for (size_t call = 1; call < threads_per_call.size(); ++call) {
    EXPECT_EQ(threads_per_call[call], 2u) << "call " << call;
  }
}

}  // namespace
}  // namespace kiln
