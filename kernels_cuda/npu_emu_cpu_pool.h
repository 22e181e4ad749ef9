// The cpu backend's worker pool: runs a grid's blocks on the calling thread and on up to
// threads - 1 workers, and returns when every block is done (npu_emu_cpu.h's run()).
//
// Why not an OpenMP loop: an OpenMP region ends at a barrier that every thread of the team
// must reach, so on a host whose CPUs other processes keep busy, a launch waited for a worker
// the scheduler had parked, a time slice (milliseconds) for microseconds of work: xp.max of
// 128K float32 took 7.7 ms on two threads beside a compiler, 28 us on one. Here the blocks
// are handed out one at a time from a counter; the caller takes blocks too and waits only
// for blocks that a worker has started, never for a worker that has not shown up (a late
// worker finds every block taken and goes back to sleep). Which thread runs a block never
// changes its result (npu_emu_cpu.h), so the bits are those of any schedule.
//
// The blocks are cut into one contiguous part per thread (the caller's first, then worker
// i's): each thread takes its own part's blocks from the front, in order, and, when its part
// is done, takes the other parts' last blocks from the back. So a launch over the same
// memory as the one before gives each thread the same blocks again, which its own cache may
// still hold, and each thread streams through one contiguous range; a thread that comes late
// or runs slowly only leaves more of its part to the others. Handed out one at a time from
// a single counter, the blocks of a float32 tanh or log2 over 1M elements on two threads
// went to either thread at random from call to call: 10-17 % slower (a C++ copy of the loop,
// 2026-12-07).
//
// Every module holds this code (it is a header); the backend takes one module's runner
// (npu_emu_pool_runner) and gives it to every module it loads (npu_emu_set_runner), so the
// process has one pool. A module nobody gave a runner (a test's own build) runs its blocks
// in order on the calling thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <pthread.h>
#include <sched.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace npu_emu_cpu {
namespace pool {

using BlockFn = void (*)(void* ctx, long long block);

// One launch: blocks [0, total) of fn(ctx, b), cut into `parts` contiguous parts (part 0 the
// caller's, part i + 1 worker i's); each part's blocks not yet taken are [front, back), both
// in one 64-bit word (front in the low half) so that its owner's take from the front and a
// thief's from the back never both get the last block. `done` counts the finished blocks.
// Shared by the caller and the workers that took it (a worker may still hold it after the
// caller returned: it then only finds every part empty).
struct Job {
    BlockFn fn;
    void* ctx;
    long long total;
    int parts;
    std::unique_ptr<std::atomic<unsigned long long>[]> range;
    std::atomic<long long> done{0};
    Job(BlockFn f, void* c, long long t, int p)
        : fn(f), ctx(c), total(t), parts(p), range(new std::atomic<unsigned long long>[p]) {
        for (int i = 0; i < p; ++i) {
            const unsigned long long front = static_cast<unsigned long long>(t * i / p);
            const unsigned long long back = static_cast<unsigned long long>(t * (i + 1) / p);
            range[i].store(front | (back << 32), std::memory_order_relaxed);
        }
    }
    // A block of part i: from the front (its owner) or the back (a thief); -1 when it is empty.
    long long take(int i, bool from_front) {
        unsigned long long v = range[i].load(std::memory_order_relaxed);
        for (;;) {
            const unsigned long long front = v & 0xFFFFFFFFull, back = v >> 32;
            if (front >= back) return -1;
            const unsigned long long next = from_front ? (front + 1) | (back << 32) : front | ((back - 1) << 32);
            if (range[i].compare_exchange_weak(v, next, std::memory_order_relaxed))
                return static_cast<long long>(from_front ? front : back - 1);
        }
    }
};
// A grid of more blocks than a part's 32-bit bounds hold runs in order on the calling thread
// (not reached in practice: a block is at least ~16 KiB of work).
constexpr long long MAX_PARTED_BLOCKS = 0x7FFFFFFFll;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

class Pool {
public:
    // Blocks of `total` on the caller and up to threads - 1 workers; returns when all are done.
    void run(BlockFn fn, void* ctx, long long total, int threads) {
        if (total > MAX_PARTED_BLOCKS) {
            for (long long b = 0; b < total; ++b) fn(ctx, b);
            return;
        }
        const int helpers = static_cast<int>(std::min<long long>(threads - 1, total - 1));
        auto job = std::make_shared<Job>(fn, ctx, total, helpers + 1);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (spawned_ < helpers) worker_cpus();
            while (spawned_ < helpers) {   // workers live for the process; made on demand
                try {
                    std::thread(&Pool::worker, this, spawned_).detach();
                } catch (const std::system_error&) {   // no thread to be had (a limit): run
                    break;                             // with those there are
                }
                ++spawned_;
            }
            spins_ = spawned_ + 1 <= cpus();
            job_ = job;
            generation_.fetch_add(1, std::memory_order_release);
            if (sleepers_ > 0) wake_.notify_all();   // spinning workers see the generation
        }
        work(*job, 0);
        // The blocks a worker has started: a short spin (they are about done when the
        // caller's own blocks are), then sleep until the last one says so.
        for (int i = 0; i < 256 && job->done.load(std::memory_order_acquire) != total; ++i)
            cpu_relax();
        if (job->done.load(std::memory_order_acquire) != total) {
            std::unique_lock<std::mutex> lock(mutex_);
            finished_.wait(lock, [&] { return job->done.load(std::memory_order_acquire) == total; });
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (job_ == job) job_.reset();   // another caller may have published its own since
    }

    // The CPUs the workers may run on: the process's, as the backend read them before any
    // module loaded libgomp (with OMP_PROC_BIND set, libgomp pins the thread that loads it
    // to one place, and threads inherit their creator's mask: the workers would share that
    // one CPU). Unset: the creating thread's mask.
    void set_cpus(const int* cpus, int n) {
        std::lock_guard<std::mutex> lock(mutex_);
        CPU_ZERO(&allowed_);
        for (int i = 0; i < n; ++i)
            if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE) CPU_SET(cpus[i], &allowed_);
        have_allowed_ = CPU_COUNT(&allowed_) > 0;
    }

    // Between launches a worker spins for spin_us_ (set_spin; the backend's default 200 us)
    // before it sleeps, when the process has a CPU for each of its threads: a loop of
    // launches (a client's eager calls, a two-phase reduction) then finds it awake, with no
    // futex wake on either side, and a worker that is not needed soon gives its CPU back.
    // Waking a sleeping worker cost the caller 15-20 us and left the worker a late start:
    // a 1M float32 max at two threads took 165 us with a 20 us spin (the caller's next launch
    // came after the worker slept), 70 with 200. With fewer CPUs than threads (an affinity
    // mask, a container's cpuset) it sleeps at once: spinning there takes the CPU from the
    // thread that has the work (a 1M-float32 add: 0.39 -> 0.56 ms on one CPU with 4 threads).
    void set_spin(long long us) { spin_us_.store(us < 0 ? 0 : us, std::memory_order_relaxed); }
    long long spin() const { return spin_us_.load(std::memory_order_relaxed); }

    // fork(): the child has none of the parent's workers. Registered once per pool.
    void before_fork() { mutex_.lock(); }
    void after_fork_parent() { mutex_.unlock(); }
    void after_fork_child() {
        spawned_ = 0;
        sleepers_ = 0;
        job_.reset();
        mutex_.unlock();
    }

private:
    int cpus() const {   // the CPUs the pool's threads may run on (the mutex held)
        if (have_allowed_) return CPU_COUNT(&allowed_);
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
        return CPU_COUNT(&set);
    }

    // Part `own`'s blocks from the front, then the other parts' from the back (the next
    // parts first), until every part is empty.
    void work(Job& job, int own) {
        for (int k = 0; k < job.parts; ++k) {
            const int part = (own + k) % job.parts;
            for (;;) {
                const long long b = job.take(part, k == 0);
                if (b < 0) break;
                job.fn(job.ctx, b);
                if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.total) {
                    std::lock_guard<std::mutex> lock(mutex_);   // the caller may be waiting
                    finished_.notify_all();
                }
            }
        }
    }

    // The mask of the workers started now (the mutex held): the allowed CPUs, less the
    // caller's where it is pinned to some of them (OMP_PROC_BIND: its place), as OpenMP
    // places its team's other threads on the other places. Left unpinned beside a pinned
    // caller, a woken worker was often put on the caller's CPU (the scheduler places a
    // wakee near its waker): a 1M float32 max at two threads took 125-210 us, 77-88
    // unbound, 150 on one thread.
    void worker_cpus() {
        if (!have_allowed_) return;
        workers_mask_ = allowed_;
        cpu_set_t mine;
        if (sched_getaffinity(0, sizeof(mine), &mine) != 0) return;
        cpu_set_t rest;
        CPU_AND(&rest, &allowed_, &mine);
        if (CPU_COUNT(&rest) == 0 || CPU_EQUAL(&rest, &allowed_)) return;   // not pinned within
        CPU_XOR(&rest, &allowed_, &rest);                                  // allowed, not mine
        if (CPU_COUNT(&rest) > 0) workers_mask_ = rest;
    }

    void worker(int index) {   // index: the worker's part is index + 1
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (have_allowed_)
                pthread_setaffinity_np(pthread_self(), sizeof(workers_mask_), &workers_mask_);
        }
        unsigned long long seen = 0;
        for (;;) {
            const std::chrono::microseconds spin{spin_us_.load(std::memory_order_relaxed)};
            if (spins_ && spin.count() > 0 && generation_.load(std::memory_order_acquire) == seen) {
                const auto start = std::chrono::steady_clock::now();
                for (unsigned i = 1; generation_.load(std::memory_order_acquire) == seen; ++i) {
                    cpu_relax();
                    if (i % 256 == 0 && std::chrono::steady_clock::now() - start > spin) break;
                }
            }
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ++sleepers_;
                wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
                --sleepers_;
                seen = generation_.load(std::memory_order_relaxed);
                if (!job_ || index + 1 >= job_->parts) continue;   // done already, or not a helper of it
                job = job_;
            }
            work(*job, index + 1);
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::shared_ptr<Job> job_;
    std::atomic<unsigned long long> generation_{0};   // bumped (under the mutex) per launch
    int sleepers_ = 0;                                 // workers waiting on wake_
    std::atomic<bool> spins_{false};                   // a CPU for every thread (see set_spin)
    std::atomic<long long> spin_us_{200};              // set_spin (the backend sets it)
    cpu_set_t allowed_{};                              // set_cpus
    bool have_allowed_ = false;
    cpu_set_t workers_mask_{};                         // worker_cpus
    int spawned_ = 0;
};

// The process's pool of this module: made on first use and never destroyed (detached
// workers wait on it until the process ends).
inline Pool& instance() {
    static Pool* pool = [] {
        Pool* p = new Pool();
        pthread_atfork([] { instance().before_fork(); }, [] { instance().after_fork_parent(); },
                       [] { instance().after_fork_child(); });
        return p;
    }();
    return *pool;
}

inline void run_blocks(BlockFn fn, void* ctx, long long total, int threads) {
    instance().run(fn, ctx, total, threads);
}

inline void set_cpus(const int* cpus, int n) { instance().set_cpus(cpus, n); }
inline void set_spin(long long us) { instance().set_spin(us); }
inline long long spin() { return instance().spin(); }

}  // namespace pool
}  // namespace npu_emu_cpu
