// ThreadPool: every index covered exactly once, nested use from tasks, tasks that wait on
// each other, and many runs without growth; ClaimRanges' claims and slots.
#include "kernels/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(ThreadPoolTest, ClaimRangesCoversEveryItemOnceInChunksWithExclusiveSlots) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int slots : {1, 2, threads}) {
      for (int64_t items : {0, 1, 7, 100}) {
        for (int64_t chunk : {1, 3}) {
          std::vector<std::atomic<int>> hits(static_cast<size_t>(items));
          std::vector<std::atomic<int>> in_use(static_cast<size_t>(slots));
          ClaimRanges(&pool, slots, items, chunk, [&](int slot, int64_t b, int64_t e) {
            ASSERT_LE(0, slot);
            ASSERT_LT(slot, slots);
            // A slot's scratch is used by one thread at a time.
            ASSERT_EQ(in_use[static_cast<size_t>(slot)].fetch_add(1), 0);
            ASSERT_LT(b, e);
            if (threads > 1 && slots > 1) {
              ASSERT_EQ(b % chunk, 0);
              ASSERT_LE(e, std::min(items, b + chunk));
            } else {  // no one to share with: the whole range at once
              ASSERT_EQ(b, 0);
              ASSERT_EQ(e, items);
            }
            for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
            in_use[static_cast<size_t>(slot)].fetch_sub(1);
          });
          for (int64_t i = 0; i < items; ++i) {
            ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
                << "threads " << threads << " slots " << slots << " items " << items;
          }
        }
      }
    }
  }
}

// A share that stalls after its first item leaves the rest to the other: ClaimRanges is not a
// static split (which would give each share half).
TEST(ThreadPoolTest, ClaimRangesLetsTheFasterShareTakeTheRest) {
  ThreadPool pool(2);
  constexpr int64_t kItems = 20;
  std::atomic<int64_t> done_by_other{0};
  std::atomic<int64_t> done_by_slow{0};
  ClaimRanges(&pool, 2, kItems, 1, [&](int slot, int64_t b, int64_t e) {
    if (slot == 1) {
      done_by_other += e - b;
      return;
    }
    done_by_slow += e - b;
    // Stall until the other share has taken every remaining item (5 s at most, should the
    // worker never start: the test then fails rather than hangs).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (done_by_other.load() + done_by_slow.load() < kItems &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  });
  EXPECT_EQ(done_by_slow.load(), 1);
  EXPECT_EQ(done_by_other.load(), kItems - 1);
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
